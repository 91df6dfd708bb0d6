/**
 * Cutoffs: a racing runner expected at a checkpoint after its cutoff is at risk (the leaderboard's CutoffRisk and
 * the HQ's `cutoff-risk` alert). The ETA is read through `etaAtDistance`, the one place a checkpoint ETA is made.
 */
import { etaRange } from './eta';
import type { CheckinPassing, SplitCheckpoint } from './splits';
import type { PreparedCourse, RunnerState, RunnerStatus } from './types';

/** The course and race start, for the terrain-aware ETA (`eta.ts`); without them the flat pace is used. */
export interface EtaTerrain {
  course: PreparedCourse;
  startMs: number | null;
}

/** Half recent, half average pace (the matcher's blend for its own ETAs). */
function pace(s: Pick<RunnerState, 'paceSecPerKm' | 'recentPaceSecPerKm'>): number | null {
  const a = s.paceSecPerKm;
  const r = s.recentPaceSecPerKm;
  if (a !== null && r !== null) return (a + r) / 2;
  return a ?? r;
}

/**
 * When a runner on the course is expected at `distanceM` (epoch ms): with `terrain`, the grade-adjusted ETA the
 * leaderboard shows (`etaRange`), else (or while that model has too little to go on) from their last progress and
 * flat pace; never earlier than `nowMs` for a distance not reached yet. Null without a pace (too little progress yet).
 */
export function etaAtDistance(
  s: Pick<RunnerState, 'progress' | 'paceSecPerKm' | 'recentPaceSecPerKm'>,
  distanceM: number,
  nowMs: number,
  terrain?: EtaTerrain,
): number | null {
  const p = s.progress;
  if (p.length === 0) return null;
  const last = p[p.length - 1];
  if (terrain && terrain.startMs !== null) {
    const range = etaRange(terrain.course, p, terrain.startMs, distanceM);
    if (range !== null) return Math.max(nowMs, range.etaMs);
  }
  const secPerKm = pace(s);
  if (secPerKm === null) return null;
  // ms per metre is seconds per kilometre.
  return Math.max(nowMs, Math.round(last.t + Math.max(0, distanceM - last.distanceM) * secPerKm));
}

const ON_COURSE: ReadonlySet<RunnerStatus> = new Set(['racing', 'stale', 'off-course']);

export interface CutoffRisk {
  checkpoint: SplitCheckpoint;
  /** The ETA there (epoch ms), or null when there is no pace yet and the cutoff has already passed. */
  etaMs: number | null;
}

/**
 * The cutoff a runner on the course is expected to miss: the next checkpoint ahead with a cutoff (not reached by
 * progress or check-in) whose cutoff is before the runner's ETA there — or already past while they have not arrived.
 * Null for a runner not on the course (finished, not started, dns/dnf/dsq) or on time. `checkpoints` in course order.
 */
export function cutoffRisk(
  s: Pick<RunnerState, 'status' | 'distanceM' | 'progress' | 'paceSecPerKm' | 'recentPaceSecPerKm'>,
  checkpoints: readonly SplitCheckpoint[],
  checkins: readonly CheckinPassing[],
  nowMs: number,
  terrain?: EtaTerrain,
): CutoffRisk | null {
  if (!ON_COURSE.has(s.status)) return null;
  // The furthest checkpoint checked in at: the runner passed every one before it too (the tracker lagging behind).
  let checkedTo = -1;
  if (checkins.length > 0) {
    const ids = new Set(checkins.map((c) => c.checkpointId));
    for (let i = 0; i < checkpoints.length; i++) if (ids.has(checkpoints[i].id)) checkedTo = i;
  }
  for (let i = checkedTo + 1; i < checkpoints.length; i++) {
    const cp = checkpoints[i];
    if (cp.distanceM <= s.distanceM || cp.cutoffMs === null) continue;
    const eta = etaAtDistance(s, cp.distanceM, nowMs, terrain);
    if (eta !== null ? eta > cp.cutoffMs : nowMs > cp.cutoffMs) return { checkpoint: cp, etaMs: eta };
    return null;
  }
  return null;
}
