/**
 * Runner race state: places each fix at a distance along the course and derives status, pace and ETAs.
 *
 * Matching one fix (see `applyFix`, `decideNewest` and `hmm.ts`):
 * 1. All passes of the course within offCourseMeters of the fix come from the spatial index (`courseCandidates`).
 *    None: the runner is off-course and does not advance.
 * 2. Reach: from the anchor (where the runner was before the window of recent fixes), a pass is weighed if its
 *    distance lies in [d0 - BACK_TOLERANCE_M, d0 + maxSpeed * (t - t0) + FORWARD_TOLERANCE_M].
 * 3. The fix joins the window of the last WINDOW_FIXES fixes, and the most plausible sequence of passes for the
 *    whole window is decoded (Viterbi): Gaussian GPS error on each offset, and for each step a progress that is
 *    physically possible in the time between the fixes, weighed against the runner's speed. The newest fix takes its
 *    pass from that sequence, so an ambiguous earlier fix (switchbacks 40 m apart, a lollipop stem) is re-decided
 *    by the fixes after it instead of pinning the runner to the wrong leg.
 *    Speeds are flat-equivalent (effort: climbs and descents weighed), so a fast descent is not taken for a jump.
 * 4. A newest pass far beyond what the runner's own speed allows is held back (`pendingJump`) until a later fix
 *    continues from it; a single wild fix never moves anyone far ahead.
 * 5. A decided fix's place is its expected place on the decoded passes weighed with the runner's motion (`smoothed`:
 *    between the previous progress and the next fix, or carried on at the moving speed), where the two agree.
 * Progress never goes backwards (the maximum is kept), so GPS noise around a stopped runner does not undo progress.
 */
import { courseCandidates, rulerFactors, type CourseCandidate } from './geometry';
import { effortScale, etaRange, flatEtaMs, type EffortScale } from './eta';
import { BACK_TOLERANCE_M, decodeWindow, FORWARD_TOLERANCE_M } from './hmm';
import {
  DEFAULT_MATCH_OPTIONS,
  type Fix,
  type MatchOptions,
  type PreparedCourse,
  type CruiseFold,
  type ProgressPoint,
  type RaceClock,
  type RunnerState,
} from './types';

/** Plain metres (the effort scale of a flat course). */
const PLAIN: EffortScale = { at: (d) => d, distance: (e) => e };
/** How far back the moving speed looks. */
const CRUISE_WINDOW_MS = 60 * 60_000;
/** Speed assumed before the runner's own is known (a 5:30 /km runner). */
const DEFAULT_SPEED_MPS = 3;
/** Steps slower than this are stops, left out of the moving speed. */
const MOVING_MIN_MPS = 0.4;
/** The moving speed is known from this many moving steps, and looks at most this many back. */
const MOVING_MIN_STEPS = 2;
const MOVING_MAX_STEPS = 6;
/** Smoothing a fix's place with the runner's motion (`smoothed`): GPS along the course, the motion's spread. */
const FIX_ALONG_SIGMA_M = 12;
const SMOOTH_SIGMA_M = 10;
const SMOOTH_INTERPOLATED_FRACTION = 0.03;
const SMOOTH_PREDICTED_FRACTION = 0.06;
const SMOOTH_GATE = 2.5;
/** ...from a progress point at most this old (seconds). */
const SMOOTH_MAX_S = 330;
/** Fixes decoded together (the newest and the ones before it): 15 minutes of 2.5-minute pings. */
const WINDOW_FIXES = 6;
/** Passes weighed per fix: the closest few, none more than this farther from the fix than the closest. */
const MAX_WINDOW_CANDIDATES = 6;
const MAX_EXTRA_OFFSET_M = 75;
/** The newest fix waits for the next one when another place for it costs less than this much more (nats). */
const AMBIGUOUS_MARGIN = 2.5;
/**
 * At most this many fixes wait for a later one to decide them: the newest when ambiguous, and the one before it too
 * when it is still about as ambiguous (less than MARGIN_BEFORE nats between its places).
 */
