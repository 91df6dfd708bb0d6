/**
 * Cutoff risk reads the same ETA the leaderboard shows: on a course with elevation, the grade-adjusted ETA
 * (`etaRange`), not the flat pace — a runner below a long climb is at risk where flat pace says they are on time.
 */
import { describe, expect, it } from 'vitest';
import {
  addFix,
  computeRunnerState,
  cutoffRisk,
  etaAtDistance,
  prepareCourse,
  type Fix,
  type RaceClock,
  type RunnerState,
  type SplitCheckpoint,
} from '../src/course';
import { etaRange } from '../src/course/eta';
import { hillyCourse, simulateHillRunner } from '../src/course/synthetic';

const START_MS = Date.UTC(2026, 5, 6, 6, 0, 0);
const clock: RaceClock = { startMs: START_MS, stopMs: null };
const course = prepareCourse(hillyCourse(30_000, 6000, 3));
const terrain = { course, startMs: START_MS };

/** A runner's live state after every fix; the samples where flat and terrain ETAs at the next aid differ most. */
function statesOfOneRunner(): { state: RunnerState; t: number }[] {
  const sim = simulateHillRunner(course, {
    seed: 7001,
    startMs: START_MS,
    flatPaceSecPerKm: 360,
    noiseM: 10,
  });
  let state = computeRunnerState(course, [], clock, START_MS);
  const seen: Fix[] = [];
  const out: { state: RunnerState; t: number }[] = [];
  for (const f of sim.fixes) {
    const fix: Fix = { t: f.t, lat: f.lat, lon: f.lon };
    state = addFix(course, state, seen, fix, clock, f.t);
    seen.push(fix);
    if (state.status === 'racing') out.push({ state, t: f.t });
  }
  return out;
}

const nextAid = (s: RunnerState) => course.waypoints.find((w) => w.distanceM > s.distanceM + 1)!;

describe('cutoff risk with the terrain-aware ETA', () => {
  const samples = statesOfOneRunner().filter(({ state, t }) => {
    const aid = nextAid(state);
    if (!aid) return false;
    const flat = etaAtDistance(state, aid.distanceM, t);
    const hill = etaAtDistance(state, aid.distanceM, t, terrain);
    return flat !== null && hill !== null && Math.abs(flat - hill) > 3 * 60_000;
  });

  it('the runs have moments where the two ETAs disagree by more than 3 minutes', () => {
    expect(samples.length).toBeGreaterThan(5);
  });

  it('the ETA with terrain is the grade-adjusted one, never in the past', () => {
    for (const { state, t } of samples) {
      const aid = nextAid(state);
      const range = etaRange(course, state.progress, START_MS, aid.distanceM)!;
      expect(etaAtDistance(state, aid.distanceM, t, terrain)).toBe(Math.max(t, range.etaMs));
    }
  });

  it('a cutoff between the two ETAs is decided by the terrain-aware one', () => {
    for (const { state, t } of samples) {
      const aid = nextAid(state);
      const flat = etaAtDistance(state, aid.distanceM, t)!;
      const hill = etaAtDistance(state, aid.distanceM, t, terrain)!;
      const cps: SplitCheckpoint[] = [
        { id: 1, kind: 'start', name: 'Start', distanceM: 0, cutoffMs: null },
        {
          id: 2,
          kind: 'waypoint',
          name: aid.name,
          distanceM: aid.distanceM,
          cutoffMs: Math.round((flat + hill) / 2),
        },
        { id: 3, kind: 'finish', name: 'Finish', distanceM: course.lengthM, cutoffMs: null },
      ];
      const withTerrain = cutoffRisk(state, cps, [], t, terrain);
      const flatOnly = cutoffRisk(state, cps, [], t);
      expect(withTerrain !== null).toBe(hill > flat);
      expect(flatOnly !== null).toBe(flat > hill);
      if (withTerrain) expect(withTerrain.etaMs).toBe(hill);
    }
  });
});
