import { describe, expect, it } from 'vitest';
import {
  addFix,
  computeRunnerState,
  figureEightCourse,
  lapCourse,
  outAndBackCourse,
  prepareCourse,
  sortFixes,
  switchbackCourse,
  type Fix,
  type PreparedCourse,
} from '../src/course';
import { fixAt, min, START, started, straight } from './support/course-fixtures';

const outAndBack = prepareCourse(outAndBackCourse(5000)); // turnaround at 5 km, 10 km long
const laps = prepareCourse(lapCourse(3, 3000)); // 3 laps of 3 km
const eight = prepareCourse(figureEightCourse(1000, 1)); // crosses itself at the start and half-way
const line = straight(10_000);

/** [distance along the course, minute, dx, dy] → fixes. */
const track = (c: PreparedCourse, pts: [number, number, number?, number?][]): Fix[] =>
  pts.map(([d, m, dx, dy]) => fixAt(c, d, m, dx ?? 0, dy ?? 0));

describe('placing fixes on the course', () => {
  const E = eight.lengthM;
  const cases: [string, PreparedCourse, [number, number, number?, number?][], number, number?][] = [
    [
      'a straight run',
      line,
      [
        [500, 2.5],
        [1000, 5],
        [1500, 7.5],
      ],
      1500,
    ],
    [
      'noise of 15 m sideways',
      line,
      [
        [500, 2.5, 0, 15],
        [1000, 5, 0, -15],
      ],
      1000,
    ],
    [
      'out-and-back: the way back is not the way out',
      outAndBack,
      [
        [2500, 12.5],
        [4500, 22.5],
        [6000, 30],
        [7000, 35],
      ],
      7000,
    ],
    [
      'out-and-back: just after the turnaround',
      outAndBack,
      [
        [4000, 20],
        [4800, 24],
        [5300, 26.5],
      ],
      5300,
    ],
    [
      'out-and-back: just before the turnaround',
      outAndBack,
      [
        [4000, 20],
        [4400, 22],
        [4700, 23.5],
      ],
      4700,
    ],
    [
      // After 20 minutes unseen the fix at 7 km could as well be a runner still at 3 km (the same spot): it waits
      // for the next fix, which decides both (see 'an ambiguous fix waits for the next one' below).
      'out-and-back: a dropout across the turnaround',
      outAndBack,
      [
        [3000, 15],
        [7000, 35],
        [7500, 37.5],
      ],
      7500,
    ],
    [
      '3 laps: the second lap at the same spot',
      laps,
      [
        [1000, 5],
        [2000, 10],
        [2900, 14.5],
        [3500, 17.5],
        [4000, 20],
      ],
      4000,
    ],
    [
      '3 laps: the third lap',
      laps,
      [
        [2500, 12.5],
        [5000, 25],
        [7000, 35],
        [7600, 38],
      ],
      7600,
    ],
    [
      '3 laps: through the start/finish without finishing',
      laps,
      [
        [2800, 14],
        [3100, 15.5],
        [3300, 16.5],
      ],
      3300,
    ],
    [
      'figure eight: through the crossing it keeps its pass',
      eight,
      [
        [E / 2 - 300, 20],
        [E / 2, 21.5],
        [E / 2 + 300, 23],
      ],
      E / 2 + 300,
    ],
    [
      'figure eight: a fix right on the crossing while on the second loop',
      eight,
      [
        [E / 2 - 450, 20],
        [E / 2 + 5, 22.5],
      ],
      E / 2 + 5,
    ],
  ];

  it.each(cases)('%s', (_name, course, pts, expected, tolerance = 20) => {
    const fixes = track(course, pts);
    const s = computeRunnerState(course, fixes, started, fixes[fixes.length - 1].t);
    expect(s.distanceM).toBeGreaterThan(expected - tolerance);
    expect(s.distanceM).toBeLessThan(expected + tolerance);
    expect(s.status).toBe('racing');
  });
});

