/**
 * The pace model's resumable fold (eta.ts): a model made from kept folds equals the model made from scratch, for any
 * prefix asked in any order (a replay jumping around the race), and after a runner's progress was refolded (new
 * points after some index, the matcher re-deciding a late fix).
 */
import { describe, expect, it } from 'vitest';
import {
  addFix,
  computeRunnerState,
  prepareCourse,
  type Fix,
  type ProgressPoint,
  type RaceClock,
} from '../src/course';
import { paceModel } from '../src/course/eta';
import { hillyCourse, seededRandom, simulateHillRunner } from '../src/course/synthetic';

const START_MS = Date.UTC(2026, 5, 6, 6, 0, 0);
const clock: RaceClock = { startMs: START_MS, stopMs: null };
const course = prepareCourse(hillyCourse(30_000, 6000, 3));

function progressOf(seed: number): ProgressPoint[] {
  const sim = simulateHillRunner(course, {
    seed,
    startMs: START_MS,
    flatPaceSecPerKm: 330,
    pingIntervalMs: 60_000,
  });
  let state = computeRunnerState(course, [], clock, START_MS);
  const seen: Fix[] = [];
  for (const f of sim.fixes) {
    const fix: Fix = { t: f.t, lat: f.lat, lon: f.lon };
    state = addFix(course, state, seen, fix, clock, f.t);
    seen.push(fix);
  }
  return state.progress;
}

/** The model from scratch: the same points as new objects (nothing kept matches them). */
const fromScratch = (p: ProgressPoint[]) =>
  paceModel(
    course,
    p.map((q) => ({ ...q })),
    START_MS,
  );
const strip = (m: ReturnType<typeof paceModel>) => (m ? { ...m, last: { ...m.last } } : m);

describe('pace model from kept folds', () => {
  const progress = progressOf(11);

  it('the run is long enough to keep several folds', () => {
    expect(progress.length).toBeGreaterThan(300);
  });

  it('equals the model from scratch for prefixes asked in a random order', () => {
    const rand = seededRandom(5);
    for (let i = 0; i < 80; i++) {
      const n = 1 + Math.floor(rand() * progress.length);
      const prefix = progress.slice(0, n);
      expect(strip(paceModel(course, prefix, START_MS))).toEqual(strip(fromScratch(prefix)));
    }
  });

  it('after a refold (new points from index 150 on), the new progress gets its own model', () => {
    const kept = progress.slice(0, 150);
    const refolded = kept.concat(
      progress.slice(150).map((q) => ({ t: q.t + 90_000, distanceM: q.distanceM })),
    );
    for (const n of [400, 200, 160, 151, 149, refolded.length]) {
      const prefix = refolded.slice(0, Math.min(n, refolded.length));
      expect(strip(paceModel(course, prefix, START_MS))).toEqual(strip(fromScratch(prefix)));
    }
    // And the old branch is still right too.
    const old = progress.slice(0, 300);
    expect(strip(paceModel(course, old, START_MS))).toEqual(strip(fromScratch(old)));
  });

  it('branches of a replay (late fixes refolding at 100, 220 and 330) asked in turn each equal the model from scratch', () => {
    // Each branch shares the points before its refold with the branch it came from, as a replay's segments do.
    const branches: ProgressPoint[][] = [progress];
    for (const [k, at] of [100, 220, 330].entries()) {
      const base = branches[branches.length - 1];
      branches.push(
        base
          .slice(0, at)
          .concat(base.slice(at).map((q) => ({ t: q.t + (k + 1) * 30_000, distanceM: q.distanceM }))),
      );
    }
    const rand = seededRandom(9);
    for (let i = 0; i < 120; i++) {
      const b = branches[Math.floor(rand() * branches.length)];
      // A new array each time (a replay slices a prefix per question): only the kept folds are shared.
      const prefix = b.slice(0, 1 + Math.floor(rand() * b.length));
      expect(strip(paceModel(course, prefix, START_MS))).toEqual(strip(fromScratch(prefix)));
    }
  });
});
