import { describe, expect, it } from 'vitest';
import {
  buildLeaderboard,
  computeRunnerState,
  cutoffRisk,
  etaAtDistance,
  lapCourse,
  outAndBackCourse,
  passingTime,
  prepareCourse,
  runnerSplits,
  sectionPaces,
  simulateRunner,
  sortFixes,
  type LeaderboardRunner,
  type PreparedCourse,
  type RunnerState,
  type SplitCheckpoint,
} from '../src/course';
import { evaluateRunnerConditions } from '../src/alert-rules';
import { DEFAULT_ALERT_SETTINGS } from '../src/constants';
import { leaderboardRowSchema } from '../src/live-messages';
import { fixAt, min, START, started, straight } from './support/course-fixtures';

/** When the simulated runner truly passed distance d (bisection on its true distance over time). */
function truthPassing(sim: { truthAt: (t: number) => number; finishMs: number }, d: number): number {
  let lo = START;
  let hi = sim.finishMs;
  while (hi - lo > 100) {
    const mid = (lo + hi) / 2;
    if (sim.truthAt(mid) < d) lo = mid;
    else hi = mid;
  }
  return hi;
}

const cp = (
  id: number,
  kind: SplitCheckpoint['kind'],
  distanceM: number,
  cutoffMs: number | null = null,
): SplitCheckpoint => ({ id, kind, name: `CP${id}`, distanceM, cutoffMs });

function simulatedState(course: PreparedCourse, seed: number, paceSecPerKm: number, noiseM: number) {
  const sim = simulateRunner(course, {
    seed,
    startMs: START,
    paceSecPerKm,
    pingIntervalMs: 60_000,
    noiseM,
    paceVariation: 0.15,
  });
  const fixes = sortFixes(sim.fixes.map(({ t, lat, lon }) => ({ t, lat, lon })));
  const state = computeRunnerState(course, fixes, started, sim.finishMs + 3_600_000);
  return { sim, state };
}

describe('splits from the matcher’s progress', () => {
  const outBack = prepareCourse(outAndBackCourse(5000));
  const laps = prepareCourse(lapCourse(3, 3300));

  // Each case: a course, its checkpoints (the same spot may be passed twice or thrice), the runner.
  const cases = [
    {
      name: 'out-and-back: the aid station passed out and back gets two times',
      course: outBack,
      checkpoints: [
        cp(1, 'start', 0),
        cp(2, 'waypoint', 2000),
        cp(3, 'waypoint', 5000),
        cp(4, 'waypoint', 8000),
        cp(5, 'finish', outBack.lengthM),
      ],
      seed: 7,
      pace: 360,
      noise: 8,
    },
    {
      name: '3-lap loop: the lap line and the aid station once per lap',
      course: laps,
      checkpoints: [
        cp(1, 'start', 0),
        cp(2, 'waypoint', 1000),
        cp(3, 'waypoint', 3300),
        cp(4, 'waypoint', 4300),
        cp(5, 'waypoint', 6600),
        cp(6, 'waypoint', 7600),
        cp(7, 'finish', laps.lengthM),
      ],
      seed: 11,
      pace: 300,
      noise: 8,
    },
  ];

  it.each(cases)('$name', ({ course, checkpoints, seed, pace, noise }) => {
    const { sim, state } = simulatedState(course, seed, pace, noise);
    expect(state.status).toBe('finished');
    const splits = runnerSplits(state, checkpoints, [], started);
    expect(splits.map((s) => s.checkpointId)).toEqual(checkpoints.map((c) => c.id));
    expect(splits[0]).toEqual({ checkpointId: 1, t: START, source: 'gps', estimated: false });
    for (const s of splits.slice(1, -1)) {
      const c = checkpoints.find((x) => x.id === s.checkpointId)!;
      expect(s.source).toBe('gps');
      expect(s.estimated).toBe(true);
      // Within half a ping interval of the truth (fixes every 60 s, GPS noise 8 m).
      expect(Math.abs(s.t - truthPassing(sim, c.distanceM)), `${c.distanceM} m`).toBeLessThan(30_000);
    }
    expect(splits.at(-1)).toMatchObject({ t: state.finishMs, estimated: false });
    // Times strictly increase along the course: the second pass of a spot is never confused with the first.
    for (let i = 1; i < splits.length; i++) expect(splits[i].t).toBeGreaterThan(splits[i - 1].t);
  });

  it('a check-in overrides the GPS time; a check-in ahead of the GPS still counts', () => {
    const course = straight(10_000);
    const state = computeRunnerState(
      course,
      [fixAt(course, 1000, 5), fixAt(course, 3000, 15), fixAt(course, 4000, 20)],
      started,
      min(21),
    );
    const cps = [
      cp(1, 'start', 0),
      cp(2, 'waypoint', 2000),
      cp(3, 'waypoint', 6000),
      cp(4, 'finish', 10_000),
    ];
    const gps = runnerSplits(state, cps, [], started);
    expect(gps.map((s) => [s.checkpointId, (s.t - START) / 60_000, s.source])).toEqual([
      [1, 0, 'gps'],
      [2, 10, 'gps'],
    ]);
    const checkins = [
      { checkpointId: 2, t: min(11) },
      { checkpointId: 2, t: min(12) }, // the "out" entry: the earliest counts
      { checkpointId: 3, t: min(31) }, // tracker lagging: the aid station saw the runner
    ];
    const merged = runnerSplits(state, cps, checkins, started);
    expect(merged.map((s) => [s.checkpointId, (s.t - START) / 60_000, s.source, s.estimated])).toEqual([
      [1, 0, 'gps', false],
      [2, 11, 'check-in', false],
      [3, 31, 'check-in', false],
    ]);
    expect(sectionPaces(merged, cps)).toEqual([
      { fromCheckpointId: 1, toCheckpointId: 2, distanceM: 2000, durationMs: 11 * 60_000, paceSecPerKm: 330 },
      { fromCheckpointId: 2, toCheckpointId: 3, distanceM: 4000, durationMs: 20 * 60_000, paceSecPerKm: 300 },
    ]);
  });

  it.each([
    { name: 'between two fixes', d: 1500, want: { t: min(7.5), exact: false } },
    { name: 'on a fix', d: 3000, want: { t: min(15), exact: true } },
    { name: 'before the first fix: from the start', d: 500, want: { t: min(2.5), exact: false } },
    { name: 'not reached', d: 4500, want: null },
  ])('passingTime: $name', ({ d, want }) => {
    const progress = [
      { t: min(5), distanceM: 1000 },
      { t: min(10), distanceM: 2000 },
      { t: min(15), distanceM: 3000 },
      { t: min(16), distanceM: 3000 },
      { t: min(20), distanceM: 4000 },
    ];
    expect(passingTime(progress, d, START)).toEqual(want);
  });
});

