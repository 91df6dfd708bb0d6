/**
 * Terrain-aware ETAs: when a runner is expected at a distance along the course, from their own pace so far adjusted
 * for the grade of every section still ahead, their pace trend (fatigue), and the time they spend at aid stations.
 *
 * Grade model: Minetti AE, Moia C, Roi GS, Susta D, Ferretti G. "Energy cost of walking and running at extreme
 * uphill and downhill slopes." J Appl Physiol 93: 1039–1046, 2002. The energy cost of running per kg and metre at
 * grade i (rise over run, measured −0.45…+0.45) is
 *   C(i) = 155.4 i⁵ − 30.4 i⁴ − 43.3 i³ + 46.3 i² + 19.5 i + 3.6  J/(kg·m),
 * so a metre at grade i takes C(i) / C(0) "flat metres" of effort. Runners cannot turn the whole saving of a steep
 * descent into speed (footing, braking), so a metre never counts for less than MIN_EFFORT_FACTOR flat metres.
 * A course without elevation is flat: the same model on plain distance.
 *
 * The runner's pace is measured in seconds per flat-equivalent metre over their moving time (stops excluded), in
 * sections of about a kilometre; a weighted regression of log pace against time gives the current pace and its
 * trend, extrapolated over the time still to run. Stops at aid stations already passed give the expected stop at
 * each one still ahead; time stood still elsewhere (breaks), per second moving so far, gives the stops expected over
 * the moving time ahead (none for the earliest, twice as many for the latest). The range comes from the spread of
 * the section paces about the trend, and from how far the runner's pace strays from it over stretches of some 3 km
 * (what does not average out: a long technical stretch, a bad patch), carried whole into the time ahead.
 */
import { pointAtDistance } from './geometry';
import { bracketIndex } from '../sorted';
import type { PreparedCourse, ProgressPoint, RunnerState } from './types';

/** Minetti et al. (2002) energy cost of running at grade i, J/(kg·m). */
export function minettiCost(grade: number): number {
  const i = Math.max(-0.45, Math.min(0.45, grade));
  return ((((155.4 * i - 30.4) * i - 43.3) * i + 46.3) * i + 19.5) * i + 3.6;
}

/** Flat metres of effort per metre at this grade: C(i) / C(0), at least MIN_EFFORT_FACTOR. */
export function effortFactor(grade: number): number {
  return Math.max(MIN_EFFORT_FACTOR, minettiCost(grade) / 3.6);
}

/** A metre downhill never counts for less than this many flat metres (the descent's cost saving is not all speed). */
const MIN_EFFORT_FACTOR = 0.75;
/** The course is resampled every this many metres for its grade (smooths GPX elevation noise). */
const SAMPLE_M = 50;
/** A step between progress points with less advance than this is standing still. */
const STOPPED_M = 30;
/** Pace sections are at least this much effort (flat metres)… */
const SECTION_EFFORT_M = 800;
/** …and a stop within this distance of a waypoint is time at that aid station. */
const AID_RADIUS_M = 250;
/**
 * How much runners' fades differ (σ of the trend, log pace per hour, about TREND_USUAL): a measured trend is shrunk
 * toward the usual by its standard error against this. 5 %/h: a runner slowing from 6 to 8 min/km over six hours.
 */
const TREND_PRIOR = 0.05;
/**
 * The fade a runner is assumed to have before their own is measured (log pace per hour): 2 %/h. Runners of long
 * races slow down as they go (positive splits are the rule in trail and ultra races: a 100-miler's second half some
 * 30 % slower over about 15 hours, a 50 km's some 10 % over 3), and none on a flat trend finished early.
 */
const TREND_USUAL = 0.02;
/** Pace trend bounds, per hour of log pace: from a slight speed-up to a strong fade. */
const TREND_MIN = -0.05;
const TREND_MAX = 0.3;
/** Spread of section paces assumed until the runner's own is measured (log pace), and its floor. */
const DEFAULT_SPREAD = 0.08;
const MIN_SPREAD = 0.03;
/** Section paces vary with this share independent from section to section; the rest is the runner's level. */
const INDEPENDENT_SHARE = 0.5;
/**
 * Relative error of the grade model itself for a runner (runners differ in how much a climb slows them and how fast
 * they dare descend), independent of how far ahead.
 */
