import { describe, expect, it } from 'vitest';
import {
  buildLeaderboard,
  computeRunnerState,
  outAndBackCourse,
  prepareCourse,
  RunnerTimeline,
  simulateRunner,
  type Fix,
  type LeaderboardRunner,
  type RaceClock,
  type RunnerState,
  type SimulatedFix,
} from '../src/course';
import { fixAt, min, START, started, straight } from './support/course-fixtures';

/** The live state built from the fixes received by `at`: the definition the replay must meet. */
function liveStateAt(
  course: Parameters<typeof computeRunnerState>[0],
  fixes: SimulatedFix[],
  clock: RaceClock,
  at: number,
  opts?: { staleAfterMs: number },
) {
  return computeRunnerState(
    course,
    fixes.filter((f) => f.deliveredMs <= at),
    clock,
    at,
    opts,
  );
}

const withoutWindow = (s: RunnerState) => ({ ...s, matchWindow: undefined });

/** Feeds simulated deliveries to a timeline, one arrival per delivered fix (same time: one batch). */
function timelineOf(
  course: Parameters<typeof computeRunnerState>[0],
  fixes: SimulatedFix[],
  clock: RaceClock,
  opts?: { staleAfterMs: number },
) {
  const tl = new RunnerTimeline<SimulatedFix>(course, clock, opts);
  for (let k = 0; k < fixes.length;) {
    let e = k + 1;
    while (e < fixes.length && fixes[e].deliveredMs === fixes[k].deliveredMs) e++;
    tl.add(fixes.slice(k, e), fixes[k].deliveredMs);
    k = e;
  }
  return tl;
}

describe('replay timeline: the state at a time equals the live state built from the fixes received by then', () => {
  const cases: {
    name: string;
    course: ReturnType<typeof prepareCourse>;
    lateRate: number;
    clock: RaceClock;
    maxDelay?: number;
  }[] = [
    { name: 'straight, in order', course: straight(10_000), lateRate: 0, clock: started },
    { name: 'straight, 20 % late fixes', course: straight(10_000), lateRate: 0.2, clock: started },
    {
      name: 'out-and-back, late fixes',
      course: prepareCourse(outAndBackCourse(4000)),
      lateRate: 0.15,
      clock: started,
    },
    {
      name: 'clock stopped mid-race',
      course: straight(10_000),
      lateRate: 0.1,
      clock: { startMs: START, stopMs: min(40) },
    },
    // Later than the matcher windows a segment keeps (32 folds): the fold restarts from the first fix.
    {
      name: 'fixes up to 45 pings late',
      course: straight(10_000),
      lateRate: 0.05,
      clock: started,
      maxDelay: 45,
    },
  ];

  it.each(cases)('$name', ({ course, lateRate, clock, maxDelay }) => {
    for (const seed of [1, 2, 3]) {
      const sim = simulateRunner(course, {
        seed,
        startMs: START - 5 * 60_000,
        paceSecPerKm: 330,
        pingIntervalMs: 60_000,
        lateRate,
        maxDelayPings: maxDelay ?? 4,
        dropoutRate: 0.05,
        jumpPings: [7],
      });
      const opts = { staleAfterMs: 180_000 };
      const tl = timelineOf(course, sim.fixes, clock, opts);
      const last = sim.fixes[sim.fixes.length - 1].deliveredMs;
      let lateSeen = 0;
      for (let at = START - 10 * 60_000; at <= last + 10 * 60_000; at += 37_000) {
        const got = tl.at(at);
        const want = liveStateAt(course, sim.fixes, clock, at, opts);
        // The matcher's internal window (RunnerState.matchWindow) is kept for the newest folds only.
        expect(withoutWindow(got.state)).toEqual(withoutWindow(want));
        // The fixes received by then, in time order.
        const received = sim.fixes.filter((f) => f.deliveredMs <= at).sort((a, b) => a.t - b.t);
        expect(got.fixes.slice(0, got.count)).toEqual(received);
        if (received.some((f) => f.deliveredMs - f.t > 60_000)) lateSeen++;
      }
      if (lateRate > 0) expect(lateSeen).toBeGreaterThan(0);
    }
  });

  it('a late fix changes the replay only from its arrival', () => {
    const course = straight(10_000);
    const tl = new RunnerTimeline<Fix>(course, started);
    tl.add([fixAt(course, 1000, 5)], min(5));
    tl.add([fixAt(course, 3000, 15)], min(15));
    // The fix of minute 10 (2 km) arrives at minute 30, after the one of minute 20 (4 km).
    tl.add([fixAt(course, 4000, 20)], min(20));
    tl.add([fixAt(course, 2000, 10)], min(30));
    expect(tl.at(min(25)).count).toBe(3);
    expect(tl.at(min(25)).state.progress.map((p) => p.t)).toEqual([min(5), min(15), min(20)]);
    expect(tl.at(min(30)).count).toBe(4);
    expect(tl.at(min(30)).state.progress.map((p) => p.t)).toEqual([min(5), min(10), min(15), min(20)]);
    // Before the first arrival: not seen at all.
    expect(tl.at(min(4)).count).toBe(0);
    expect(tl.at(min(4)).state.status).toBe('not-started');
    // A duplicate (same fix time) keeps the first delivered.
    tl.add([{ ...fixAt(course, 9000, 20) }], min(31));
    expect(tl.at(min(31)).count).toBe(4);
    expect(tl.at(min(31)).state.distanceM).toBeCloseTo(4000, -1);
  });

  it('a leaderboard of timeline states at a time equals the live leaderboard from the same fixes', () => {
    const course = straight(10_000);
    const sims = [300, 280, 350, 320].map((pace, k) =>
      simulateRunner(course, {
        seed: 10 + k,
        startMs: START,
        paceSecPerKm: pace,
        pingIntervalMs: 90_000,
        lateRate: 0.1,
      }),
    );
    const tls = sims.map((s) => timelineOf(course, s.fixes, started));
    const runner = (k: number, state: LeaderboardRunner['state']): LeaderboardRunner => ({
      RunnerId: k + 1,
      BibNumber: String(k + 1),
      FirstName: `F${k}`,
      LastName: `L${k}`,
      Gender: 'M',
      Age: 30,
      BatteryState: null,
      state,
    });
    let leaders = new Set<number>();
    for (const m of [3, 10, 20, 30, 45, 60]) {
      const at = min(m);
      const replay = buildLeaderboard(
        tls.map((tl, k) => runner(k, tl.at(at).state)),
        course,
        started,
        at,
      );
      const live = buildLeaderboard(
        sims.map((s, k) => runner(k, liveStateAt(course, s.fixes, started, at))),
        course,
        started,
        at,
      );
      expect(replay).toEqual(live);
      leaders = leaders.add(replay[0].RunnerId);
    }
    // The fastest runner (280 s/km) leads once everyone has a few fixes.
    expect(leaders.has(2)).toBe(true);
  });
});
