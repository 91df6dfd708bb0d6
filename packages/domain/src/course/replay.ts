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
import type { Fix, MatchOptions, PreparedCourse, ProgressPoint, RaceClock, RunnerState } from './types';

interface Segment<F extends Fix> {
  /** Arrival time from which this segment holds. */
  fromMs: number;
  /** Every fix received by the segment's end, in time order (appended to while fixes arrive in order). */
  fixes: F[];
  /** fixes[0..base) had all arrived by fromMs. */
  base: number;
  /** Arrival time of fixes[base + i] (non-decreasing). */
  arrivedMs: number[];
  /** The running fold; its progress array is shared by every intermediate state (prefixes). */
  state: RunnerState;
  /** Per fix j, the state after folding fixes[0..j]: */
  progressLen: number[];
  lastFixIdx: number[];
  offCourse: boolean[];
  lastOnCourseMs: (number | null)[];
  pendingJump: (ProgressPoint | null)[];
  /** First j whose fold set finishMs (-1: not finished within this segment). */
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

const validFix = (f: Fix) => Number.isFinite(f.t) && Number.isFinite(f.lat) && Number.isFinite(f.lon);

/** One runner's states over the race, by arrival time. Feed arrivals in non-decreasing arrival time. */
export class RunnerTimeline<F extends Fix = Fix> {
  private readonly segments: Segment<F>[] = [];
  private readonly o: MatchOptions;
  private lastArrivalMs = -Infinity;

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
    let seg = this.segments[this.segments.length - 1];
    const have = seg?.fixes ?? [];
    const fresh: F[] = [];
    for (const f of incoming) {
      const i = upperBoundT(have, f.t);
      if (i > 0 && have[i - 1].t === f.t) continue;
      if (fresh.length > 0 && fresh[fresh.length - 1].t === f.t) continue;
      fresh.push(f);
    }
    if (fresh.length === 0) return;
    const newestT = have.length ? have[have.length - 1].t : -Infinity;
    if (seg && fresh[0].t > newestT) {
      for (const f of fresh) {
        seg.fixes.push(f);
        seg.arrivedMs.push(at);
        this.fold(seg, seg.fixes.length - 1);
      }
      return;
    }
    // First arrival, or a late fix: every fix received so far, in time order, folded from the start.
    const all = mergeByTime(have, fresh);
    seg = {
      fromMs: at,
      fixes: all,
      base: all.length,
      arrivedMs: [],
      state: emptyRunnerState(),
      progressLen: [],
      lastFixIdx: [],
      offCourse: [],
      lastOnCourseMs: [],
      pendingJump: [],
      finishAt: -1,
    };
    if (this.segments.length === 0) {
      // The first arrival: nothing before it, later in-order fixes extend the same segment.
      seg.base = 0;
      seg.arrivedMs = all.map(() => at);
    }
    for (let j = 0; j < all.length; j++) this.fold(seg, j);
    this.segments.push(seg);
  }

  private fold(seg: Segment<F>, j: number): void {
    const s = seg.state;
    const hadFinish = s.finishMs !== null;
    const before = s.lastFix;
    foldFixInPlace(this.course, s, seg.fixes[j], this.clock, this.o);
    seg.progressLen.push(s.progress.length);
    seg.lastFixIdx.push(s.lastFix === before ? (j > 0 ? seg.lastFixIdx[j - 1] : -1) : j);
    seg.offCourse.push(s.isOffCourse);
    seg.lastOnCourseMs.push(s.lastOnCourseMs);
    seg.pendingJump.push(s.pendingJump);
    if (!hadFinish && s.finishMs !== null) seg.finishAt = j;
  }

  /** The fold after the first `count` fixes of the segment, not yet refreshed for a time. */
  private rawState(seg: Segment<F>, count: number): RunnerState {
    if (count === 0) return emptyRunnerState();
    const j = count - 1;
    const len = seg.progressLen[j];
    const progress = seg.state.progress.slice(0, len);
    const finished = seg.finishAt >= 0 && j >= seg.finishAt;
    const lf = seg.lastFixIdx[j];
    return {
      ...emptyRunnerState(),
      distanceM: len > 0 ? progress[len - 1].distanceM : 0,
      finishMs: finished ? seg.state.finishMs : null,
      lastFix: lf >= 0 ? seg.fixes[lf] : null,
      lastOnCourseMs: seg.lastOnCourseMs[j],
      progress,
      isOffCourse: seg.offCourse[j],
      pendingJump: seg.pendingJump[j],
    };
  }

  /** The runner as they were at `atMs`, from the fixes received by then. */
  at(atMs: number): TimelineState<F> {
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
    const raw = seg ? this.rawState(seg, count) : emptyRunnerState();
    return {
      state: refreshRunnerState(this.course, raw, this.clock, atMs, this.opts),
      fixes: seg ? seg.fixes : [],
      count,
    };
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