describe('progress never goes backwards', () => {
  it('a runner standing still in GPS noise keeps their distance', () => {
    const pts: [number, number, number, number][] = [[2000, 10, 0, 0]];
    for (let k = 1; k <= 12; k++) pts.push([2000, 10 + 2.5 * k, (k % 3) * 8 - 8, (k % 2) * 12 - 6]);
    const s = computeRunnerState(line, track(line, pts), started, min(45));
    for (let k = 1; k < s.progress.length; k++)
      expect(s.progress[k].distanceM).toBeGreaterThanOrEqual(s.progress[k - 1].distanceM);
    expect(s.distanceM).toBeGreaterThan(1990);
    expect(s.distanceM).toBeLessThan(2015);
  });

  it('a fix behind the runner (back on the way out of an out-and-back) does not move them back', () => {
    const s = computeRunnerState(
      outAndBack,
      track(outAndBack, [
        [6000, 30],
        [3000, 32.5],
        // The fix after them (a fix as ambiguous as the one after it waits for two more: MAX_DEFERRED).
        [6500, 35],
      ]),
      started,
      min(35),
    );
    expect(s.progress.map((p) => Math.round(p.distanceM / 10) * 10)).toEqual([6000, 6500]);
    expect(s.distanceM).toBeCloseTo(6500, -1);
    expect(s.status).toBe('racing');
  });
});

describe('an ambiguous fix waits for the next one', () => {
  it('a fix two passes fit about as well is decided by the fix after it, and its point kept', () => {
    const fixes = track(outAndBack, [
      [3000, 15],
      [7000, 35],
      [7500, 37.5],
    ]);
    const waiting = computeRunnerState(outAndBack, fixes.slice(0, 2), started, min(35));
    expect(waiting.distanceM).toBeCloseTo(3000, -1);
    const decided = computeRunnerState(outAndBack, fixes, started, min(37.5));
    expect(decided.progress.map((p) => Math.round(p.distanceM / 10) * 10)).toEqual([3000, 7000, 7500]);
  });

  it('switchbacks 40 m apart: a fix nearer the leg below is placed by the sequence, not the nearest leg', () => {
    // Legs 600 m long, 40 m apart; at 1187 m the runner is on the second leg, 53 m from its end, right above the
    // start of the first leg. The fix is displaced 25 m down towards the first leg (15 m from it). Nearest-leg
    // matching puts them back at 53 m and keeps them on the first leg; the sequence of fixes does not.
    const sw = prepareCourse(switchbackCourse(6, 600, 40));
    const pts: [number, number, number?, number?][] = [
      [48, 0.2],
      [1187, 5.2, 0, -25],
      [1775, 7.7],
      [2368, 10.2],
    ];
    const s = computeRunnerState(sw, track(sw, pts), started, min(10.2));
    expect(s.progress).toHaveLength(4);
    s.progress.forEach((p, k) => expect(Math.abs(p.distanceM - pts[k][0])).toBeLessThan(30));
  });
});

describe('late fixes are placed in time order', () => {
  const inOrder = track(outAndBack, [
    [1000, 5],
    [2000, 10],
    [3000, 15],
    [4000, 20],
    [5200, 26],
    [6000, 30],
  ]);
  const delivered = [inOrder[0], inOrder[2], inOrder[1], inOrder[5], inOrder[3], inOrder[4]];

  it('incremental delivery out of order ends in the same state as a full computation in order', () => {
    let s = computeRunnerState(outAndBack, [], started, START);
    const seen: Fix[] = [];
    for (const f of delivered) {
      s = addFix(outAndBack, s, sortFixes(seen), f, started, f.t);
      seen.push(f);
    }
    const full = computeRunnerState(outAndBack, inOrder, started, min(30));
    expect(s.progress).toEqual(full.progress);
    expect(s.distanceM).toBeCloseTo(6000, -1);
  });

  it('the fast path (a newer fix) equals a recomputation', () => {
    const first = computeRunnerState(outAndBack, inOrder.slice(0, 4), started, min(20));
    const fast = addFix(outAndBack, first, inOrder.slice(0, 4), inOrder[4], started, min(26));
    expect(fast).toEqual(computeRunnerState(outAndBack, inOrder.slice(0, 5), started, min(26)));
    // The input state is not modified.
    expect(first.progress).toHaveLength(4);
  });

  it('a duplicate delivery changes nothing', () => {
    const a = computeRunnerState(
      line,
      track(line, [
        [500, 2.5],
        [1000, 5],
      ]),
      started,
      min(5),
    );
    const again = track(line, [
      [500, 2.5],
      [1000, 5],
      [1000, 5],
    ]);
    expect(computeRunnerState(line, again, started, min(5))).toEqual(a);
  });
});

