/**
 * Replay: a runner's race state as it was at any past moment, from the fixes RECEIVED by then (a late fix counts from
 * its arrival, so the replay shows what spectators saw).
 *
 * The state at time T is, by definition, `computeRunnerState(course, fixes received by T, clock, T, opts)` — the live
 * state built from those fixes. Recomputing that per question is far too slow for a slider over a 30-hour race, so
 * a RunnerTimeline folds the fixes once, in arrival order, and keeps what every intermediate state needs:
 * - fixes arriving in time order (the common case) extend the running fold (`foldFixInPlace`, the matcher's own
 *   step); the progress only grows, so every intermediate state is a prefix of one shared progress array plus a few
 *   numbers per fix;
 * - a late fix (older than one already received) starts a new segment: the fixes received so far, in time order,
 *   folded again from the start — exactly what a recomputation would do.
 * A question is two binary searches (segment, then fixes received by T) and one refreshRunnerState.
 */
import { emptyRunnerState, foldFixInPlace, refreshRunnerState, resolveOptions } from './matching';
import type { RunnerPositions } from '../live-messages';
import type {
  Fix,
  LeaderboardRow,
  MatchOptions,
  MatchWindow,
  PreparedCourse,
  ProgressPoint,
  RaceClock,
  RunnerState,
} from './types';

interface Segment<F extends Fix> {
  /** Arrival time from which this segment holds. */
  fromMs: number;
  /** Every fix received by the segment's end, in time order (appended to while fixes arrive in order). */
  fixes: F[];
  /** fixes[0..base) had all arrived by fromMs. */
  base: number;
  /** Arrival time of fixes[base + i] (non-decreasing). */
  arrivedMs: number[];
  /** The running fold; its progress array holds every intermediate state's progress as a prefix. */
  state: RunnerState;
  /**
   * The fold's states after fixes[j] for j >= `own` are kept here (index j - own); before `own` the fold is the
   * previous segment's (a late fix changes nothing before its place in time), so nothing is kept twice.
   */
  own: number;
  progressLen: number[];
  lastFixIdx: number[];
  offCourse: boolean[];
  lastOnCourseMs: (number | null)[];
  pendingJump: (ProgressPoint | null)[];
  /**
   * The matcher's window after each fold, kept for the last KEEP_WINDOWS folds only (a late fix resumes the fold
   * from there; one later than that refolds from the start). Older entries are dropped to save memory.
   */
  matchWindow: (MatchWindow | undefined)[];
  /** First j whose fold set finishMs (-1: not finished by the segment's end). */
  finishAt: number;
}

export interface TimelineState<F extends Fix> {
  /** The runner's state at the time asked (time-dependent fields refreshed for it). */
  state: RunnerState;
  /** Fixes received by then, in time order: the first `count` of `fixes` (do not modify). */
  fixes: readonly F[];
  count: number;
}

