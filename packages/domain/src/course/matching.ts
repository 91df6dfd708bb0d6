/**
 * Runner race state: places each fix at a distance along the course and derives status, pace and ETAs.
 *
 * Matching one fix (see `placeFix`):
 * 1. All passes of the course within offCourseMeters of the fix come from the spatial index (`courseCandidates`).
 *    None: the runner is off-course and does not advance.
 * 2. Window: from the last known progress (d0 at t0), a pass is plausible if its distance lies in
 *    [d0 - BACK_TOLERANCE_M, d0 + maxSpeed * (t - t0) + FORWARD_TOLERANCE_M] and not beyond what the runner's own
 *    moving speed allows (a GPS jump across a loop lands within maxSpeed reach). The window is applied to the index's
 *    candidates: the same passes a scan of the window would find, at index cost.
 * 3. Among plausible passes the best fit wins: Gaussian GPS error on the offset, Laplace error on the distance against
 *    the prediction from the recent speed (see `best`). The prediction is what separates the two passes of an
 *    out-and-back, which lie at exactly the same offset from the fix.
 * 4. A pass further on that fits clearly better but is too far to believe from one fix is kept as a pending jump,
 *    taken only when the next fix continues from it; a single wild fix never moves anyone far ahead.
 * Progress never goes backwards (the maximum is kept), so GPS noise around a stopped runner does not undo progress.
 */
import { courseCandidates, rulerFactors, type CourseCandidate } from './geometry';
import {
  DEFAULT_MATCH_OPTIONS,
  type Fix,
  type MatchOptions,
  type PreparedCourse,
  type ProgressPoint,
  type RaceClock,
  type RunnerState,
} from './types';

/** GPS noise (σ ≈ 10 m on each of two fixes) can put a runner this far behind their last position. */
const BACK_TOLERANCE_M = 60;
/** Slack on the forward bound for noise and a short burst above maxSpeed. */
const FORWARD_TOLERANCE_M = 100;
/** GPS error (σ, metres) assumed when weighing how well a pass fits a fix. */
const GPS_SIGMA_M = 15;
/** Scale of the disagreement with the predicted distance: this much, plus a fraction of the predicted advance. */
const PREDICTION_SCALE_M = 50;
const PREDICTION_SCALE_FRACTION = 0.5;
/** A candidate this far from the course that also runs ahead of the prediction is treated as a jump (4 σ). */
const SUSPICIOUS_OFFSET_M = 4 * GPS_SIGMA_M;
/** How far back the moving speed looks. */
const CRUISE_WINDOW_MS = 60 * 60_000;
/** The jump limit assumes at least this speed (a brisk walk), so a runner resting at an aid station can leave it. */
const MIN_LIMIT_SPEED_MPS = 2;
/** A pass this much closer to the fix than the chosen one is worth remembering as a possible jump. */
const CLEARLY_CLOSER_M = 2 * GPS_SIGMA_M;
/** Speed assumed before the runner's own is known (a 5:30 /km runner). */
const DEFAULT_SPEED_MPS = 3;
/** Progress beyond this many times the runner's best speed (or JUMP_SLACK_M) needs a second fix to be believed. */
const JUMP_SPEED_FACTOR = 1.6;
const JUMP_SLACK_M = 250;
/** Within this of the course length, the course is covered. */
const FINISH_TOLERANCE_M = 50;
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
  const placed = placeFix(s, candidates, fix.t, lastProgress(s, start), start, o);
  const from = placed?.from ?? lastProgress(s, start);
  const L = course.lengthM;
  if (placed !== null && placed.c.alongM >= L - FINISH_TOLERANCE_M) {
    return finish(s, L, finishTime(course, from, fix.t, placed.c, s, start));
  }
  // The course is essentially covered and the runner is at the finish, whichever pass the geometry suggested.
  if (from.distanceM >= FINISH_MIN_FRACTION * L && metresBetween(fix, course.finish) <= FINISH_RADIUS_M) {
    return finish(s, L, fix.t);
  }
  if (placed === null) return s;
  const d = Math.min(Math.max(placed.c.alongM, from.distanceM), L);
  s.progress.push({ t: fix.t, distanceM: d });
  s.distanceM = Math.max(s.distanceM, d);
  return s;
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
 * runner who has stopped gets the default: they are expected to move on.
 */