describe('GPS jumps and off-course fixes', () => {
  it('a fix 1 km off the course marks the runner off-course without moving them; the next fix clears it', () => {
    const fixes = track(line, [
      [1000, 5],
      [1500, 7.5, 0, 1000],
    ]);
    const off = computeRunnerState(line, fixes, started, min(7.5));
    expect(off.status).toBe('off-course');
    expect(off.distanceM).toBeCloseTo(1000, -1);
    expect(off.lastOnCourseMs).toBe(min(5));
    const back = computeRunnerState(line, [...fixes, fixAt(line, 2000, 10)], started, min(10));
    expect(back.status).toBe('racing');
    expect(back.distanceM).toBeCloseTo(2000, -1);
  });

  it('the threshold is configurable', () => {
    const fixes = track(line, [
      [1000, 5],
      [1500, 7.5, 0, 120],
    ]);
    expect(computeRunnerState(line, fixes, started, min(8)).status).toBe('racing');
    expect(computeRunnerState(line, fixes, started, min(8), { offCourseMeters: 100 }).status).toBe(
      'off-course',
    );
  });

  it('a 1 km jump across a loop onto a later part of the course does not move the runner ahead', () => {
    // Laps of 3 km: a circle 955 m across. Half a lap on is the far side, 955 m away as the crow flies.
    const fixes = track(laps, [
      [1000, 5],
      [1250, 6.25],
      [1250 + 1500, 7.5],
      [1700, 8.75],
      [2000, 10],
    ]);
    fixes[2] = fixAt(laps, 2750, 7.5);
    const jumped = computeRunnerState(laps, fixes.slice(0, 3), started, min(7.5));
    expect(jumped.distanceM).toBeCloseTo(1250, -1);
    expect(jumped.pendingJump).not.toBeNull();
    const after = computeRunnerState(laps, fixes, started, min(10));
    // A fix's place is weighed with the runner's motion (GPS noise is σ ≈ 10 m along the course): the pace rises
    // from 3 to 4 m/s over the last 75 s here, which puts the exact last fix 9 m short.
    expect(Math.abs(after.distanceM - 2000)).toBeLessThan(10);
    expect(after.progress.map((p) => Math.round(p.distanceM / 50) * 50)).toEqual([1000, 1250, 1700, 2000]);
  });

  it('a genuine surge is taken once a second fix confirms it', () => {
    // Standing at an aid station for 20 minutes, then 1.2 km in 2.5 minutes (a fast downhill): more than the
    // standing runner's speed predicts, so it waits for the next fix, which continues from it.
    const pts: [number, number][] = [[3000, 10]];
    for (let m = 12.5; m <= 30; m += 2.5) pts.push([3000, m]);
    pts.push([4200, 32.5], [4900, 35]);
    const fixes = track(line, pts);
    const pending = computeRunnerState(line, fixes.slice(0, -1), started, min(32.5));
    expect(pending.distanceM).toBeCloseTo(3000, -1);
    const confirmed = computeRunnerState(line, fixes, started, min(35));
    expect(confirmed.distanceM).toBeCloseTo(4900, -1);
    expect(confirmed.progress.some((p) => Math.abs(p.distanceM - 4200) < 10)).toBe(true);
  });
});

describe('race clock and status', () => {
  const fixes = track(line, [
    [0, -10],
    [0, -1],
    [600, 2.5],
    [1200, 5],
  ]);

  it('before the clock starts nobody advances; the last fix still shows where they are', () => {
    const s = computeRunnerState(line, fixes, { startMs: null, stopMs: null }, min(5));
    expect(s).toMatchObject({ status: 'not-started', distanceM: 0, elapsedMs: null, progress: [] });
    expect(s.lastFix?.t).toBe(min(5));
  });

  it('fixes before the start are ignored for progress', () => {
    const s = computeRunnerState(line, fixes.slice(0, 2), started, min(1));
    expect(s.status).toBe('not-started');
    expect(s.lastFix?.t).toBe(min(-1));
    expect(computeRunnerState(line, fixes, started, min(5)).progress.map((p) => p.t)).toEqual([
      min(2.5),
      min(5),
    ]);
  });

  it('a start time in the past counts from that time', () => {
    const s = computeRunnerState(line, fixes, { startMs: min(-5), stopMs: null }, min(5));
    expect(s.elapsedMs).toBe(10 * 60_000);
    expect(s.progress[0].t).toBe(min(-1));
  });

  it('the stop freezes the clock and ignores later fixes', () => {
    const s = computeRunnerState(line, fixes, { startMs: START, stopMs: min(3) }, min(60));
    expect(s.elapsedMs).toBe(3 * 60_000);
    expect(s.distanceM).toBeCloseTo(600, -1);
    expect(s.lastFix?.t).toBe(min(2.5));
  });

  it.each([
    [min(5) + 300_000, 'racing'],
    [min(5) + 300_001, 'stale'],
  ])('at %s the status is %s (stale after two missed 150 s pings)', (now, status) => {
    expect(computeRunnerState(line, fixes, started, now).status).toBe(status);
  });
});

