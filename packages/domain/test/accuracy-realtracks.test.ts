/**
 * Accuracy of matching and ETAs on real recorded tracks (see test/support/realtracks.ts: public GPX recordings with
 * the device's own timestamps, read from REALTRACKS_DIR at test time, never committed). Each recording is replayed as
 * a tracker would send it (a fix every 150 s, 10 % dropped, 12 % delivered after 1–3 later pings, seeded), three
 * times with different phases, through the live path (addFix), and the replay's figures are printed per case:
 * distance along the course p50/p95/p99/max against the full-resolution truth, backwards steps, finish delay, the
 * finish and next-aid-station ETA errors against a flat-pace ETA, and how often their ranges held the truth. Where a
 * target is not met, the measured reason is printed beside it (the recording leaves the course; a GPS jump).
 */
import { describe, expect, it } from 'vitest';
import {
  addFix,
  computeRunnerState,
  courseCandidates,
  effortAt,
  flatEtaMs,
  pointAtDistance,
  type Fix,
  type RaceClock,
  type RunnerState,
} from '../src/course';
import { rulerFactors } from '../src/course/geometry';
import {
  otherCase,
  recordingAvailable,
  replay,
  selfCase,
  type RealCase,
  type ReplayFix,
} from './support/realtracks';

declare const console: { log: (...args: unknown[]) => void };

const PING_MS = 150_000;
const MIN = 60_000;
/** A fix farther than this from the course point at its own truth: the recording left the course, or a GPS jump. */
const DEVIATES_M = 50;

const FILES = {
  mansfield: 'calekochenour__mansfield-double-up-course.gpx',
  rosen19: 'Trail365__RosengartenSchlernSkymarathon2019.gpx',
  rosen17: 'Trail365__sky.gpx',
  pardina: 'LuisGC-routes__2021-11-04-Bosque-Pardina-Senor-Pardina-Ballarin.gpx',
  bulnes: 'LuisGC-routes__2022-10-14_Bulnes-Poncebos.gpx',
  cares: 'LuisGC-routes__2022-10-13_Ruta-del-Cares.gpx',
};
const available = Object.values(FILES).every(recordingAvailable);

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? NaN
    : sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
const median = (xs: number[]) =>
  percentile(
    xs.slice().sort((a, b) => a - b),
    50,
  );
const share = (xs: boolean[]) => xs.filter(Boolean).length / Math.max(1, xs.length);

function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const { kx, ky } = rulerFactors(a.lat);
  return Math.hypot((a.lon - b.lon) * kx, (a.lat - b.lat) * ky);
}

function insertSorted(all: Fix[], f: Fix): Fix[] {
  const out = all.slice();
  let k = out.length;
  while (k > 0 && out[k - 1].t > f.t) k--;
  out.splice(k, 0, f);
  return out;
}

/** The distance the state gives for the fix at time t (as in accuracy-matching.test.ts). */
function estimateAt(s: RunnerState, t: number): number {
  const p = s.progress;
  const own = p.find((q) => q.t === t);
  if (own) return own.distanceM;
  if (s.finishMs !== null && p.length >= 2 && t > p[p.length - 2].t) return p[p.length - 1].distanceM;
  let d = 0;
  for (const q of p) {
    if (q.t > t) break;
    d = q.distanceM;
  }
  return d;
}

interface Outcome {
  name: string;
  lengthM: number;
  /** Errors on fixes where the recording follows the course, and on the others (with why). */
  errors: number[];
  deviating: { err: number; devM: number }[];
  worst: {
    err: number;
    t: number;
    truthM: number;
    shownM: number;
    devM: number;
    seed: number;
    /** Another pass of the course near the fix (metres from it, and where along), and the time stood still ±10 min. */
    otherPass: { offsetM: number; alongM: number } | null;
    stillMs: number;
  } | null;
  /** Per replay whose finish is more than one interval off: the truth still to go then, the fix's distance from the
   *  finish point. */
  finishCauses: { delayS: number; toGoM: number; fromFinishM: number; stillS: number }[];
  backwards: number;
  finishDelaysS: number[];
  finishMissedAtFirstPing: number;
  finishFlat: number[];
  finishEta: number[];
  finishInRange: boolean[];
  nextFlat: number[];
  nextEta: number[];
  nextInRange: boolean[];
  /** Finish ranges missed: the truth after the latest / before the earliest. */
  finishLate: number;
  finishEarly: number;
  nextLate: number;
  nextEarly: number;
  /** At each finish ETA: the share of the time still to go / gone that the recording stands still, and its
   *  flat-equivalent moving pace over the rest against its pace so far. */
  stopShareAhead: number[];
  stopShareSoFar: number[];
  paceRatioAhead: number[];
  /** The same up to the next aid station's true passing, at each next-aid-station ETA. */
  nextStopShareAhead: number[];
  nextStopShareSoFar: number[];
  nextPaceRatioAhead: number[];
}