function recentSpeed(s: RunnerState, startMs: number): number | null {
  const p = s.progress;
  if (p.length === 0) return null;
  const last = p[p.length - 1];
  const ref = recentReference(p, startMs);
  const dt = (last.t - ref.t) / 1000;
  const dd = last.distanceM - ref.distanceM;
  return dt > 0 && dd > 0 ? dd / dt : DEFAULT_SPEED_MPS;
}

/**
 * The runner's moving speed: the fastest stretch between consecutive progress points (a minute apart at least)
 * within the last hour. Unlike the average it is not dragged down by a rest at an aid station.
 */
function cruiseSpeed(s: RunnerState, startMs: number): number {
  const p = s.progress;
  if (p.length === 0) return 0;
  const lastT = p[p.length - 1].t;
  let fastest = 0;
  let prev: ProgressPoint = { t: startMs, distanceM: 0 };
  for (let k = 0; k < p.length; k++) {
    const q = p[k];
    const dt = (q.t - prev.t) / 1000;
    if (dt >= 60) {
      if (lastT - q.t <= CRUISE_WINDOW_MS) fastest = Math.max(fastest, (q.distanceM - prev.distanceM) / dt);
      prev = q;
    }
  }
  return fastest;
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

/** Choose the pass for this fix; null when it must not move the runner (yet). */
function placeFix(
  s: RunnerState,
  candidates: CourseCandidate[],
  t: number,
  last: ProgressPoint,
  startMs: number,
  o: MatchOptions,
): { c: CourseCandidate; from: ProgressPoint } | null {
  const speed = recentSpeed(s, startMs);
  const limitSpeed = speed === null ? null : Math.max(cruiseSpeed(s, startMs), MIN_LIMIT_SPEED_MPS);
  const plausible = plausibleFrom(candidates, last, t, limitSpeed, o);
  let chosen = plausible.length > 0 ? best(plausible, last, t, speed ?? DEFAULT_SPEED_MPS) : null;
  // Far from the course and well ahead of the prediction: more likely a GPS jump than the runner.
  if (chosen && chosen.c.offsetM > SUSPICIOUS_OFFSET_M && chosen.c.alongM > chosen.predicted + JUMP_SLACK_M) {
    chosen = null;
  }

  // A pending jump confirmed by this fix: it continues from the jump (within physical speed) and fits better than
  // anything reachable from the last accepted progress. Both fixes agree the runner is further on.
  const pending = s.pendingJump;
  if (pending !== null) {
    const fromPending = windowed(candidates, pending, t, o).filter((c) => c.alongM > last.distanceM);
    if (fromPending.length > 0) {
      const impliedSpeed = (pending.distanceM - last.distanceM) / Math.max(1, (pending.t - last.t) / 1000);
      const c = best(fromPending, pending, t, impliedSpeed);
      if (chosen === null || score(c.c, c.predicted, c.scale) < chosen.cost) {
        s.pendingJump = null;
        s.progress.push(pending);
        s.distanceM = Math.max(s.distanceM, pending.distanceM);
        return { c: c.c, from: pending };
      }
    }
  }

  // A pass further on that fits this fix clearly better than the chosen one, but too far to take on one fix's word:
  // remembered, so that a runner wrongly held on a parallel leg (switchbacks) is released by the next fix.
  const threshold = chosen === null ? Infinity : chosen.c.offsetM - CLEARLY_CLOSER_M;
  const floor = Math.max(last.distanceM + BACK_TOLERANCE_M, chosen?.c.alongM ?? -Infinity);
  const beyond = candidates.filter((c) => c.alongM > floor && c.offsetM < threshold);
  s.pendingJump =
    beyond.length > 0
      ? { t, distanceM: beyond.reduce((a, b) => (b.alongM < a.alongM ? b : a)).alongM }
      : null;
  return chosen === null ? null : { c: chosen.c, from: last };
}

function predict(from: ProgressPoint, t: number, speedMps: number): number {
  return from.distanceM + (speedMps * Math.max(0, t - from.t)) / 1000;
}

/**
 * Passes reachable from `from` by time t: within the speed window, and not so far ahead that a single fix should be
 * trusted with it (a 1 km GPS jump across a loop lands within maxSpeed reach). The limit uses the runner's best
 * speed so far (at least a jog), so a rest at an aid station does not make the next honest fix look like a jump.
 * Before the runner's speed is known, the speed window alone decides.
 */
function plausibleFrom(
  candidates: CourseCandidate[],
  from: ProgressPoint,
  t: number,
  limitSpeedMps: number | null,
  o: MatchOptions,
): CourseCandidate[] {
  const inWindow = windowed(candidates, from, t, o);
  if (limitSpeedMps === null) return inWindow;
  const advance = (JUMP_SPEED_FACTOR * limitSpeedMps * Math.max(0, t - from.t)) / 1000;
  const jumpLimit = from.distanceM + Math.max(JUMP_SLACK_M, advance);
  return inWindow.filter((c) => c.alongM <= jumpLimit);
}

function windowed(
  candidates: CourseCandidate[],
  from: ProgressPoint,
  t: number,
  o: MatchOptions,
): CourseCandidate[] {
  const lo = from.distanceM - BACK_TOLERANCE_M;
  const hi = from.distanceM + (o.maxSpeedMps * Math.max(0, t - from.t)) / 1000 + FORWARD_TOLERANCE_M;
  return candidates.filter((c) => c.alongM >= lo && c.alongM <= hi);
}

/**
 * The best pass: a Gaussian GPS error on the offset, and a Laplace error on the distance against the runner's
 * predicted progress, whose scale grows with the predicted advance. Falling short of the prediction costs half as
 * much as overshooting it: runners stop and slow down more often than they surge, and a runner placed too short is
 * put right by the next fix while one placed too far stays there (progress never goes back).
 */
function best(
  candidates: CourseCandidate[],
  from: ProgressPoint,
  t: number,
  speedMps: number,
): { c: CourseCandidate; cost: number; predicted: number; scale: number } {
  const predicted = predict(from, t, speedMps);
  const scale = PREDICTION_SCALE_M + PREDICTION_SCALE_FRACTION * (predicted - from.distanceM);
  let bestC = candidates[0];
  let bestCost = Infinity;
  for (const c of candidates) {
    const cost = score(c, predicted, scale);
    if (cost < bestCost) {
      bestCost = cost;
      bestC = c;
    }
  }
  return { c: bestC, cost: bestCost, predicted, scale };
}

function score(c: CourseCandidate, predicted: number, scale: number): number {
  const z = c.offsetM / GPS_SIGMA_M;
  const delta = c.alongM - predicted;
  return 0.5 * z * z + (delta >= 0 ? delta / scale : -delta / (2 * scale));
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
  const pace = blendPace(s.paceSecPerKm, s.recentPaceSecPerKm);
  if (pace !== null) s.etaFinishMs = Math.round(last.t + (L - last.distanceM) * pace);
  const next = course.waypoints.find((w) => w.distanceM > s.distanceM + 1);
  if (next) {
    s.nextWaypoint = {
      name: next.name,
      distanceM: next.distanceM,
      etaMs: pace !== null ? Math.round(last.t + (next.distanceM - last.distanceM) * pace) : null,
    };
  }
  return s;
}

/** Half recent, half average: recent reacts to fatigue and stops, average keeps one fast stretch from misleading. */
function blendPace(average: number | null, recent: number | null): number | null {
  if (average !== null && recent !== null) return (average + recent) / 2;
  return average ?? recent;
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