const MODEL_SPREAD = 0.07;
/** Sections to a stretch for the runner's persistent pace spread (PaceModel.blockSpread): some 3 km of effort. */
const BLOCK_SECTIONS = 4;
/** The range covers about 90 % of outcomes (z of the normal). */
const RANGE_Z = 1.645;
/** Whatever the spread, a range is at least this wide each side. */
const MIN_HALF_RANGE_MS = 60_000;

const effortCache = new WeakMap<PreparedCourse, Float64Array>();

/** Cumulative effort (flat metres) at every SAMPLE_M along the course, computed once per course. */
function effortTable(course: PreparedCourse): Float64Array {
  const cached = effortCache.get(course);
  if (cached) return cached;
  const n = Math.max(1, Math.ceil(course.lengthM / SAMPLE_M));
  const table = new Float64Array(n + 1);
  let prevEle = course.hasElevation ? pointAtDistance(course, 0).ele : null;
  for (let k = 1; k <= n; k++) {
    const d = Math.min(course.lengthM, k * SAMPLE_M);
    const len = d - (k - 1) * SAMPLE_M;
    let factor = 1;
    if (course.hasElevation) {
      const ele = pointAtDistance(course, d).ele;
      if (ele !== null && prevEle !== null && len > 0) factor = effortFactor((ele - prevEle) / len);
      prevEle = ele;
    }
    table[k] = table[k - 1] + len * factor;
  }
  effortCache.set(course, table);
  return table;
}

/** Effort (flat metres) from the start to distance d. */
export function effortAt(course: PreparedCourse, distanceM: number): number {
  return effortIn(effortTable(course), course.lengthM, distanceM);
}

/** Effort along a course and back: `at(d)` flat metres from the start to d, `distance(e)` the distance where it is e. */
export interface EffortScale {
  at: (distanceM: number) => number;
  distance: (effort: number) => number;
}

const scaleCache = new WeakMap<PreparedCourse, EffortScale>();

/** The course's effort scale (for the matcher: speeds in flat metres per second hold on climbs and descents). */
export function effortScale(course: PreparedCourse): EffortScale {
  const hit = scaleCache.get(course);
  if (hit) return hit;
  const table = effortTable(course);
  const L = course.lengthM;
  const scale: EffortScale = course.hasElevation
    ? { at: (d) => effortIn(table, L, d), distance: (e) => distanceForEffort(course, e) }
    : { at: (d) => Math.max(0, Math.min(L, d)), distance: (e) => Math.max(0, Math.min(L, e)) };
  scaleCache.set(course, scale);
  return scale;
}

/** effortAt with the course's table at hand (a loop over many points looks the table up once). */
function effortIn(table: Float64Array, lengthM: number, distanceM: number): number {
  const x = Math.max(0, Math.min(lengthM, distanceM)) / SAMPLE_M;
  const k = Math.min(Math.floor(x), table.length - 2);
  if (k < 0) return 0;
  return table[k] + (table[k + 1] - table[k]) * (x - k);
}

/** The runner's pace model, from their progress (cached per progress array: progress only ever grows by copy). */
export interface PaceModel {
  /** Seconds per flat metre now (at the last progress point). */
  paceSPerM: number;
  /** Log-pace change per second ahead (fatigue > 0). */
  trendPerS: number;
  /** How far the trend may be off (σ of log pace per hour): its uncertainty widens a range that runs hours ahead. */
  trendSpreadPerH: number;
  /** How far ahead the trend is carried (s): the time the runner's progress spans, at least an hour. */
  trendHorizonS: number;
  /** Spread (σ) of section log paces about the trend. */
  spread: number;
  /** Expected stop at each aid station still ahead (ms), and the longest seen. */
  aidStopMs: number;
  aidStopMaxMs: number;
  /**
   * Time stood still away from any aid station (a break, a photo, a wrong turn retraced) per second moving, as
   * measured so far: the same share of the moving time still ahead is expected to be spent so.
   */
  otherStopPerMovingS: number;
  /**
   * Spread (σ, log pace) of the runner's pace about the trend over stretches of BLOCK_SECTIONS sections: what does not
   * average out over kilometres (a long technical stretch, a bad patch), carried whole into the time ahead. 0 until
   * three stretches are measured.
   */
  blockSpread: number;
  /** Moving sections measured. */
  sections: number;
  last: ProgressPoint;
}