/** A minute in which the recording's truth advances less than this is standing still (a stop, a break). */
const STILL_M_PER_MIN = 15;

/** Time (ms) the recording stands still between a and b, by whole minutes from its start. */
function stillTimer(c: RealCase): (a: number, b: number) => number {
  const n = Math.ceil((c.finishMs - c.startMs) / MIN);
  const cum = [0];
  for (let k = 0; k < n; k++) {
    const t0 = c.startMs + k * MIN;
    const still = c.truthAt(Math.min(c.finishMs, t0 + MIN)) - c.truthAt(t0) < STILL_M_PER_MIN;
    cum.push(cum[k] + (still ? Math.min(MIN, c.finishMs - t0) : 0));
  }
  const at = (t: number) => {
    const x = Math.max(0, Math.min(n, (t - c.startMs) / MIN));
    const k = Math.min(n - 1, Math.floor(x));
    return cum[k] + (cum[k + 1] - cum[k]) * (x - k);
  };
  return (a, b) => at(b) - at(a);
}

function runCase(c: RealCase, seeds: number[]): Outcome {
  const clock: RaceClock = { startMs: c.startMs, stopMs: null };
  const L = c.course.lengthM;
  const o: Outcome = {
    name: c.name,
    lengthM: L,
    errors: [],
    deviating: [],
    worst: null,
    backwards: 0,
    finishDelaysS: [],
    finishMissedAtFirstPing: 0,
    finishFlat: [],
    finishEta: [],
    finishInRange: [],
    nextFlat: [],
    nextEta: [],
    nextInRange: [],
    finishLate: 0,
    finishEarly: 0,
    nextLate: 0,
    nextEarly: 0,
    stopShareAhead: [],
    stopShareSoFar: [],
    paceRatioAhead: [],
    nextStopShareAhead: [],
    nextStopShareSoFar: [],
    nextPaceRatioAhead: [],
    finishCauses: [],
  };
  const still = stillTimer(c);
  const effortL = effortAt(c.course, L);
  for (const seed of seeds) {
    const fixes: ReplayFix[] = replay(c, seed, PING_MS);
    let state = computeRunnerState(c.course, [], clock, c.startMs);
    let sorted: Fix[] = [];
    fixes.forEach((f, k) => {
      const fix: Fix = { t: f.t, lat: f.lat, lon: f.lon };
      const next = addFix(c.course, state, sorted, fix, clock, f.deliveredMs);
      sorted = insertSorted(sorted, fix);
      if (next.distanceM < state.distanceM - 1e-9) o.backwards++;
      state = next;
      if (k % 4 !== 3 || state.status !== 'racing' || f.deliveredMs >= c.finishMs) return;
      const flat = flatEtaMs(state, L);
      if (state.etaFinishEarliestMs !== null && state.etaFinishLatestMs !== null && flat !== null) {
        o.finishFlat.push(Math.abs(flat - c.finishMs) / MIN);
        o.finishEta.push(Math.abs(state.etaFinishMs! - c.finishMs) / MIN);
        o.finishInRange.push(
          c.finishMs >= state.etaFinishEarliestMs && c.finishMs <= state.etaFinishLatestMs,
        );
        if (c.finishMs > state.etaFinishLatestMs) o.finishLate++;
        if (c.finishMs < state.etaFinishEarliestMs) o.finishEarly++;
        const now = f.deliveredMs;
        const stillAhead = still(now, c.finishMs);
        const stillSoFar = still(c.startMs, now);
        o.stopShareAhead.push(stillAhead / (c.finishMs - now));
        o.stopShareSoFar.push(stillSoFar / (now - c.startMs));
        const e = effortAt(c.course, c.truthAt(now));
        if (e > 500 && effortL - e > 500)
          o.paceRatioAhead.push(
            (c.finishMs - now - stillAhead) / (effortL - e) / ((now - c.startMs - stillSoFar) / e),
          );
      }
      const w = state.nextWaypoint;
      if (w && w.etaMs !== null && w.etaEarliestMs != null && w.etaLatestMs != null) {
        const truth = c.timeAt(w.distanceM);
        const flatNext = flatEtaMs(state, w.distanceM);
        // Only where the runner has not truly passed it yet (shown behind: the matching's error, measured above).
        if (flatNext !== null && truth > f.deliveredMs) {
          o.nextFlat.push(Math.abs(flatNext - truth) / MIN);
          o.nextEta.push(Math.abs(w.etaMs - truth) / MIN);
          o.nextInRange.push(truth >= w.etaEarliestMs && truth <= w.etaLatestMs);
          if (truth > w.etaLatestMs) o.nextLate++;
          const now = f.deliveredMs;
          const stillAhead = still(now, truth);
          const stillSoFar = still(c.startMs, now);
          o.nextStopShareAhead.push(stillAhead / (truth - now));
          o.nextStopShareSoFar.push(stillSoFar / (now - c.startMs));
          const e = effortAt(c.course, c.truthAt(now));
          const eW = effortAt(c.course, w.distanceM);
          if (e > 500 && eW - e > 200)
            o.nextPaceRatioAhead.push(
              (truth - now - stillAhead) / (eW - e) / ((now - c.startMs - stillSoFar) / e),
            );
          if (truth < w.etaEarliestMs) o.nextEarly++;
        }
      }
    });
    const full = computeRunnerState(c.course, sorted, clock, c.finishMs + 24 * 3600_000);
    for (const f of fixes) {
      if (f.index < 0) continue;
      const shown = estimateAt(full, f.t);
      const err = Math.abs(shown - f.truthM);
      const devM = c.onCourse[f.index] ? metres(f, pointAtDistance(c.course, f.truthM)) : Infinity;
      if (devM > DEVIATES_M) {
        o.deviating.push({ err, devM });
        continue;
      }
      o.errors.push(err);
      if (o.worst === null || err > o.worst.err) {
        const other = courseCandidates(c.course, f.lat, f.lon, 100).filter(
          (q) => Math.abs(q.alongM - f.truthM) > 150,
        );
        o.worst = {
          err,
          t: f.t,
          truthM: f.truthM,
          shownM: shown,
          devM,
          seed,
          otherPass: other.length === 0 ? null : other.reduce((a, b) => (b.offsetM < a.offsetM ? b : a)),
          stillMs: still(f.t - 10 * MIN, f.t + 10 * MIN),
        };
      }
    }
    o.finishDelaysS.push(full.finishMs === null ? Infinity : (full.finishMs - c.finishMs) / 1000);
    if (full.finishMs !== null && Math.abs(full.finishMs - c.finishMs) > PING_MS) {
      const at = Math.min(full.finishMs, c.finishMs);
      const k = Math.max(0, c.rec.findIndex((p) => p.t > at) - 1);
      o.finishCauses.push({
        delayS: (full.finishMs - c.finishMs) / 1000,
        toGoM: L - c.truthAt(full.finishMs),
        fromFinishM: metres(c.rec[k], pointAtDistance(c.course, L)),
        stillS: still(at, Math.max(full.finishMs, c.finishMs)) / 1000,
      });
    }
    const firstAfter = sorted.find((x) => x.t >= c.finishMs);
    if (firstAfter) {
      const s = computeRunnerState(
        c.course,
        sorted.filter((x) => x.t <= firstAfter.t),
        clock,
        firstAfter.t,
      );
      if (s.status !== 'finished') o.finishMissedAtFirstPing++;
    }
  }
  o.errors.sort((a, b) => a - b);
  return o;
}

