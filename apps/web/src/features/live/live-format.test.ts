import { describe, expect, it } from 'vitest';
import { formatClock, formatNextWaypoint } from './live-format';

describe('formatNextWaypoint', () => {
  it('names the next aid station and when the runner is expected there', () => {
    const eta = '2026-06-06T14:05:00.000Z';
    expect(formatNextWaypoint({ NextWaypoint: 'Aid 2', NextWaypointKm: 14, EtaNextWaypoint: eta })).toBe(
      `Aid 2 · ${formatClock(eta)}`,
    );
  });

  it('gives the distance while no ETA is known yet, and null with no waypoint ahead', () => {
    expect(formatNextWaypoint({ NextWaypoint: 'Aid 2', NextWaypointKm: 14, EtaNextWaypoint: null })).toBe(
      'Aid 2 at 14.0 km',
    );
    expect(
      formatNextWaypoint({ NextWaypoint: null, NextWaypointKm: null, EtaNextWaypoint: null }),
    ).toBeNull();
  });
});