describe('finish', () => {
  it('is detected at the first fix past the line, the time interpolated between the last two fixes', () => {
    const c = straight(5000);
    // 4 m/s: crosses 5000 m at 1250 s; the fix at 1287.5 s is 150 m past the end, straight on.
    const fixes = [fixAt(c, 4800, 1200 / 60), fixAt(c, 5000, 1287.5 / 60, 150, 0)];
    const s = computeRunnerState(c, fixes, started, min(30));
    expect(s.status).toBe('finished');
    expect(s.distanceM).toBe(c.lengthM);
    expect(s.percent).toBe(100);
    expect(Math.abs(s.finishMs! - (START + 1250_000))).toBeLessThan(2000);
    expect(s.elapsedMs).toBe(s.finishMs! - START);
    expect(s.etaFinishMs).toBeNull();
    // Later fixes do not change a finished runner.
    const later = computeRunnerState(c, [...fixes, fixAt(c, 3000, 40)], started, min(45));
    expect(later.finishMs).toBe(s.finishMs);
    expect(later.status).toBe('finished');
  });

  it('a runner standing at the finish gets the time extrapolated from their pace, not the time of the fix', () => {
    const c = straight(5000);
    const fixes = track(c, [
      [4000, 20],
      [4500, 22.5],
      [5000, 30],
    ]);
    const s = computeRunnerState(c, fixes, started, min(31));
    // 200 m/min: the line at minute 25, not 30.
    expect(Math.abs(s.finishMs! - min(25))).toBeLessThan(30_000);
  });

  it('on a lap course only after the last lap', () => {
    const L = laps.lengthM;
    const s = computeRunnerState(
      laps,
      track(laps, [
        [2900, 14.5],
        [3050, 15.25],
        [6050, 30.25],
      ]),
      started,
      min(31),
    );
    expect(s.status).toBe('racing');
    const done = computeRunnerState(
      laps,
      track(laps, [
        [8600, 43],
        [L - 10, 45],
        [L, 47.5],
      ]),
      started,
      min(48),
    );
    expect(done.status).toBe('finished');
  });

  it('not on the way out of an out-and-back that finishes at its start', () => {
    const s = computeRunnerState(
      outAndBack,
      track(outAndBack, [
        [30, 0.25],
        [400, 2],
      ]),
      started,
      min(2),
    );
    expect(s.status).toBe('racing');
    expect(s.distanceM).toBeLessThan(500);
  });
});

describe('pace and ETA', () => {
  // 5:00 per km, constant; waypoint at 6 km.
  const withAid = prepareCourse({
    points: Array.from(line.lon, (lon, i) => [lon, line.lat[i], null] as [number, number, null]),
    waypoints: [
      {
        name: 'Aid 1',
        lat: line.lat[0],
        lon: line.lon[0] + (line.lon[line.lon.length - 1] - line.lon[0]) * 0.6,
      },
    ],
  });
  const fixes = track(withAid, [
    [500, 2.5],
    [1000, 5],
    [2000, 10],
    [3000, 15],
    [4000, 20],
  ]);
  const s = computeRunnerState(withAid, fixes, started, min(21));

  it('average and recent pace', () => {
    expect(s.paceSecPerKm).toBeCloseTo(300, 0);
    expect(s.recentPaceSecPerKm).toBeCloseTo(300, 0);
    expect(s.elapsedMs).toBe(21 * 60_000);
  });

  it('ETA to the finish and to the next waypoint', () => {
    expect(Math.abs(s.etaFinishMs! - min(50))).toBeLessThan(20_000);
    expect(s.nextWaypoint?.name).toBe('Aid 1');
    expect(s.nextWaypoint?.distanceM).toBeCloseTo(6000, -1);
    expect(Math.abs(s.nextWaypoint!.etaMs! - min(30))).toBeLessThan(20_000);
  });

  it('recent pace follows a slowdown that the average hides', () => {
    const slow = [
      ...fixes,
      ...track(withAid, [
        [4300, 25],
        [4600, 30],
        [4900, 35],
        [5200, 40],
      ]),
    ];
    const t = computeRunnerState(withAid, slow, started, min(40));
    expect(t.recentPaceSecPerKm!).toBeGreaterThan(900);
    expect(t.paceSecPerKm!).toBeLessThan(500);
  });

  it('no pace before a runner has covered 100 m', () => {
    const t = computeRunnerState(withAid, track(withAid, [[40, 1]]), started, min(1));
    expect(t.paceSecPerKm).toBeNull();
    expect(t.etaFinishMs).toBeNull();
  });
});
