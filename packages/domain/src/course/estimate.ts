/**
 * An estimated position for a silent runner: when the tracker has said nothing for longer than its expected
 * interval and a grace (`silentAfterMs`), where the runner probably is now along the course, from the terrain-aware pace model (`eta.ts`), with
 * the range of the earliest and latest paces. Shown apart from real fixes and never used for ranking, gaps or splits.
 * It never passes the next waypoint (aid station / checkpoint) the runner has not reached, nor the finish, and it
 * disappears with the next real fix (the runner is no longer silent). Its range's far end may lie past that waypoint
 * (a runner silent long enough may well have passed it: `rangeEnd`); the near end and the estimate never do.
 */
import { distanceAt, paceModel } from './eta';
import { pointAtDistance } from './geometry';
import type { LeaderboardRow, PreparedCourse, ProgressPoint, RunnerState } from './types';

const SILENT_GRACE_FACTOR = 0.25;
const SILENT_GRACE_MIN_MS = 60_000;
/**
 * Silent: no fix for longer than the expected interval plus a grace of a quarter of it, at least a minute (a ping a
 * little late is not silence). Without the grace, a tracker reporting on time was "silent" for a moment before every
 * ping whenever its ping came a few seconds late, and an estimate appeared and went again on every viewer's screen
 * (half the compact stream's row patches in bench/wire.bench.ts). The one rule: the leaderboard, positions and the
 * replay read it through `estimatePosition`.
 */
export function silentAfterMs(expectedIntervalMs: number): number {
  return expectedIntervalMs + Math.max(SILENT_GRACE_MIN_MS, SILENT_GRACE_FACTOR * expectedIntervalMs);
}
/**
 * The range: this many σ of the runner's pace either side (nominally 80 %; the pace model's spread is on the safe
 * side: 93 % measured on the accuracy suite, where 1.645 σ gave 96 % with ranges a third wider).
 */
const ESTIMATE_Z = 1.28;
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
  /** The distance it stops at: the next waypoint not reached, or the finish (maxM may lie beyond). */
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
  if (nowMs - s.lastFix.t <= silentAfterMs(expectedIntervalMs)) return null;
  const p = s.progress;
  if (p.length === 0) return null;
  const last = p[p.length - 1];
  const at = distanceAt(course, p, startMs, nowMs, ESTIMATE_Z);
  if (at === null) return null;
  const next = course.waypoints.find((w) => w.distanceM > last.distanceM + 1);
  const capM = next ? next.distanceM : course.lengthM;
  const clamp = (d: number) => Math.min(capM, Math.max(last.distanceM, d));
  const distanceM = clamp(at.distanceM);
  const point = pointAtDistance(course, distanceM);
  return {
    distanceM,
    minM: clamp(at.minM),
    maxM: rangeEnd(course, p, startMs, nowMs, at.maxM, capM),
    lat: point.lat,
    lon: point.lon,
    atMs: nowMs,
    capM,
  };
}

/**
 * The far end of the range. Up to the aid station the estimate stops at, the fast pace's distance. Beyond it (the
 * fast pace would have taken the runner past it while silent), the runner may well be there: the range runs on,
 * with the runner's usual stop (`aidStopMs` of the pace model) at each aid station passed, to the finish at most.
 * The estimate itself still stops at the aid station.
 */
function rangeEnd(
  course: PreparedCourse,
  progress: ProgressPoint[],
  startMs: number,
  nowMs: number,
  fastM: number,
  capM: number,
): number {
  const last = progress[progress.length - 1].distanceM;
  if (fastM <= capM) return Math.max(last, fastM);
  const model = paceModel(course, progress, startMs);
  if (model === null) return capM;
  let end = fastM;
  // The stops move the end back, which can leave out an aid station: at most two passes.
  for (let pass = 0; pass < 2; pass++) {
    const aids = course.waypoints.filter((w) => w.distanceM > last + 1 && w.distanceM < end).length;
    const at = distanceAt(course, progress, startMs, nowMs - aids * model.aidStopMs, ESTIMATE_Z);
    if (at === null) return capM;
    end = at.maxM;
  }
  return Math.min(course.lengthM, Math.max(capM, end));
}

