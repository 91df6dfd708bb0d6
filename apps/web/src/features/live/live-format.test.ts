import { describe, expect, it } from 'vitest';
import { formatBattery, formatClock, formatNextWaypoint } from './live-format';

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

describe('formatBattery', () => {
  it('shows a reported percentage as a whole one, so 81 % reads differently from 16 %', () => {
    expect(formatBattery('81%')).toEqual({ text: '81%', low: false });
    expect(formatBattery('16%')).toEqual({ text: '16%', low: true });
    expect(formatBattery('20 %')).toEqual({ text: '20%', low: true });
    expect(formatBattery('80.6')).toEqual({ text: '81%', low: false });
    expect(formatBattery('100%')).toEqual({ text: '100%', low: false });
  });

  it("shows the device's word only when that is all it says", () => {
    expect(formatBattery('LOW')).toEqual({ text: 'LOW', low: true });
    expect(formatBattery('low')).toEqual({ text: 'LOW', low: true });
    expect(formatBattery('GOOD')).toEqual({ text: 'GOOD', low: false });
  });

  it('shows nothing without a report', () => {
    expect(formatBattery(null)).toBeNull();
    expect(formatBattery(undefined)).toBeNull();
    expect(formatBattery('  ')).toBeNull();
  });
});