const modelCache = new WeakMap<ProgressPoint[], { course: PreparedCourse; model: PaceModel | null }>();

/** Pace model of a runner on the course; null before a kilometre or so of moving progress. */
export function paceModel(
  course: PreparedCourse,
  progress: ProgressPoint[],
  startMs: number,
): PaceModel | null {
  const hit = modelCache.get(progress);
  if (hit && hit.course === course) return hit.model;
  const model = buildModel(course, progress, startMs);
  modelCache.set(progress, { course, model });
  return model;
}

/**
 * The pass over a runner's progress that the model is made from: moving sections (time, log pace, effort) and stops
 * near aid stations. Resumable: a runner's progress only grows, and every progress array of a runner (each fix makes
 * a copy; replay reads prefixes) shares its point objects, so a point object stands for the one prefix that ends at
 * it. A fold kept every `FOLD_STRIDE` points, keyed by the point it ends at, serves every longer array through that
 * point from where it stopped — a replay jump is O(stride) per runner, not O(race), whichever branch of the runner's
 * timeline (a late fix refolds from its place in time: new points after it) the moment falls on.
 */
interface Fold {
  /** Points folded. */
  len: number;
  /**
   * Section arrays: the first `secLen` entries are this fold's. A kept fold shares the arrays of the pass that kept
   * it (that pass only appends), so keeping one costs no copy; a resumed fold copies them.
   */
  secLen: number;
  secT: number[];
  secPace: number[];
  secW: number[];
  accT: number;
  accE: number;
  accMidT: number;
  prev: ProgressPoint;
  prevE: number;
  stopAt: Map<number, number>;
  /** Time stood still away from aid stations, and all moving time (ms). */
  otherStopT: number;
  movingT: number;
}

/** A kept fold every this many points: a question folds at most FOLD_STRIDE - 1 points past the nearest one. */
const FOLD_STRIDE = 32;
/** The stops of a kept fold without any (most): one shared map, never written (a resumed fold copies it). */
const NO_STOPS: Map<number, number> = new Map();

/** Kept folds by the progress point they end at (garbage with the point). */
const foldCache = new WeakMap<ProgressPoint, { course: PreparedCourse; startMs: number; fold: Fold }>();

function keptFold(f: Fold): Fold {
  return { ...f, secLen: f.secT.length, stopAt: f.stopAt.size > 0 ? new Map(f.stopAt) : NO_STOPS };
}

function resumedFold(f: Fold): Fold {
  return {
    ...f,
    secT: f.secT.slice(0, f.secLen),
    secPace: f.secPace.slice(0, f.secLen),
    secW: f.secW.slice(0, f.secLen),
    stopAt: new Map(f.stopAt),
  };
}

function foldTo(course: PreparedCourse, progress: ProgressPoint[], startMs: number): Fold {
  let f: Fold | null = null;
  // The longest kept fold of this very prefix.
  for (let m = Math.floor(progress.length / FOLD_STRIDE); m > 0 && f === null; m--) {
    const kept = foldCache.get(progress[m * FOLD_STRIDE - 1]);
    if (kept && kept.course === course && kept.startMs === startMs && kept.fold.len === m * FOLD_STRIDE)
      f = resumedFold(kept.fold);
  }
  f ??= {
    len: 0,
    secLen: 0,
    secT: [],
    secPace: [],
    secW: [],
    accT: 0,
    accE: 0,
    accMidT: 0,
    prev: { t: startMs, distanceM: 0 },
    prevE: 0,
    stopAt: new Map(),
    otherStopT: 0,
    movingT: 0,
  };
  const table = effortTable(course);
  for (let i = f.len; i < progress.length; i++) {
    const q = progress[i];
    const dt = q.t - f.prev.t;
    const e = effortIn(table, course.lengthM, q.distanceM);
    if (dt > 0) {
      if (q.distanceM - f.prev.distanceM < STOPPED_M) {
        const w = nearWaypoint(course, q.distanceM);
        if (w !== null) f.stopAt.set(w, (f.stopAt.get(w) ?? 0) + dt);
        // (Standing before the first move is a late start, not a break.)
        else if (f.movingT > 0) f.otherStopT += dt;
      } else {
        f.movingT += dt;
        f.accT += dt;
        f.accE += e - f.prevE;
        f.accMidT += dt * ((q.t + f.prev.t) / 2);
        if (f.accE >= SECTION_EFFORT_M) {
          f.secT.push(f.accMidT / f.accT);
          f.secPace.push(Math.log(f.accT / 1000 / f.accE));
          f.secW.push(f.accE);
          f.accT = 0;
          f.accE = 0;
          f.accMidT = 0;
        }
      }
    }
    f.prev = q;
    f.prevE = e;
    f.len = i + 1;
    if (f.len % FOLD_STRIDE === 0) {
      const kept = foldCache.get(q);
      if (!kept || kept.course !== course || kept.startMs !== startMs)
        foldCache.set(q, { course, startMs, fold: keptFold(f) });
    }
  }
  f.secLen = f.secT.length;
  return f;
}

