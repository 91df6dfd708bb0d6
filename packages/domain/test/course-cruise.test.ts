/**
 * The matcher's cruise speed (the fastest minute-plus stretch of the last hour) is folded incrementally
 * (`CruiseFold`): the same figure as walking the runner's whole progress on every fix, which made matching quadratic
 * per runner (issue 25), with only the last hour's stretches kept.
 */
import { describe, expect, it } from 'vitest';
import {
  addFix,
  computeRunnerState,
  emptyRunnerState,
  prepareCourse,
  type Fix,
  type RaceClock,
  type RunnerState,
} from '../src/course';
import { cruiseSpeed, cruiseSpeedFull, foldFixInPlace, resolveOptions } from '../src/course/matching';
import { effortScale } from '../src/course/eta';
import { seededRandom, simulateRunner, windingCourse } from '../src/course/synthetic';

const START = Date.UTC(2026, 5, 6, 5, 0, 0);
const clock: RaceClock = { startMs: START, stopMs: null };

describe('cruise speed, folded incrementally', () => {
  // A 100 km course at 8–12 min/km with aid stops: about 17 hours, some 380 fixes after dropouts.
  const course = prepareCourse(windingCourse(5000, 20, 5));
  const E = effortScale(course);
  const rand = seededRandom(9);
  const sim = simulateRunner(course, {
    seed: 77,
    startMs: START,
    paceSecPerKm: 600,
    paceVariation: 0.2,
    noiseM: 10,
    dropoutRate: 0.1,
    stops: [20_000, 45_000, 70_000].map((atM) => ({ atM, durationMs: (5 + 20 * rand()) * 60_000 })),
  });
  const fixes: Fix[] = sim.fixes.map((f) => ({ t: f.t, lat: f.lat, lon: f.lon })).sort((a, b) => a.t - b.t);

  it('gives the same figure as the walk over the whole history after every fix of a long runner', () => {
    const o = resolveOptions();
    const s = emptyRunnerState();
    let compared = 0;
    let maxKept = 0;
    for (const f of fixes) {
      foldFixInPlace(course, s, f, clock, o);
      if (s.progress.length === 0) continue;
      expect(cruiseSpeed(s, START, E)).toBe(cruiseSpeedFull(s, START, E));
      maxKept = Math.max(maxKept, s.matchWindow!.cruise!.t.length);
      compared++;
    }
    expect(compared).toBeGreaterThan(300);
    expect(s.progress.length).toBeGreaterThan(300);
    expect(cruiseSpeedFull(s, START, E)).toBeGreaterThan(1);
    // Only the last hour's stretches are kept (pings every 2.5 minutes: about 24), not the runner's history.
    expect(maxKept).toBeLessThanOrEqual(26);
  });

  it('an earlier state keeps its own figure after later fixes (the fold is copied, not shared)', () => {
    let state: RunnerState = computeRunnerState(course, [], clock, START);
    const seen: Fix[] = [];
    const states: RunnerState[] = [];
    for (const f of fixes.slice(0, 200)) {
      state = addFix(course, state, seen, f, clock, f.t);
      seen.push(f);
      cruiseSpeed(state, START, E);
      states.push(state);
    }
    for (const st of states) expect(cruiseSpeed(st, START, E)).toBe(cruiseSpeedFull(st, START, E));
    // A state whose progress is not the fold's (built elsewhere, e.g. restored) folds afresh.
    const other = { ...states[150], progress: states[100].progress };
    expect(cruiseSpeed(other, START, E)).toBe(cruiseSpeedFull(other, START, E));
  });
});