describe('cutoff risk', () => {
  const course = straight(10_000);
  // 3 km in 30 min: 10 min/km; expected at 5 km around minute 50.
  const slow = computeRunnerState(
    course,
    [fixAt(course, 1000, 10), fixAt(course, 2000, 20), fixAt(course, 3000, 30)],
    started,
    min(31),
  );
  const finished = computeRunnerState(
    course,
    [fixAt(course, 5000, 20), fixAt(course, 9000, 36), fixAt(course, 10_000, 40)],
    started,
    min(41),
  );
  const justStarted = computeRunnerState(course, [fixAt(course, 50, 1)], started, min(2));

  const cases: {
    name: string;
    state: RunnerState;
    cutoffMin: number | null;
    checkins?: { checkpointId: number; t: number }[];
    now?: number;
    risk: boolean;
  }[] = [
    { name: 'ETA after the cutoff', state: slow, cutoffMin: 45, risk: true },
    { name: 'ETA before the cutoff', state: slow, cutoffMin: 55, risk: false },
    { name: 'no cutoff at the next checkpoint, none further', state: slow, cutoffMin: null, risk: false },
    {
      name: 'checked in at the checkpoint already',
      state: slow,
      cutoffMin: 45,
      checkins: [{ checkpointId: 2, t: min(31) }],
      risk: false,
    },
    { name: 'finished runners are never at risk', state: finished, cutoffMin: 1, risk: false },
    { name: 'no pace yet, cutoff still ahead', state: justStarted, cutoffMin: 30, now: min(2), risk: false },
    { name: 'no pace yet, cutoff passed', state: justStarted, cutoffMin: 1, now: min(2), risk: true },
  ];

  it.each(cases)('$name', ({ state, cutoffMin, checkins, now, risk }) => {
    const cps = [
      cp(1, 'start', 0),
      cp(2, 'waypoint', 5000, cutoffMin === null ? null : min(cutoffMin)),
      cp(3, 'finish', 10_000),
    ];
    const r = cutoffRisk(state, cps, checkins ?? [], now ?? min(31));
    expect(r !== null).toBe(risk);
    if (r) expect(r.checkpoint.id).toBe(2);
  });

  it('the ETA at a distance follows the pace and is never in the past', () => {
    const eta = etaAtDistance(slow, 5000, min(31))!;
    expect((eta - START) / 60_000).toBeCloseTo(50, 0);
    expect(etaAtDistance(slow, 3000, min(40))).toBe(min(40));
  });
});