const isoOf = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
const km = (m: number): number => Math.round(m) / 1000;

/** The leaderboard row's ETA ranges and estimated position (`leaderboardRowSchema`), all null when not known. */
export type TrackingRowFields = Pick<
  LeaderboardRow,
  | 'EtaFinishEarliest'
  | 'EtaFinishLatest'
  | 'EtaNextWaypointEarliest'
  | 'EtaNextWaypointLatest'
  | 'EstimatedDistanceKm'
  | 'EstimatedDistanceKmMin'
  | 'EstimatedDistanceKmMax'
  | 'EstimatedAt'
  | 'EstimatedLatitude'
  | 'EstimatedLongitude'
>;

/**
 * A row's ETA ranges (beside EtaFinish / EtaNextWaypoint, only where those are shown) and its estimated position
 * (a silent runner only). `s` refreshed for `nowMs`, with the leaderboard's status.
 */
export function trackingRowFields(
  course: PreparedCourse,
  s: RunnerState,
  startMs: number | null,
  nowMs: number,
  expectedIntervalMs?: number,
): TrackingRowFields {
  const e = estimatePosition(course, s, startMs, nowMs, expectedIntervalMs);
  const r = etaRangeFields(s);
  return {
    EtaFinishEarliest: r.EtaFinishEarliest,
    EtaFinishLatest: r.EtaFinishLatest,
    EtaNextWaypointEarliest: r.EtaNextWaypointEarliest,
    EtaNextWaypointLatest: r.EtaNextWaypointLatest,
    EstimatedDistanceKm: e ? km(e.distanceM) : null,
    EstimatedDistanceKmMin: e ? km(e.minM) : null,
    EstimatedDistanceKmMax: e ? km(e.maxM) : null,
    EstimatedAt: e ? isoNow(e.atMs) : null,
    EstimatedLatitude: e ? e.lat : null,
    EstimatedLongitude: e ? e.lon : null,
  };
}

type EtaRangeFields = Pick<
  TrackingRowFields,
  'EtaFinishEarliest' | 'EtaFinishLatest' | 'EtaNextWaypointEarliest' | 'EtaNextWaypointLatest'
>;

/**
 * The ETA ranges of a row, kept per progress array (they change only with the runner's progress, while the
 * leaderboard is built again every few seconds for the clock).
 */
const rangeCache = new WeakMap<object, { key: string; fields: EtaRangeFields }>();

export function etaRangeFields(s: RunnerState): EtaRangeFields {
  const next = s.nextWaypoint;
  const key = `${s.etaFinishMs}|${s.etaFinishEarliestMs}|${s.etaFinishLatestMs}|${next?.etaMs}|${next?.etaEarliestMs}|${next?.etaLatestMs}`;
  const hit = rangeCache.get(s.progress);
  if (hit && hit.key === key) return hit.fields;
  const fields: EtaRangeFields = {
    EtaFinishEarliest: s.etaFinishMs === null ? null : isoOf(s.etaFinishEarliestMs),
    EtaFinishLatest: s.etaFinishMs === null ? null : isoOf(s.etaFinishLatestMs),
    EtaNextWaypointEarliest: next && next.etaMs !== null ? isoOf(next.etaEarliestMs) : null,
    EtaNextWaypointLatest: next && next.etaMs !== null ? isoOf(next.etaLatestMs) : null,
  };
  rangeCache.set(s.progress, { key, fields });
  return fields;
}

/** The same instant for every row of one leaderboard build: formatted once. */
let lastNow: { ms: number; iso: string } | null = null;
function isoNow(ms: number): string {
  if (lastNow === null || lastNow.ms !== ms) lastNow = { ms, iso: new Date(ms).toISOString() };
  return lastNow.iso;
}
