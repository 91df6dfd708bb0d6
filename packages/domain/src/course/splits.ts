/**
 * Splits: when a runner passed each checkpoint. Read from the matcher's progress (distance along the course over
 * time, never decreasing), not from the distance to the checkpoint's point, so the two passes of an out-and-back
 * and the laps of a loop each get their own time. The passing time is interpolated between the two matched fixes
 * around the checkpoint; an aid-station check-in at the checkpoint overrides it.
 */
import type { ProgressPoint, RaceClock, RunnerState } from './types';

export type CheckpointKind = 'start' | 'waypoint' | 'finish';

/** A checkpoint as the splits read it (distance along the course, m). */
export interface SplitCheckpoint {
  id: number;
  kind: CheckpointKind;
  name: string;
  distanceM: number;
  /** Epoch ms the runner must have passed it by, or null. */
  cutoffMs: number | null;
}

/** An aid-station check-in of a runner at a checkpoint (the earliest one counts: arriving). */
export interface CheckinPassing {
  checkpointId: number;
  /** Epoch ms. */
  t: number;
}

export interface RunnerSplit {
  checkpointId: number;
  /** Epoch ms. */
  t: number;
  source: 'gps' | 'check-in';
  /** Interpolated between two fixes rather than observed. */
  estimated: boolean;
}

/**
 * When the progress first reached `distanceM`: interpolated between the fixes before and after (`exact` when a
 * fix lies at that distance), from the start (`startMs`, distance 0) when the first fix is already past it. Null
 * when the progress has not reached it.
 */
export function passingTime(
  progress: readonly ProgressPoint[],
  distanceM: number,
  startMs: number | null,
): { t: number; exact: boolean } | null {
  // Distances never decrease: the first point at or past distanceM, by binary search.
  let lo = 0;
  let hi = progress.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (progress[mid].distanceM < distanceM) lo = mid + 1;
    else hi = mid;
  }
  if (lo === progress.length) return null;
  const b = progress[lo];
  if (b.distanceM === distanceM) {
    // The first of several points at this distance (a runner standing there) is when they arrived.
    return { t: b.t, exact: true };
  }
  const a =
    lo > 0 ? progress[lo - 1] : startMs !== null && startMs <= b.t ? { t: startMs, distanceM: 0 } : null;
  if (!a || b.distanceM <= a.distanceM) return { t: b.t, exact: false };
  const f = (distanceM - a.distanceM) / (b.distanceM - a.distanceM);
  return { t: Math.round(a.t + f * (b.t - a.t)), exact: false };
}

const NO_CHECKINS: ReadonlyMap<number, number> = new Map();

/** The earliest check-in per checkpoint. */
function earliestCheckins(checkins: readonly CheckinPassing[]): ReadonlyMap<number, number> {
  if (checkins.length === 0) return NO_CHECKINS;
  const out = new Map<number, number>();
  for (const c of checkins) {
    const t = out.get(c.checkpointId);
    if (t === undefined || c.t < t) out.set(c.checkpointId, c.t);
  }
  return out;
}

type SplitState = Pick<RunnerState, 'progress' | 'finishMs'>;

function gpsSplit(cp: SplitCheckpoint, s: SplitState, clock: RaceClock): RunnerSplit | null {
  const started = clock.startMs !== null && s.progress.length > 0;
  if (!started) return null;
  if (cp.kind === 'start' || cp.distanceM <= 0) {
    return { checkpointId: cp.id, t: clock.startMs!, source: 'gps', estimated: false };
  }
  if (cp.kind === 'finish') {
    // The matcher decides the finish (the stored course length may differ from the prepared one by a metre).
    return s.finishMs === null
      ? null
      : { checkpointId: cp.id, t: s.finishMs, source: 'gps', estimated: false };
  }
  const p = passingTime(s.progress, cp.distanceM, clock.startMs);
  return p === null ? null : { checkpointId: cp.id, t: p.t, source: 'gps', estimated: !p.exact };
}

/**
 * A runner's splits in checkpoint order (`checkpoints` sorted by distance): each checkpoint passed, by GPS or by
 * check-in (a check-in wins). A check-in at a checkpoint the GPS has not reached yet counts too.
 */
export function runnerSplits(
  state: SplitState,
  checkpoints: readonly SplitCheckpoint[],
  checkins: readonly CheckinPassing[],
  clock: RaceClock,
): RunnerSplit[] {
  const byCheckin = earliestCheckins(checkins);
  const out: RunnerSplit[] = [];
  for (const cp of checkpoints) {
    const c = byCheckin.get(cp.id);
    if (c !== undefined) out.push({ checkpointId: cp.id, t: c, source: 'check-in', estimated: false });
    else {
      const g = gpsSplit(cp, state, clock);
      if (g) out.push(g);
    }
  }
  return out;
}

/**
 * The last checkpoint a runner passed and when (the one farthest along the course), or null. Cheap enough for
 * every leaderboard row: one binary search.
 */
export function lastCheckpointPassed(
  state: SplitState & Pick<RunnerState, 'distanceM'>,
  checkpoints: readonly SplitCheckpoint[],
  checkins: readonly CheckinPassing[],
  clock: RaceClock,
): { checkpoint: SplitCheckpoint; split: RunnerSplit } | null {
  const byCheckin = earliestCheckins(checkins);
  for (let i = checkpoints.length - 1; i >= 0; i--) {
    const cp = checkpoints[i];
    const c = byCheckin.get(cp.id);
    if (c !== undefined) {
      return { checkpoint: cp, split: { checkpointId: cp.id, t: c, source: 'check-in', estimated: false } };
    }
    if (cp.kind !== 'finish' && cp.distanceM > state.distanceM) continue;
    const g = gpsSplit(cp, state, clock);
    if (g) return { checkpoint: cp, split: g };
  }
  return null;
}

/** Time and pace of each section between consecutive splits (for the runner's splits table). */
export interface SectionPace {
  fromCheckpointId: number;
  toCheckpointId: number;
  distanceM: number;
  durationMs: number;
  /** Seconds per km; null for a section of no length. */
  paceSecPerKm: number | null;
}

export function sectionPaces(
  splits: readonly { checkpointId: number; t: number }[],
  checkpoints: readonly Pick<SplitCheckpoint, 'id' | 'distanceM'>[],
): SectionPace[] {
  const distance = new Map(checkpoints.map((c) => [c.id, c.distanceM]));
  const known = splits.filter((s) => distance.has(s.checkpointId));
  const out: SectionPace[] = [];
  for (let i = 1; i < known.length; i++) {
    const a = known[i - 1];
    const b = known[i];
    const d = distance.get(b.checkpointId)! - distance.get(a.checkpointId)!;
    const ms = b.t - a.t;
    out.push({
      fromCheckpointId: a.checkpointId,
      toCheckpointId: b.checkpointId,
      distanceM: d,
      durationMs: ms,
      paceSecPerKm: d > 0 ? Math.round(ms / d) : null,
    });
  }
  return out;
}