function buildModel(course: PreparedCourse, progress: ProgressPoint[], startMs: number): PaceModel | null {
  if (progress.length === 0) return null;
  // The fold's section arrays are its own (a resumed copy or new): the unfinished section is appended to them.
  const f = foldTo(course, progress, startMs);
  const { secT, secPace, secW } = f;
  const { accT, accE, accMidT, stopAt } = f;
  let aidStopMs = 0;
  let aidStopMaxMs = 0;
  // The unfinished last section counts if it is at least half a section.
  if (accE >= SECTION_EFFORT_M / 2) {
    secT.push(accMidT / accT);
    secPace.push(Math.log(accT / 1000 / accE));
    secW.push(accE);
  }
  if (secPace.length === 0) return null;
  const last = progress[progress.length - 1];
  const passed = course.waypoints.filter((w) => w.distanceM <= last.distanceM + AID_RADIUS_M).length;
  for (const ms of stopAt.values()) {
    aidStopMs += ms;
    aidStopMaxMs = Math.max(aidStopMaxMs, ms);
  }
  aidStopMs = passed > 0 ? aidStopMs / passed : 0;

  // Weighted least squares of log pace on time (hours), the trend only with three sections or more.
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (let k = 0; k < secPace.length; k++) {
    sw += secW[k];
    sx += secW[k] * secT[k];
    sy += secW[k] * secPace[k];
  }
  const mx = sx / sw;
  const my = sy / sw;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < secPace.length; k++) {
    const dx = (secT[k] - mx) / 3_600_000;
    sxx += secW[k] * dx * dx;
    sxy += secW[k] * dx * (secPace[k] - my);
  }
  const n = secPace.length;
  const fitted = n >= 3 && sxx > 0 ? sxy / sxx : 0;
  // The trend as measured, shrunk toward the usual fade by how sure the measurement is (its standard error against
  // the spread of trends across runners, TREND_PRIOR): in the first hour a few sections' noise — a climb the grade model
  // misjudges, a crowded start — reads as a strong fade, and extrapolated over the hours still to run it put the
  // finish hours off (accuracy-eta.test.ts: a median 90 minutes in the first quarter of the race). Later the
  // sections span hours and the trend measured stands.
  let residual = 0;
  for (let k = 0; k < n; k++) {
    const fit = my + fitted * ((secT[k] - mx) / 3_600_000);
    residual += secW[k] * (secPace[k] - fit) ** 2;
  }
  const meanW = sw / n;
  const slopeVar =
    n >= 3 && sxx > 0 ? Math.max(MIN_SPREAD ** 2, (residual / sw) * (n / (n - 2))) / (sxx / meanW) : Infinity;
  const keep = TREND_PRIOR ** 2 / (TREND_PRIOR ** 2 + slopeVar);
  const trendPerH = Math.max(TREND_MIN, Math.min(TREND_MAX, TREND_USUAL + (fitted - TREND_USUAL) * keep));
  const logPaceNow = my + trendPerH * ((last.t - mx) / 3_600_000);
  let ss = 0;
  for (let k = 0; k < n; k++) {
    const fit = my + trendPerH * ((secT[k] - mx) / 3_600_000);
    ss += secW[k] * (secPace[k] - fit) ** 2;
  }
  const measured = n >= 3 ? Math.sqrt(ss / sw) * Math.sqrt(n / (n - 1)) : DEFAULT_SPREAD;
  let bss = 0;
  let bw = 0;
  let blocks = 0;
  for (let k0 = 0; k0 + BLOCK_SECTIONS <= n; k0 += BLOCK_SECTIONS) {
    let w = 0;
    let r = 0;
    for (let k = k0; k < k0 + BLOCK_SECTIONS; k++) {
      w += secW[k];
      r += secW[k] * (secPace[k] - (my + trendPerH * ((secT[k] - mx) / 3_600_000)));
    }
    bss += w * (r / w) ** 2;
    bw += w;
    blocks++;
  }
  const blockSpread = blocks >= 3 ? Math.sqrt(bss / bw) * Math.sqrt(blocks / (blocks - 1)) : 0;
  return {
    paceSPerM: Math.exp(logPaceNow),
    trendPerS: trendPerH / 3600,
    // What the trend may still be off by (σ, per hour): the prior's spread where nothing is measured yet.
    trendHorizonS: Math.max(3600, (last.t - startMs) / 1000),
    trendSpreadPerH: Number.isFinite(slopeVar)
      ? Math.sqrt(1 / (1 / TREND_PRIOR ** 2 + 1 / slopeVar))
      : TREND_PRIOR,
    spread: Math.max(MIN_SPREAD, measured),
    aidStopMs,
    aidStopMaxMs,
    otherStopPerMovingS: f.movingT > 0 ? f.otherStopT / f.movingT : 0,
    blockSpread,
    sections: n,
    last,
  };
}