const MAX_DEFERRED = 2;
const MARGIN_BEFORE = 1.5;
/** Within this of the course length (2.5 σ of GPS noise), the course is covered. */
const FINISH_TOLERANCE_M = 25;
/** A fix this close to the finish point, with FINISH_MIN_FRACTION covered, is a finish. */
const FINISH_RADIUS_M = 50;
const FINISH_MIN_FRACTION = 0.95;
/** A fix less than this past the finish is a runner standing at the finish. */
const FINISH_STOPPED_M = 30;
/** Recent pace looks back this far. */
const RECENT_WINDOW_MS = 20 * 60_000;
/** ...but over at least this span, so one noisy ping does not make the pace. */
const RECENT_MIN_SPAN_MS = 5 * 60_000;
/** Below this much progress a pace is noise. */
const MIN_PACE_DISTANCE_M = 100;

export function resolveOptions(opts?: Partial<MatchOptions>): MatchOptions {
  return { ...DEFAULT_MATCH_OPTIONS, ...stripUndefined(opts ?? {}) };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function emptyRunnerState(): RunnerState {
  return {
    distanceM: 0,
    percent: 0,
    status: 'not-started',
    finishMs: null,
    lastFix: null,
    lastOnCourseMs: null,
    elapsedMs: null,
    paceSecPerKm: null,
    recentPaceSecPerKm: null,
    etaFinishMs: null,
    etaFinishEarliestMs: null,
    etaFinishLatestMs: null,
    nextWaypoint: null,
    progress: [],
    isOffCourse: false,
    pendingJump: null,
  };
}

/** Fixes by time; exact duplicates (same time) keep the first delivered. */
export function sortFixes(fixes: readonly Fix[]): Fix[] {
  const valid = fixes.filter((f) => Number.isFinite(f.t) && Number.isFinite(f.lat) && Number.isFinite(f.lon));
  const sorted = valid.map((f, k) => ({ f, k })).sort((a, b) => a.f.t - b.f.t || a.k - b.k);
  const out: Fix[] = [];
  for (const { f } of sorted) if (out.length === 0 || out[out.length - 1].t !== f.t) out.push(f);
  return out;
}

export function computeRunnerState(
  course: PreparedCourse,
  fixes: Fix[],
  clock: RaceClock,
  nowMs: number,
  opts?: Partial<MatchOptions>,
): RunnerState {
  const o = resolveOptions(opts);
  let state = emptyRunnerState();
  for (const f of sortFixes(fixes)) state = applyFix(course, state, f, clock, o);
  return refreshRunnerState(course, state, clock, nowMs, opts);
}

/**
 * Adds one fix. `allFixesSorted` is the runner's fixes in time order (with or without `fix`); it is only read when
 * the fix is late (not newer than the last one), in which case the state is recomputed in time order. `state` must
 * come from the same course, clock and options: when the race clock starts or stops, recompute every runner.
 */
export function addFix(
  course: PreparedCourse,
  state: RunnerState,
  allFixesSorted: Fix[],
  fix: Fix,
  clock: RaceClock,
  nowMs: number,
  opts?: Partial<MatchOptions>,
): RunnerState {
  const o = resolveOptions(opts);
  if (state.lastFix === null || fix.t > state.lastFix.t) {
    return refreshRunnerState(course, applyFix(course, cloneState(state), fix, clock, o), clock, nowMs, opts);
  }
  const all = allFixesSorted.includes(fix) ? allFixesSorted : [...allFixesSorted, fix];
  // The recomputation starts from an empty state: it keeps this runner's own staleness threshold.
  const own = { ...opts, staleAfterMs: opts?.staleAfterMs ?? state.staleAfterMs };
  const next = computeRunnerState(course, all, clock, nowMs, own);
  // A late fix can place earlier fixes differently. Viewers have already seen the old distance: it stays as a floor
  // (progress shown never goes back) until the runner passes it; the matching itself follows the recomputation.
  if (next.distanceM < state.distanceM && next.finishMs === null) {
    return refreshRunnerState(course, { ...next, distanceM: state.distanceM }, clock, nowMs, own);
  }
  return next;
}

function cloneState(s: RunnerState): RunnerState {
  return { ...s, progress: s.progress.slice() };
}

/** Fold one fix (newer than every fix already folded) into the state. Mutates and returns `s`. */
function applyFix(
  course: PreparedCourse,
  s: RunnerState,
  fix: Fix,
  clock: RaceClock,
  o: MatchOptions,
): RunnerState {
  if (clock.stopMs !== null && fix.t > clock.stopMs) return s;
  s.lastFix = fix;
  if (clock.startMs === null || fix.t < clock.startMs) return s;
  if (s.finishMs !== null) return s;

  const candidates = courseCandidates(course, fix.lat, fix.lon, o.offCourseMeters);
  if (candidates.length === 0) {
    s.isOffCourse = true;
    s.pendingJump = null;
    return s;
  }
  s.isOffCourse = false;
  s.lastOnCourseMs = fix.t;

  const start = clock.startMs;
  const L = course.lengthM;
  const w = decideWindow(s, candidates, fix, start, o, course);
  const n = w.fixes.length;
  const pass = w.passes[n - 1];
  const from = pathBefore(w, n - 1, lastProgress(s, start));
  // The runner finished: every fix before the finish is decided first.
  const atLine = pass !== null && pass.alongM >= L - FINISH_TOLERANCE_M;
  // At the finish, whichever pass the geometry suggested, with the course essentially covered or time enough since
  // the last progress to have covered it (a finish after a dropout).
  const nearFinish = metresBetween(fix, course.finish) <= FINISH_RADIUS_M;
  // Speeds in flat metres per second (effort, `eta.ts`): time enough to cover the rest, climbs and descents weighed.
  const E = effortScale(course);
  const reachSpeed = Math.max(recentSpeed(s, start, E) ?? DEFAULT_SPEED_MPS, cruiseSpeed(s, start, E));
  const reach = E.at(from.distanceM) + (reachSpeed * (fix.t - from.t)) / 1000;
  if (atLine || (nearFinish && (from.distanceM >= FINISH_MIN_FRACTION * L || reach >= E.at(L)))) {
    commitWindow(s, w, n - 2, course);
    const near = pass ?? candidates.reduce((a, b) => (b.alongM > a.alongM ? b : a));
    const timed = atLine || near.alongM >= FINISH_MIN_FRACTION * L;
    const finishMs = timed ? finishTime(course, from, fix.t, near, s, start) : fix.t;
    // A fix just short of the line (the finish extrapolated from it) keeps its own place before the finish.
    if (pass !== null && !atLine && finishMs > fix.t) {
      const last = lastProgress(s, start);
      if (fix.t > last.t) s.progress.push({ t: fix.t, distanceM: Math.max(w.means[n - 1], last.distanceM) });
    }
    return finish(s, L, finishMs);
  }
  // An ambiguous newest fix (two places about as plausible, e.g. still at the top of the switchbacks or already on
  // the way down) waits for the next fix to decide it, at most MAX_DEFERRED fixes; the older ones are decided now.
  // When the fix before it is still as ambiguous (a runner at the top of the switchbacks, then a fix that fits both
  // the next leg down and a stop), it waits too: two fixes at most.
  const ambiguous = pass === null || w.margin < AMBIGUOUS_MARGIN;
  const waiting = !ambiguous ? 0 : n >= 2 && w.marginBefore < MARGIN_BEFORE ? MAX_DEFERRED : 1;
  commitWindow(s, w, n - 1 - waiting, course);
  const last = lastProgress(s, start);
  if (pass === null) {
    // Held back until a later fix continues from it (or shows it was a GPS outlier).
    const ahead = candidates.filter((c) => c.alongM > last.distanceM + BACK_TOLERANCE_M);
    s.pendingJump =
      ahead.length > 0
        ? { t: fix.t, distanceM: ahead.reduce((x, y) => (y.offsetM < x.offsetM ? y : x)).alongM }
        : null;
  } else {
    s.pendingJump = null;
  }
  return s;
}

/** The decoded window of recent fixes (see `decideWindow`). */
interface DecodedWindow {
  fixes: { t: number }[];
  passes: (CourseCandidate | null)[];
  distances: number[];
  means: number[];
  margin: number;
  marginBefore: number;
  /** The moving speed the decoding assumed (flat metres per second), and whether it is the runner's own. */
  speedMps: number;
  speedKnown: boolean;
  /** The moving speed in plain metres per second (the smoothing's motion: a fix's place a few minutes on). */
  metresMps: number;
}

/** The progress on the decoded sequence before window fix k (the anchor, or the last progress if further on). */
function pathBefore(
  w: DecodedWindow & { anchor: ProgressPoint },
  k: number,
  last: ProgressPoint,
): ProgressPoint {
  let from = w.anchor;
  for (let j = k - 1; j >= 0; j--) {
    if (w.passes[j] !== null) {
      from = { t: w.fixes[j].t, distanceM: w.distances[j] };
      break;
    }
  }
  return last.distanceM > from.distanceM ? last : from;
}

/**
 * Decides every window fix up to index `upTo` not decided yet: a fix the sequence believes becomes a progress point
 * (never below the previous one), an outlier none. Progress already shown is never rewritten.
 */
function commitWindow(s: RunnerState, w: DecodedWindow, upTo: number, course: PreparedCourse): void {
  const mw = s.matchWindow!;
  for (let k = 0; k <= upTo; k++) {
    const t = w.fixes[k].t;
    if (t <= mw.decidedT) continue;
    mw.decidedT = t;
    if (w.passes[k] === null) continue;
    const prev = s.progress.length > 0 ? s.progress[s.progress.length - 1] : null;
    const last = prev?.distanceM ?? 0;
    // To the centimetre: a smoothed place that agrees with the fix (a steady pace) is exactly the fix's.
    const d = Math.min(Math.max(Math.round(smoothed(w, k, prev) * 100) / 100, last), course.lengthM);
    s.progress.push({ t, distanceM: d });
    s.distanceM = Math.max(s.distanceM, d);
  }
}

/**
 * The place of window fix k, the fix's own (its expected place on the decoded passes) weighed with where the
 * runner's motion puts it: between the previous progress and the next placed fix when there is one (a fix decided
 * late), else the previous progress carried on at the moving speed. A fix is σ ≈ 10 m along a straight road but
 * up to |dx| + |dy| at a corner; the motion, over a few minutes at a steady pace, is about as precise. Only where the
 * two agree within SMOOTH_GATE σ (a stop or a change of pace leaves the fix alone).
 */
function smoothed(w: DecodedWindow, k: number, prev: ProgressPoint | null): number {
  const own = w.means[k];
  if (prev === null) return own;
  const t = w.fixes[k].t;
  const dt = (t - prev.t) / 1000;
  if (dt <= 0 || dt > SMOOTH_MAX_S) return own;
  let predicted: number;
  let sigma: number;
  const next = k + 1 < w.fixes.length && w.passes[k + 1] !== null ? k + 1 : -1;
  if (next >= 0 && (w.fixes[next].t - prev.t) / 1000 <= 2 * SMOOTH_MAX_S) {
    const span = (w.fixes[next].t - prev.t) / 1000;
    const dd = w.distances[next] - prev.distanceM;
    predicted = prev.distanceM + (dd * dt) / span;
    sigma = SMOOTH_SIGMA_M + SMOOTH_INTERPOLATED_FRACTION * Math.abs(dd);
  } else if (w.speedKnown) {
    predicted = prev.distanceM + w.metresMps * dt;
    sigma = SMOOTH_SIGMA_M + SMOOTH_PREDICTED_FRACTION * w.metresMps * dt;
  } else {
    return own;
  }
  if (Math.abs(own - predicted) > SMOOTH_GATE * sigma) return own;
  const g = (FIX_ALONG_SIGMA_M * FIX_ALONG_SIGMA_M) / (FIX_ALONG_SIGMA_M * FIX_ALONG_SIGMA_M + sigma * sigma);
  return own + g * (predicted - own);
}

/**
 * Adds the fix to the runner's window of recent fixes and decodes the most plausible sequence of passes (see
 * `hmm.ts`). The window's oldest fix leaves it with the distance the latest decoding gave it, which becomes the
 * anchor the next decodings start from.
 */
function decideWindow(
  s: RunnerState,
  candidates: CourseCandidate[],
  fix: Fix,
  startMs: number,
  o: MatchOptions,
  course: PreparedCourse,
): DecodedWindow & { anchor: ProgressPoint } {
  const E = effortScale(course);
  const t = fix.t;
  const w = s.matchWindow;
  let anchor: ProgressPoint = w?.anchor ?? { t: startMs, distanceM: 0 };
  let k0 = 0;
  const n0 = w?.fixes.length ?? 0;
  while (w && n0 - k0 >= WINDOW_FIXES) {
    if (w.placed[k0]) anchor = { t: w.fixes[k0].t, distanceM: w.distances[k0] };
    k0++;
  }
  const fixes = w ? w.fixes.slice(k0) : [];
  fixes.push({
    t,
    cands: windowCandidates(candidates, anchor, t, o),
    lat: fix.lat,
    lon: fix.lon,
    ...(fix.accuracy !== undefined && fix.accuracy !== null ? { accuracyM: fix.accuracy } : {}),
  });
  // A cruise speed of 0: no stretch of a minute yet, the runner's speed is not known.
  const cruise = cruiseSpeed(s, startMs, E);
  const moving = movingSpeed(s, startMs, E);
  const speedMps = moving ?? DEFAULT_SPEED_MPS;
  const speedKnown = moving !== null;
  const decoded = decodeWindow(fixes, {
    anchor,
    speedMps,
    speedKnown,
    cruiseMps: cruise > 0 ? cruise : null,
    maxSpeedMps: o.maxSpeedMps,
    effort: E.at,
  });
  s.matchWindow = {
    anchor,
    fixes,
    distances: decoded.distances,
    placed: decoded.passes.map((c) => c !== null),
    decidedT: w?.decidedT ?? -Infinity,
    ...(s.matchWindow?.cruise ? { cruise: s.matchWindow.cruise } : {}),
  };
  const metresMps = (moving !== null ? movingSpeed(s, startMs, PLAIN) : null) ?? DEFAULT_SPEED_MPS;
  return { anchor, fixes, ...decoded, speedMps, speedKnown, metresMps };
}

/**
 * The passes worth weighing for a fix: reachable from the anchor at the fastest plausible speed (and not behind it
 * beyond GPS noise), the closest few, none much farther from the fix than the closest.
 */
function windowCandidates(
  candidates: CourseCandidate[],
  anchor: ProgressPoint,
  t: number,
  o: MatchOptions,
): CourseCandidate[] {
  const lo = anchor.distanceM - BACK_TOLERANCE_M;
  const hi = anchor.distanceM + (o.maxSpeedMps * Math.max(0, t - anchor.t)) / 1000 + FORWARD_TOLERANCE_M;
  const inReach = candidates.filter((c) => c.alongM >= lo && c.alongM <= hi);
  if (inReach.length <= 1) return inReach;
  inReach.sort((a, b) => a.offsetM - b.offsetM);
  const limit = inReach[0].offsetM + MAX_EXTRA_OFFSET_M;
  return inReach.filter((c, k) => k < MAX_WINDOW_CANDIDATES && c.offsetM <= limit);
}

function finish(s: RunnerState, lengthM: number, finishMs: number): RunnerState {
  s.finishMs = finishMs;
  s.progress.push({ t: finishMs, distanceM: lengthM });
  s.distanceM = lengthM;
  s.pendingJump = null;
  return s;
}

function metresBetween(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const { kx, ky } = rulerFactors(a.lat);
  let dLon = b.lon - a.lon;
  if (dLon > 180) dLon -= 360;
  if (dLon < -180) dLon += 360;
  return Math.hypot(dLon * kx, (b.lat - a.lat) * ky);
}

function lastProgress(s: RunnerState, startMs: number): ProgressPoint {
  return s.progress.length > 0 ? s.progress[s.progress.length - 1] : { t: startMs, distanceM: 0 };
}

/**
 * Metres per second over the recent window of progress (or since the start); null before the first progress. A
 * runner who has stopped gets the default: they are expected to move on. With an effort scale: flat metres per second.
 */
function recentSpeed(s: RunnerState, startMs: number, E?: EffortScale): number | null {
  const p = s.progress;
  if (p.length === 0) return null;
  const last = p[p.length - 1];
  const ref = recentReference(p, startMs);
  const dt = (last.t - ref.t) / 1000;
  const dd = E ? E.at(last.distanceM) - E.at(ref.distanceM) : last.distanceM - ref.distanceM;
  return dt > 0 && dd > 0 ? dd / dt : DEFAULT_SPEED_MPS;
}

/**
 * The runner's moving speed: the fastest stretch between consecutive progress points (a minute apart at least)
 * within the last hour, in flat metres per second (effort, `eta.ts`). Unlike the average it is not dragged down by a rest at an aid station.
 *
 * Incremental (`CruiseFold`, kept in the matcher's window): the stretches are a chain from the start that only grows with the
 * progress, so only the points added since the last call are walked, and only the last hour's stretches are kept.
 * `cruiseSpeedFull` is the same walk over the whole history (kept for the test that compares the two).
 */
export function cruiseSpeed(s: RunnerState, startMs: number, E: EffortScale): number {
  const p = s.progress;
  if (p.length === 0) return 0;
  let f = s.matchWindow?.cruise;
  const valid =
    f !== undefined &&
    f.startMs === startMs &&
    f.n <= p.length &&
    (f.n === 0 || (p[f.n - 1].t === f.lastT && p[f.n - 1].distanceM === f.lastD));
  if (!valid) f = { startMs, n: 0, lastT: 0, lastD: 0, prevT: startMs, prevD: 0, t: [], v: [] };
  const lastT = p[p.length - 1].t;
  if (f!.n < p.length) {
    // Copy on write: earlier states of the runner (kept by callers) may share the fold.
    const g: CruiseFold = { ...f!, t: f!.t.slice(), v: f!.v.slice() };
    for (let k = g.n; k < p.length; k++) {
      const q = p[k];
      const dt = (q.t - g.prevT) / 1000;
      if (dt >= 60) {
        g.t.push(q.t);
        g.v.push((E.at(q.distanceM) - E.at(g.prevD)) / dt);
        g.prevT = q.t;
        g.prevD = q.distanceM;
      }
    }
    g.n = p.length;
    g.lastT = lastT;
    g.lastD = p[p.length - 1].distanceM;
    // Stretches ending more than the window before the last point never count again (the last point only moves on).
    let drop = 0;
    while (drop < g.t.length && lastT - g.t[drop] > CRUISE_WINDOW_MS) drop++;
    if (drop > 0) {
      g.t.splice(0, drop);
      g.v.splice(0, drop);
    }
    // Kept with the matcher's window (internal state; the window object is copied, earlier states keep theirs).
    if (s.matchWindow) s.matchWindow = { ...s.matchWindow, cruise: g };
    f = g;
  }
  let fastest = 0;
  for (let k = 0; k < f!.v.length; k++)
    if (lastT - f!.t[k] <= CRUISE_WINDOW_MS) fastest = Math.max(fastest, f!.v[k]);
  return fastest;
}

/** cruiseSpeed by walking the whole progress history (the computation before the fold; for tests). */
export function cruiseSpeedFull(s: RunnerState, startMs: number, E: EffortScale): number {
  const p = s.progress;
  if (p.length === 0) return 0;
  const lastT = p[p.length - 1].t;
  let fastest = 0;
  let prev: ProgressPoint = { t: startMs, distanceM: 0 };
  for (let k = 0; k < p.length; k++) {
    const q = p[k];
    const dt = (q.t - prev.t) / 1000;
    if (dt >= 60) {
      if (lastT - q.t <= CRUISE_WINDOW_MS)
        fastest = Math.max(fastest, (E.at(q.distanceM) - E.at(prev.distanceM)) / dt);
      prev = q;
    }
  }
  return fastest;
}

/**
 * The runner's moving speed (flat metres per second): the median speed of the steps between progress points (a minute
 * apart at least) within
 * the last CRUISE_WINDOW_MS, leaving out steps slower than MOVING_MIN_MPS (stopped at an aid station). Null until
 * MOVING_MIN_STEPS such steps are known. Unlike the recent average it is not dragged down by a rest, and unlike the
 * cruise speed (the fastest step) not pushed up by GPS noise.
 */
function movingSpeed(s: RunnerState, startMs: number, E: EffortScale): number | null {
  const p = s.progress;
  const n = p.length;
  if (n === 0) return null;
  const lastT = p[n - 1].t;
  const speeds: number[] = [];
  let later = p[n - 1];
  for (let k = n - 2; k >= -1; k--) {
    const q = k >= 0 ? p[k] : { t: startMs, distanceM: 0 };
    const dt = (later.t - q.t) / 1000;
    if (dt < 60 && k >= 0) continue;
    if (dt > 0) {
      const v = (E.at(later.distanceM) - E.at(q.distanceM)) / dt;
      if (v >= MOVING_MIN_MPS) speeds.push(v);
    }
    later = q;
    if (lastT - q.t > CRUISE_WINDOW_MS || speeds.length >= MOVING_MAX_STEPS) break;
  }
  if (speeds.length < MOVING_MIN_STEPS) return null;
  speeds.sort((a, b) => a - b);
  const m = speeds.length >> 1;
  return speeds.length % 2 === 1 ? speeds[m] : (speeds[m - 1] + speeds[m]) / 2;
}

/**
 * The progress point (or the start) about RECENT_WINDOW_MS before the last one, at least RECENT_MIN_SPAN_MS back
 * when the history allows, so one noisy ping does not make the pace.
 */
function recentReference(p: ProgressPoint[], startMs: number): ProgressPoint {
  // Position k in the virtual list [start, ...p].
  const at = (k: number): ProgressPoint => (k === 0 ? { t: startMs, distanceM: 0 } : p[k - 1]);
  const lastK = p.length;
  const lastT = p[lastK - 1].t;
  let k = lastK - 1;
  while (k > 0 && lastT - at(k - 1).t <= RECENT_WINDOW_MS) k--;
  while (k > 0 && lastT - at(k).t < RECENT_MIN_SPAN_MS) k--;
  return at(Math.max(k, 0));
}

/**
 * Finish time. A fix well past the line interpolates by position between the previous progress and the fix. A fix
 * at the line or just short of it extrapolates at the runner's recent speed (see below).
 */
function finishTime(
  course: PreparedCourse,
  prev: ProgressPoint,
  t: number,
  c: CourseCandidate,
  s: RunnerState,
  startMs: number,
): number {
  const L = course.lengthM;
  const speed = Math.max(recentSpeed(s, startMs) ?? DEFAULT_SPEED_MPS, 0.5);
  const beyond = c.alongUnclampedM;
  if (beyond - L >= FINISH_STOPPED_M && beyond > prev.distanceM) {
    return Math.round(prev.t + ((L - prev.distanceM) / (beyond - prev.distanceM)) * (t - prev.t));
  }
  // Short of the line, or at it give or take GPS noise: either about to cross, or standing there since an unknown
  // moment. The earlier of the extrapolations from this fix and from the previous progress covers both.
  const fromFix = t + ((L - c.alongM) / speed) * 1000;
  const fromPrev = prev.t + ((L - prev.distanceM) / speed) * 1000;
  return Math.round(Math.max(prev.t, Math.min(fromFix, fromPrev)));
}

/**
 * Time-dependent fields (status, elapsed, paces, ETAs) for `nowMs`; call it to age states without new fixes.
 * Staleness uses `opts.staleAfterMs` when given (and keeps it on the state), else the state's own, else the default.
 */
export function refreshRunnerState(
  course: PreparedCourse,
  state: RunnerState,
  clock: RaceClock,
  nowMs: number,
  opts?: Partial<MatchOptions>,
): RunnerState {
  const s: RunnerState = { ...state };
  const own = opts?.staleAfterMs ?? state.staleAfterMs;
  if (own !== undefined) s.staleAfterMs = own;
  const staleMs = own ?? DEFAULT_MATCH_OPTIONS.staleAfterMs;
  const L = course.lengthM;
  s.percent = L > 0 ? Math.min(100, (s.distanceM / L) * 100) : 0;
  const start = clock.startMs;
  const clockNow = clock.stopMs !== null ? Math.min(nowMs, clock.stopMs) : nowMs;
  const seenSinceStart = start !== null && s.lastFix !== null && s.lastFix.t >= start;

  s.elapsedMs = null;
  s.paceSecPerKm = null;
  s.recentPaceSecPerKm = null;
  s.etaFinishMs = null;
  s.etaFinishEarliestMs = null;
  s.etaFinishLatestMs = null;
  s.nextWaypoint = null;

  if (start === null || !seenSinceStart) {
    s.status = 'not-started';
    return s;
  }
  if (s.finishMs !== null) {
    s.status = 'finished';
    s.elapsedMs = s.finishMs - start;
    s.paceSecPerKm = L > 0 ? s.elapsedMs / L : null;
    return s;
  }
  s.elapsedMs = Math.max(0, clockNow - start);
  const lastFixT = s.lastFix!.t;
  s.status = clockNow - lastFixT > staleMs ? 'stale' : s.isOffCourse ? 'off-course' : 'racing';

  const p = s.progress;
  if (p.length === 0) return s;
  const last = p[p.length - 1];
  // ms per metre is seconds per kilometre.
  if (last.distanceM >= MIN_PACE_DISTANCE_M && last.t > start)
    s.paceSecPerKm = (last.t - start) / last.distanceM;
  const ref = recentReference(p, start);
  if (last.distanceM - ref.distanceM >= MIN_PACE_DISTANCE_M && last.t > ref.t) {
    s.recentPaceSecPerKm = (last.t - ref.t) / (last.distanceM - ref.distanceM);
  }
  // Terrain-aware with a range once the runner's own pace is measured (eta.ts); until then the flat pace.
  const finish = etaRange(course, p, start, L);
  s.etaFinishMs = finish?.etaMs ?? flatEtaMs(s, L);
  s.etaFinishEarliestMs = finish?.earliestMs ?? null;
  s.etaFinishLatestMs = finish?.latestMs ?? null;
  const next = course.waypoints.find((w) => w.distanceM > s.distanceM + 1);
  if (next) {
    const at = etaRange(course, p, start, next.distanceM);
    s.nextWaypoint = {
      name: next.name,
      distanceM: next.distanceM,
      etaMs: at?.etaMs ?? flatEtaMs(s, next.distanceM),
      etaEarliestMs: at?.earliestMs ?? null,
      etaLatestMs: at?.latestMs ?? null,
    };
  }
  return s;
}

/**
 * Folds one fix, newer than every fix folded into `state` so far, into it in place: the step computeRunnerState
 * takes per fix, without copying the progress (which only grows). For callers that keep every intermediate state
 * (the replay timeline, `replay.ts`); `o` from resolveOptions. Call refreshRunnerState for the time-dependent fields.
 */
export function foldFixInPlace(
  course: PreparedCourse,
  state: RunnerState,
  fix: Fix,
  clock: RaceClock,
  o: MatchOptions,
): RunnerState {
  return applyFix(course, state, fix, clock, o);
}