describe('leaderboard with DNS, DNF and DSQ', () => {
  const course = straight(5000);
  const state = (pts: [number, number][]) =>
    computeRunnerState(
      course,
      pts.map(([d, m]) => fixAt(course, d, m)),
      started,
      min(60),
    );
  let id = 1;
  const runner = (
    name: string,
    s: RunnerState,
    manualStatus: LeaderboardRunner['manualStatus'] = null,
  ): LeaderboardRunner => ({
    RunnerId: id++,
    BibNumber: String(id),
    FirstName: name,
    LastName: 'X',
    Gender: 'F',
    Age: 30,
    BatteryState: null,
    state: s,
    manualStatus,
  });
  const finisher = runner(
    'Fin',
    state([
      [2500, 10],
      [5000, 22],
    ]),
  );
  const racer = runner(
    'Race',
    state([
      [1000, 10],
      [2000, 58],
    ]),
  );
  const dnfFar = runner(
    'DnfFar',
    state([
      [1000, 5],
      [4000, 20],
    ]),
    { status: 'DNF', distanceM: 4000 },
  );
  // A DNF whose tracker went silent long ago (would be "stale"): ranked by the distance recorded.
  const dnfNear = runner('DnfNear', state([[1500, 10]]), { status: 'DNF', distanceM: 1500 });
  const dsq = runner(
    'Dsq',
    state([
      [2500, 9],
      [5000, 20],
    ]),
    { status: 'DSQ', distanceM: null },
  );
  const dns = runner('Dns', state([]), { status: 'DNS', distanceM: null });
  const unseen = runner('Unseen', state([]));

  it('ranks finished by time, racing by progress, then dnf by distance, dsq, dns, not started', () => {
    const rows = buildLeaderboard(
      [unseen, dns, dsq, dnfNear, racer, dnfFar, finisher],
      course,
      started,
      min(60),
    );
    expect(rows.map((r) => [r.FirstName, r.Rank, r.Status, r.DistanceKm])).toEqual([
      ['Fin', 1, 'finished', 5],
      ['Race', 2, 'racing', 2],
      ['DnfFar', null, 'dnf', 4],
      ['DnfNear', null, 'dnf', 1.5],
      ['Dsq', null, 'dsq', 5],
      ['Dns', null, 'dns', null],
      ['Unseen', null, 'not-started', null],
    ]);
    for (const r of rows) expect(leaderboardRowSchema.parse(r)).toEqual(r);
    const dnf = rows.find((r) => r.FirstName === 'DnfNear')!;
    expect(dnf).toMatchObject({ EtaFinish: null, GapSeconds: null, NextWaypoint: null, CutoffRisk: false });
  });

  it('carries the last checkpoint passed and the cutoff risk', () => {
    const cps = [
      cp(1, 'start', 0),
      cp(2, 'waypoint', 1500),
      cp(3, 'waypoint', 3000, min(61)),
      cp(4, 'finish', 5000),
    ];
    const rows = buildLeaderboard([finisher, racer, dnfNear], course, started, min(60), cps);
    const by = (n: string) => rows.find((r) => r.FirstName === n)!;
    expect(by('Fin')).toMatchObject({ LastCheckpoint: 'CP4', LastCheckpointKm: 5, CutoffRisk: false });
    expect(by('Fin').LastCheckpointTime).toBe(by('Fin').FinishTime);
    // Racer: 1 km at 10 min, 2 km at 58 min: 1.5 km passed at 34 min; 3 km by minute 61 is out of reach.
    expect(by('Race')).toMatchObject({
      LastCheckpoint: 'CP2',
      LastCheckpointTime: new Date(min(34)).toISOString(),
      CutoffRisk: true,
    });
    expect(by('DnfNear')).toMatchObject({ Status: 'dnf', LastCheckpoint: 'CP2', CutoffRisk: false });
  });

  it('a DNF runner gone silent is neither stale nor raises lost-signal', () => {
    const [row] = buildLeaderboard([dnfNear], course, started, min(60));
    expect(row.Status).toBe('dnf');
    const conditions = evaluateRunnerConditions(
      {
        status: row.Status,
        racing: true,
        expectedIntervalMs: 60_000,
        fixes: [],
        lastFix: { t: min(10), lat: 0, lon: 0 },
        batteryPercent: 5,
        batteryLow: false,
        waypointDistancesM: [],
      },
      { ...DEFAULT_ALERT_SETTINGS },
      min(60),
    );
    expect(conditions).toEqual([]);
  });
});