function nearWaypoint(course: PreparedCourse, d: number): number | null {
  for (const w of course.waypoints) if (Math.abs(w.distanceM - d) <= AID_RADIUS_M) return w.distanceM;
  return null;
}

/**
 * Seconds to cover `effort` flat metres from pace p (s/m) drifting by `trend` per second (∫ dt / p(t) = effort) for
 * at most `horizonS` seconds, then at the pace reached: a trend is not carried further ahead than the time it was
 * measured over (an hour's fade carried ten hours ahead put a back-of-the-pack finish twice as far as it was).
 */
function secondsFor(effort: number, p: number, trend: number, horizonS: number): number {
  if (effort <= 0) return 0;
  const within = effortInTrend(horizonS, p, trend);
  if (effort > within) return horizonS + (effort - within) * p * Math.exp(trend * horizonS);
  return secondsOnTrend(effort, p, trend);
}

function secondsOnTrend(effort: number, p: number, trend: number): number {
  if (Math.abs(trend) < 1e-12) return effort * p;
  const x = trend * p * effort;
  // A fade so strong the distance is never covered on the trend: fall back to the pace it would have reached.
  if (x >= 0.95) return effort * p * (1 + trend * effort * p);
  return -Math.log(1 - x) / trend;
}

export interface EtaRange {
  etaMs: number;
  earliestMs: number;
  latestMs: number;
}

/**
 * When the runner with this progress is expected at `distanceM` (epoch ms), with a range; null before their pace is
 * known or for a distance already reached. Aid-station stops count for every waypoint strictly between.
 */
export function etaRange(
  course: PreparedCourse,
  progress: ProgressPoint[],
  startMs: number,
  distanceM: number,
): EtaRange | null {
  const m = paceModel(course, progress, startMs);
  if (m === null || distanceM <= m.last.distanceM) return null;
  const effort = effortAt(course, distanceM) - effortAt(course, m.last.distanceM);
  const moving = secondsFor(effort, m.paceSPerM, m.trendPerS, m.trendHorizonS) * 1000;
  let aids = 0;
  for (const w of course.waypoints)
    if (w.distanceM > m.last.distanceM + 1 && w.distanceM < distanceM - 1) aids++;
  // Stops away from aid stations at the runner's own rate so far: none assumed for the earliest, twice as many for
  // the latest (breaks come in bursts: on the real recordings in accuracy-realtracks.test.ts a hiker standing 13 % of
  // the time so far stands up to 31 % of the rest, p90).
  const otherStops = moving * m.otherStopPerMovingS;
  const stops = aids * m.aidStopMs + otherStops;
  // σ of the mean log pace over the sections ahead: independent section noise averages out, the level does not.
  const ahead = Math.max(1, effort / SECTION_EFFORT_M);
  // The trend's own uncertainty: over the hours ahead a log-pace error growing with time, half of it on average.
  const trendSigma = (m.trendSpreadPerH * moving) / 3_600_000 / 2;
  const sigma = Math.hypot(
    m.spread * Math.sqrt(INDEPENDENT_SHARE / ahead + (1 - INDEPENDENT_SHARE) / Math.max(1, m.sections)),
    MODEL_SPREAD,
    trendSigma,
    m.blockSpread,
  );
  const half = RANGE_Z * sigma;
  const early = Math.max(MIN_HALF_RANGE_MS, moving * (1 - Math.exp(-half)));
  const late = Math.max(MIN_HALF_RANGE_MS, moving * (Math.exp(half) - 1));
  const eta = m.last.t + moving + stops;
  return {
    etaMs: Math.round(eta),
    earliestMs: Math.round(eta - early - stops),
    latestMs: Math.round(eta + late + aids * Math.max(0, m.aidStopMaxMs - m.aidStopMs) + otherStops),
  };
}

