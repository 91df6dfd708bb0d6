/**
 * An estimated position for a silent runner: when the tracker has said nothing for longer than its expected
 * interval, where the runner probably is now along the course, from the terrain-aware pace model (`eta.ts`), with
 * the range of the earliest and latest paces. Shown apart from real fixes and never used for ranking, gaps or splits.
 * It never passes the next waypoint (aid station / checkpoint) the runner has not reached, nor the finish, and it
 * disappears with the next real fix (the runner is no longer silent).
 */
import { distanceAt } from './eta';
import { pointAtDistance } from './geometry';
import type { PreparedCourse, RunnerState } from './types';

/** Silent: no fix for longer than this many expected intervals (a ping a little late is not silence). */
const SILENT_FACTOR = 1.2;
/** Expected interval when the runner's device is not known (a 2.5-minute satellite tracker). */
export const DEFAULT_EXPECTED_INTERVAL_MS = 150_000;

export interface PositionEstimate {
  distanceM: number;
  minM: number;
  maxM: number;
  lat: number;
  lon: number;
  /** When the estimate is for (epoch ms). */
  atMs: number;
  /** The distance it stops at: the next waypoint not reached, or the finish. */
  capM: number;
}

/**
 * The estimate for a runner at `nowMs` (state refreshed for `nowMs`), or null: not racing or stale (finished, not
 * started, off-course), not silent, or no pace yet.
 */
export function estimatePosition(
  course: PreparedCourse,
  s: RunnerState,
  startMs: number | null,
  nowMs: number,
  expectedIntervalMs: number = DEFAULT_EXPECTED_INTERVAL_MS,
): PositionEstimate | null {
  if (startMs === null || s.finishMs !== null || s.lastFix === null) return null;
  if (s.status !== 'racing' && s.status !== 'stale') return null;
  if (nowMs - s.lastFix.t <= SILENT_FACTOR * expectedIntervalMs) return null;
  const p = s.progress;
  if (p.length === 0) return null;
  const last = p[p.length - 1];
  const at = distanceAt(course, p, startMs, nowMs);
  if (at === null) return null;
  const next = course.waypoints.find((w) => w.distanceM > last.distanceM + 1);
  const capM = next ? next.distanceM : course.lengthM;
  const clamp = (d: number) => Math.min(capM, Math.max(last.distanceM, d));
  const distanceM = clamp(at.distanceM);
  const point = pointAtDistance(course, distanceM);
  return {
    distanceM,
    minM: clamp(at.minM),
    maxM: clamp(at.maxM),
    lat: point.lat,
    lon: point.lon,
    atMs: nowMs,
    capM,
  };
}
