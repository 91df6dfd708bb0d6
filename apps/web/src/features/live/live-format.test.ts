import { describe, expect, it } from 'vitest';
import {
  formatBattery,
  formatClock,
  formatEstimate,
  formatEtaRange,
  formatNextWaypoint,
} from './live-format';

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

describe('ETA ranges and estimates (issue 16)', () => {
  const eta = '2026-06-06T14:20:00.000Z';
  const early = '2026-06-06T14:05:00.000Z';
  const late = '2026-06-06T14:40:00.000Z';

  it('shows an ETA with its range, or alone when the range is not known', () => {
    expect(formatEtaRange(eta, early, late)).toBe(
      `${formatClock(eta)} (${formatClock(early)}–${formatClock(late)})`,
    );
    expect(formatEtaRange(eta, null, null)).toBe(formatClock(eta));
    expect(formatEtaRange(null, early, late)).toBe('–');
  });

  it('gives the next aid station with its ETA range', () => {
    expect(
      formatNextWaypoint({
        NextWaypoint: 'Aid 2',
        NextWaypointKm: 14,
        EtaNextWaypoint: eta,
        EtaNextWaypointEarliest: early,
        EtaNextWaypointLatest: late,
      }),
    ).toBe(`Aid 2 · ${formatClock(eta)} (${formatClock(early)}–${formatClock(late)})`);
  });

  it('labels an estimate as estimated, with its range when it is not a point', () => {
    expect(
      formatEstimate({
        EstimatedDistanceKm: 12.43,
        EstimatedDistanceKmMin: 11.9,
        EstimatedDistanceKmMax: 12.8,
      }),
    ).toBe('estimated 12.4 km (11.9–12.8)');
    expect(
      formatEstimate({ EstimatedDistanceKm: 5, EstimatedDistanceKmMin: 5, EstimatedDistanceKmMax: 5 }),
    ).toBe('estimated 5.0 km');
    expect(formatEstimate({ EstimatedDistanceKm: null })).toBeNull();
    expect(formatEstimate({})).toBeNull();
  });
});