/**
 * The distance the runner is expected to have reached at `atMs` on the same model (moving all the time since the
 * last progress), with the range of the earliest/latest paces (`z` σ of the pace either side: RANGE_Z, about 90 %,
 * unless asked otherwise); null before the pace is known.
 */
export function distanceAt(
  course: PreparedCourse,
  progress: ProgressPoint[],
  startMs: number,
  atMs: number,
  z: number = RANGE_Z,
): { distanceM: number; minM: number; maxM: number } | null {
  const m = paceModel(course, progress, startMs);
  if (m === null) return null;
  const dt = Math.max(0, atMs - m.last.t) / 1000;
  const e0 = effortAt(course, m.last.distanceM);
  const ahead = Math.max(1, (dt / m.paceSPerM / SECTION_EFFORT_M) | 0);
  const sigma = Math.hypot(
    m.spread * Math.sqrt(INDEPENDENT_SHARE / ahead + (1 - INDEPENDENT_SHARE) / Math.max(1, m.sections)),
    MODEL_SPREAD,
  );
  const at = (pace: number) =>
    distanceForEffort(course, e0 + effortInTime(dt, pace, m.trendPerS, m.trendHorizonS));
  return {
    distanceM: at(m.paceSPerM),
    minM: at(m.paceSPerM * Math.exp(z * sigma)),
    maxM: at(m.paceSPerM * Math.exp(-z * sigma)),
  };
}

/** Flat metres covered in `seconds` from pace p drifting by `trend` per second for at most `horizonS` (secondsFor). */
function effortInTime(seconds: number, p: number, trend: number, horizonS: number): number {
  if (seconds <= horizonS) return effortInTrend(seconds, p, trend);
  return effortInTrend(horizonS, p, trend) + (seconds - horizonS) / (p * Math.exp(trend * horizonS));
}

function effortInTrend(seconds: number, p: number, trend: number): number {
  if (Math.abs(trend) < 1e-12) return seconds / p;
  return (1 - Math.exp(-trend * seconds)) / (trend * p);
}

/** The distance along the course at which the cumulative effort reaches `effort` (clamped to the course). */
function distanceForEffort(course: PreparedCourse, effort: number): number {
  const table = effortTable(course);
  if (effort <= 0) return 0;
  if (effort >= table[table.length - 1]) return course.lengthM;
  const lo = bracketIndex(table, effort);
  const hi = lo + 1;
  const f = (effort - table[lo]) / (table[hi] - table[lo]);
  return Math.min(course.lengthM, (lo + f) * SAMPLE_M);
}

/**
 * The flat-pace ETA (the matcher's ETA before terrain: half average, half recent pace, from the last progress), for
 * comparison and for callers without a course. Null without a pace.
 */
export function flatEtaMs(
  s: Pick<RunnerState, 'progress' | 'paceSecPerKm' | 'recentPaceSecPerKm'>,
  distanceM: number,
): number | null {
  const p = s.progress;
  if (p.length === 0) return null;
  const a = s.paceSecPerKm;
  const r = s.recentPaceSecPerKm;
  const pace = a !== null && r !== null ? (a + r) / 2 : (a ?? r);
  if (pace === null) return null;
  const last = p[p.length - 1];
  // ms per metre is seconds per kilometre.
  return Math.round(last.t + Math.max(0, distanceM - last.distanceM) * pace);
}