describe.skipIf(!available)('matching and ETAs on real recorded tracks, replayed every 150 s', () => {
  const seeds = [1, 2, 3];
  const cases: RealCase[] = available
    ? [
        selfCase('Mansfield Double Up 2017 (17 km)', FILES.mansfield),
        selfCase('Rosengarten Schlern Skymarathon 2019', FILES.rosen19),
        otherCase('Rosengarten 2017 runner, on the 2019 course', FILES.rosen19, FILES.rosen17),
        selfCase('Bosque de Pardina, out and back', FILES.pardina),
        selfCase('Bulnes - Poncebos, loops and zig-zags', FILES.bulnes),
        selfCase('Ruta del Cares, out and back', FILES.cares),
      ]
    : [];
  const outcomes = cases.map((c) => runCase(c, seeds));

  const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : String(x)).padStart(7);
  const ratio = (a: number[], b: number[]) => (median(b) > 0 ? median(a) / median(b) : NaN);
  const lines = [
    'case'.padEnd(46) +
      '  km  fixes     p50     p95     p99     max  back  finish delay s  ETA fin/flat  range  ETA next/flat  range',
  ];
  for (const o of outcomes) {
    const e = o.errors;
    const delays = o.finishDelaysS.map((d) => (Number.isFinite(d) ? d.toFixed(0) : 'none')).join('/');
    lines.push(
      `${o.name.padEnd(46)} ${(o.lengthM / 1000).toFixed(1).padStart(4)} ${String(e.length).padStart(5)} ${f1(percentile(e, 50))} ${f1(percentile(e, 95))} ${f1(percentile(e, 99))} ${f1(e[e.length - 1])} ${String(o.backwards).padStart(5)}  ${delays.padStart(14)}  ` +
        `${median(o.finishEta).toFixed(0)}/${median(o.finishFlat).toFixed(0)} min ${ratio(o.finishEta, o.finishFlat).toFixed(2)}`.padStart(
          13,
        ) +
        ` ${(100 * share(o.finishInRange)).toFixed(0).padStart(4)} %  ` +
        `${median(o.nextEta).toFixed(1)}/${median(o.nextFlat).toFixed(1)} min ${ratio(o.nextEta, o.nextFlat).toFixed(2)}`.padStart(
          14,
        ) +
        ` ${(100 * share(o.nextInRange)).toFixed(0).padStart(4)} %`,
    );
    if (o.deviating.length > 0) {
      const worstDev = o.deviating.reduce((a, b) => (b.err > a.err ? b : a));
      lines.push(
        `    ${o.deviating.length} fixes where the recording is > ${DEVIATES_M} m from the course at its own place (left the course or a GPS jump): worst error there ${worstDev.err.toFixed(0)} m (${Number.isFinite(worstDev.devM) ? `${worstDev.devM.toFixed(0)} m off` : 'another path'})`,
      );
    }
    const missed: string[] = [];
    if (!(percentile(e, 99) <= 30 && e[e.length - 1] <= 100) && o.worst) {
      const w = o.worst;
      const pass = w.otherPass
        ? `the course passes ${w.otherPass.offsetM.toFixed(0)} m from this fix again at ${w.otherPass.alongM.toFixed(0)} m (${Math.abs(w.otherPass.alongM - w.truthM).toFixed(0)} m along from the truth)`
        : 'no other pass of the course within 100 m';
      missed.push(
        `distance target missed where the recording follows the course (worst: seed ${w.seed} at ${new Date(w.t).toISOString()}, truth ${w.truthM.toFixed(0)} m, shown ${w.shownM.toFixed(0)} m, the fix ${w.devM.toFixed(0)} m from the course there: a matching error, not a GPS jump; ${pass}; the recording stands still ${(w.stillMs / MIN).toFixed(0)} of the 20 min around it)`,
      );
    }
    if (o.finishDelaysS.some((d) => !(Math.abs(d) <= PING_MS / 1000)))
      missed.push(
        `a finish more than one interval off the end of the recording: ${o.finishCauses
          .map(
            (x) =>
              `${x.delayS.toFixed(0)} s, the recording then ${x.toGoM.toFixed(0)} m along the course from the finish and ${x.fromFinishM.toFixed(0)} m from the finish point in a straight line, standing still ${x.stillS.toFixed(0)} s of the ${Math.abs(x.delayS).toFixed(0)} s between`,
          )
          .join('; ')}`,
      );
    const pc = (x: number) => `${(100 * x).toFixed(0)} %`;
    const sorted = (xs: number[]) => xs.slice().sort((a, b) => a - b);
    const why = (
      late: number,
      early: number,
      n: number,
      ahead: number[],
      soFar: number[],
      pace: number[],
      upTo: string,
    ) =>
      `truth after the range ${pc(late / Math.max(1, n))}, before it ${pc(early / Math.max(1, n))}; ` +
      `the recording stands still a median ${pc(median(ahead))} of the time ${upTo} ` +
      `(p90 ${pc(percentile(sorted(ahead), 90))}; ${pc(median(soFar))} of the time so far), ` +
      `its moving pace there a median ×${median(pace).toFixed(2)} of its pace so far ` +
      `(p10–p90 ×${percentile(sorted(pace), 10).toFixed(2)}–${percentile(sorted(pace), 90).toFixed(2)}, flat-equivalent)`;
    if (!(ratio(o.finishEta, o.finishFlat) <= 0.5) || !(share(o.finishInRange) >= 0.8))
      missed.push(
        `finish ETA target missed: ${why(o.finishLate, o.finishEarly, o.finishInRange.length, o.stopShareAhead, o.stopShareSoFar, o.paceRatioAhead, 'still to go')}`,
      );
    if (!(ratio(o.nextEta, o.nextFlat) <= 0.5) || !(share(o.nextInRange) >= 0.8))
      missed.push(
        `next-aid-station ETA target missed: ${why(o.nextLate, o.nextEarly, o.nextInRange.length, o.nextStopShareAhead, o.nextStopShareSoFar, o.nextPaceRatioAhead, 'up to the next aid station')}`,
      );
    for (const m of missed) lines.push(`    NOT MET: ${m}`);
  }
  console.log(
    `\nReal recordings, replayed every 150 s (10 % dropped, 12 % late), 3 phases each\n${lines.join('\n')}\n`,
  );

  it('reads every recording', () => {
    expect(cases.length).toBe(6);
    for (const c of cases) expect(c.course.lengthM).toBeGreaterThan(5000);
  });

  it.each(outcomes.map((o) => [o.name, o] as const))('%s: progress never goes backwards', (_n, o) => {
    expect(o.errors.length).toBeGreaterThan(150);
    expect(o.backwards).toBe(0);
  });

  // Where the targets hold today (the other cases print what is missed and why, above).
  it.each([0, 1].map((k) => [outcomes[k]?.name, outcomes[k]] as const))(
    '%s: p99 ≤ 30 m and worst ≤ 100 m along the course, every finish within one interval',
    (_n, o) => {
      expect(percentile(o.errors, 99)).toBeLessThanOrEqual(30);
      expect(o.errors[o.errors.length - 1]).toBeLessThanOrEqual(100);
      for (const d of o.finishDelaysS) expect(Math.abs(d)).toBeLessThanOrEqual(PING_MS / 1000);
    },
  );

  it('a fast descent is taken at once, not held back (Mansfield: 2.8 m/s down after 0.8 m/s up)', () => {
    // Before, a fix 418 m on in 150 s was held back until a later one: the runner shown 425 m behind.
    expect(outcomes[0].errors[outcomes[0].errors.length - 1]).toBeLessThanOrEqual(30);
  });

  it('the second Rosengarten recording: p99 ≤ 30 m where it follows the course, every finish within one interval', () => {
    const o = outcomes[2];
    expect(percentile(o.errors, 99)).toBeLessThanOrEqual(30);
    for (const d of o.finishDelaysS) expect(Math.abs(d)).toBeLessThanOrEqual(PING_MS / 1000);
  });

  it('a hiker standing still a fifth of the time: the finish range holds the truth ≥ 80 % (Ruta del Cares)', () => {
    // Before stops away from aid stations and the runner's persistent pace spread counted: 67 %.
    expect(share(outcomes[5].finishInRange)).toBeGreaterThanOrEqual(0.8);
  });

  it('a hiker standing still half the time so far: next-aid ETA at most half the flat error, its range holding ≥ 80 % (Bulnes)', () => {
    // Before: a median 46.7 min off against 34.4 min flat, the range holding the truth 5 % of the time.
    const o = outcomes[4];
    expect(ratio(o.nextEta, o.nextFlat)).toBeLessThanOrEqual(0.5);
    expect(share(o.nextInRange)).toBeGreaterThanOrEqual(0.8);
  });
});