/** Time-ordered insertion point: first index whose fix time is greater than t. */
function upperBoundT(fixes: readonly Fix[], t: number): number {
  let lo = 0;
  let hi = fixes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fixes[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Count of sorted values <= x. */
function countAtMost(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many folds back the newest segment keeps the matcher's window (how many fixes late a fix can be and still
 * resume the fold; one later refolds from the start). Older segments keep none: a late fix always resumes the newest.
 */
const KEEP_WINDOWS = 16;

const validFix = (f: Fix) => Number.isFinite(f.t) && Number.isFinite(f.lat) && Number.isFinite(f.lon);

/** One runner's states over the race, by arrival time. Feed arrivals in non-decreasing arrival time. */
export class RunnerTimeline<F extends Fix = Fix> {
  private readonly segments: Segment<F>[] = [];
  private readonly o: MatchOptions;
  private lastArrivalMs = -Infinity;
  private lastPrefix: { owner: Segment<F>; len: number; progress: ProgressPoint[] } | null = null;

  constructor(
    private readonly course: PreparedCourse,
    private readonly clock: RaceClock,
    private readonly opts?: Partial<MatchOptions>,
  ) {
    this.o = resolveOptions(opts);
  }

  /** Fixes received so far (time order). */
  get fixCount(): number {
    const s = this.segments[this.segments.length - 1];
    return s ? s.fixes.length : 0;
  }

  /**
   * Fixes that arrived at `receivedMs` (one request or one batch). An arrival earlier than the previous one is taken
   * as arriving with it (arrivals are kept in order). A fix at the time of one already received is a duplicate: the
   * first delivered is kept, as sortFixes does.
   */
  add(arrived: readonly F[], receivedMs: number): void {
    const at = Math.max(receivedMs, this.lastArrivalMs);
    this.lastArrivalMs = at;
    const incoming = arrived.filter(validFix).sort((a, b) => a.t - b.t);
    if (incoming.length === 0) return;
    const prev = this.segments[this.segments.length - 1];
    const have = prev?.fixes ?? [];
    const fresh: F[] = [];
    for (const f of incoming) {
      const i = upperBoundT(have, f.t);
      if (i > 0 && have[i - 1].t === f.t) continue;
      if (fresh.length > 0 && fresh[fresh.length - 1].t === f.t) continue;
      fresh.push(f);
    }
    if (fresh.length === 0) return;
    const newestT = have.length ? have[have.length - 1].t : -Infinity;
    if (prev && fresh[0].t > newestT) {
      for (const f of fresh) {
        prev.fixes.push(f);
        prev.arrivedMs.push(at);
        this.fold(prev, prev.fixes.length - 1);
      }
      return;
    }
    // First arrival, or a late fix: the fixes received so far in time order, folded again from the late fix's
    // place on (before it, the fold is the previous segment's).
    const all = mergeByTime(have, fresh);
    let own = prev ? upperBoundT(have, fresh[0].t) : 0;
    // Resuming needs the matcher's window of that moment: a fix later than the windows kept refolds everything.
    if (prev && own > 0 && this.rawState(prev, own).matchWindow === undefined && this.matched(prev, own))
      own = 0;
    const seg: Segment<F> = {
      fromMs: at,
      fixes: all,
      base: all.length,
      arrivedMs: [],
      state: prev && own > 0 ? this.rawState(prev, own, true) : emptyRunnerState(),
      own,
      progressLen: [],
      lastFixIdx: [],
      offCourse: [],
      lastOnCourseMs: [],
      pendingJump: [],
      matchWindow: [],
      finishAt: prev && prev.finishAt >= 0 && prev.finishAt < own ? prev.finishAt : -1,
    };
    if (!prev) {
      // The first arrival: nothing before it, later in-order fixes extend the same segment.
      seg.base = 0;
      seg.arrivedMs = all.map(() => at);
    }
    for (let j = own; j < all.length; j++) this.fold(seg, j);
    // The segment before is final now: its matcher windows are never resumed again (memory).
    if (prev) prev.matchWindow = [];
    this.segments.push(seg);
  }

  /** Whether the fold had matched a fix by then (it then has a window to resume from). */
  private matched(seg: Segment<F>, count: number): boolean {
    return this.rawState(seg, count).lastOnCourseMs !== null;
  }

  private fold(seg: Segment<F>, j: number): void {
    const s = seg.state;
    const hadFinish = s.finishMs !== null;
    const before = s.lastFix;
    const k = j - seg.own;
    foldFixInPlace(this.course, s, seg.fixes[j], this.clock, this.o);
    seg.progressLen.push(s.progress.length);
    const lastBefore = k > 0 ? seg.lastFixIdx[k - 1] : before ? seg.fixes.indexOf(before as F, 0) : -1;
    seg.lastFixIdx.push(s.lastFix === before ? lastBefore : j);
    seg.offCourse.push(s.isOffCourse);
    seg.lastOnCourseMs.push(s.lastOnCourseMs);
    seg.pendingJump.push(s.pendingJump);
    seg.matchWindow.push(s.matchWindow);
    if (k >= KEEP_WINDOWS) seg.matchWindow[k - KEEP_WINDOWS] = undefined;
    if (!hadFinish && s.finishMs !== null) seg.finishAt = j;
  }

  /**
   * The fold after the first `count` fixes of the segment (count > seg.own, or any count of the segment that kept
   * it), not yet refreshed for a time. `fresh`: a state to fold on (its own progress array).
   */
  private rawState(seg: Segment<F>, count: number, fresh = false): RunnerState {
    if (count === 0) return emptyRunnerState();
    const j = count - 1;
    let owner = seg;
    const segs = this.segments;
    // Folds before a segment's own part are kept by the segment before it.
    for (let i = segs.indexOf(seg); j < owner.own && i > 0;) owner = segs[--i];
    const k = j - owner.own;
    const len = owner.progressLen[k];
    // The same progress array for the same prefix (a runner between two fixes, a finisher): what is derived from a
    // runner's progress and cached per array (the pace model of the ETAs) is then not derived again.
    let progress: ProgressPoint[];
    const c = this.lastPrefix;
    if (!fresh && c && c.owner === owner && c.len === len) progress = c.progress;
    else {
      progress = owner.state.progress.slice(0, len);
      if (!fresh) this.lastPrefix = { owner, len, progress };
    }
    const finished = owner.finishAt >= 0 && j >= owner.finishAt;
    const lf = owner.lastFixIdx[k];
    return {
      ...emptyRunnerState(),
      distanceM: len > 0 ? progress[len - 1].distanceM : 0,
      finishMs: finished ? owner.state.finishMs : null,
      lastFix: lf >= 0 ? owner.fixes[lf] : null,
      lastOnCourseMs: owner.lastOnCourseMs[k],
      progress,
      isOffCourse: owner.offCourse[k],
      pendingJump: owner.pendingJump[k],
      ...(owner.matchWindow[k] ? { matchWindow: owner.matchWindow[k] } : {}),
    };
  }

  /** The runner as they were at `atMs`, from the fixes received by then, refreshed for `atMs`. */
  at(atMs: number): TimelineState<F> {
    const got = this.rawAt(atMs);
    return { ...got, state: refreshRunnerState(this.course, got.state, this.clock, atMs, this.opts) };
  }

  /**
   * As `at`, without refreshing the time-dependent fields (status, elapsed, paces, ETAs): for callers that refresh
   * anyway (buildLeaderboard does).
   */
  rawAt(atMs: number): TimelineState<F> {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (segs[mid].fromMs <= atMs) lo = mid + 1;
      else hi = mid;
    }
    const seg = lo > 0 ? segs[lo - 1] : null;
    const count = seg ? seg.base + countAtMost(seg.arrivedMs, atMs) : 0;
    const state = seg ? this.rawState(seg, count) : emptyRunnerState();
    if (this.opts?.staleAfterMs !== undefined) state.staleAfterMs = this.opts.staleAfterMs;
    return { state, fixes: seg ? seg.fixes : [], count };
  }
}

function mergeByTime<F extends Fix>(a: readonly F[], b: readonly F[]): F[] {
  const out: F[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i].t <= b[j].t)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}

/**
 * `GET /api/open/races/{raceId}/replay?at=`: the race as spectators saw it at `At` — the leaderboard rows and
 * positions (the live routes' shapes) from the fixes received by then. From/To: the times a replay can show (the
 * start, and now or the end).
 */
export interface ReplayAnswer {
  At: string;
  From: string | null;
  To: string;
  Leaderboard: LeaderboardRow[];
  Positions: RunnerPositions[];
}
