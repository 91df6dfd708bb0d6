/**
 * Types of the live-race domain: a prepared course, a runner's fixes and race state, and leaderboard rows.
 * Everything here is plain data (JSON-safe except the typed arrays and the index of a PreparedCourse), so the server
 * can keep states in memory and push rows over SSE unchanged.
 */
import type Flatbush from 'flatbush';
import type { CourseCandidate } from './geometry';
import type { Gender } from '../entities';
import type { LeaderboardRow, RunnerStatus } from '../live-messages';

/** The leaderboard row and runner status are wire shapes: defined with the live messages. */
export type { LeaderboardRow, RunnerStatus };

export interface CourseInput {
  /** [lon, lat, ele] in GeoJSON order, as parsed from GPX. */
  points: [number, number, number | null][];
  waypoints?: { name: string; lat: number; lon: number }[];
}

export interface CourseWaypoint {
  name: string;
  lat: number;
  lon: number;
  /** Distance along the course of this pass (a waypoint on a lap course appears once per lap). */
  distanceM: number;
}

export interface PreparedCourse {
  lengthM: number;
  /** cumDist[i] = metres from the start to vertex i. */
  cumDist: Float64Array;
  lon: Float64Array;
  lat: Float64Array;
  /** Elevation per vertex, null where the GPX had none. */
  ele: (number | null)[];
  hasElevation: boolean;
  start: { lat: number; lon: number };
  finish: { lat: number; lon: number };
  /** Start and finish within 50 m of each other (a loop, or an out-and-back back to the start). */
  isLoop: boolean;
  /** Waypoints projected onto the course, sorted by distance. */
  waypoints: CourseWaypoint[];
  /** Spatial index of the segments (segment i joins vertex i and i + 1), in degrees. */
  index: Flatbush;
}

export interface Fix {
  /** Epoch milliseconds, device time. */
  t: number;
  lat: number;
  lon: number;
  /**
   * The device's own estimate of its position error (metres), when it sends one: the matcher weighs a fix with a
   * larger error less (σ = max(15 m, accuracy)). Optional: fixes without it are weighed as before.
   */
  accuracy?: number | null;
}

export interface MatchOptions {
  /** A fix farther than this from the course marks the runner off-course and does not advance them. */
  offCourseMeters: number;
  /** Fastest plausible progress along the course; bounds the search window. */
  maxSpeedMps: number;
  /**
   * No fix for longer than this while racing: stale. Per runner: pass k × the runner's device's expected interval
   * (`staleAfterMs(source, override, k)` in alerts) to computeRunnerState / addFix / refreshRunnerState and the state
   * keeps it (`RunnerState.staleAfterMs`), so later refreshes and the leaderboard use it too. The default (two missed
   * 150 s intervals) is for a runner whose device is not known.
   */
  staleAfterMs: number;
}

export const DEFAULT_MATCH_OPTIONS: MatchOptions = {
  offCourseMeters: 200,
  maxSpeedMps: 7,
  staleAfterMs: 2 * 150_000,
};

export interface RaceClock {
  /** When the race clock started (StartTime if already past when Start was pressed, else the press), or null. */
  startMs: number | null;
  /** When End Race stopped the clock, or null. */
  stopMs: number | null;
}

export interface ProgressPoint {
  t: number;
  distanceM: number;
}

export interface RunnerState {
  distanceM: number;
  percent: number;
  status: RunnerStatus;
  finishMs: number | null;
  /** Newest fix received (also before the start, so the map can show runners on the start line). */
  lastFix: Fix | null;
  /** Time of the newest fix within the off-course threshold, since the start. */
  lastOnCourseMs: number | null;
  elapsedMs: number | null;
  /** Average pace since the start, seconds per km. */
  paceSecPerKm: number | null;
  /** Pace over the last ~20 minutes of progress, seconds per km. */
  recentPaceSecPerKm: number | null;
  /** Terrain-aware ETA at the finish (`eta.ts`; flat pace until the runner's own is measured), and its range. */
  etaFinishMs: number | null;
  etaFinishEarliestMs: number | null;
  etaFinishLatestMs: number | null;
  nextWaypoint: {
    name: string;
    distanceM: number;
    etaMs: number | null;
    etaEarliestMs?: number | null;
    etaLatestMs?: number | null;
  } | null;
  /** One point per on-course fix since the start, distances never decreasing. */
  progress: ProgressPoint[];
  /** The newest fix since the start was farther than offCourseMeters from the course. */
  isOffCourse: boolean;
  /**
   * A forward jump too fast to be plausible, waiting for the next fix to confirm it (kept so the incremental path
   * behaves exactly like a recomputation).
   */
  pendingJump: ProgressPoint | null;
  /**
   * This runner's own staleness threshold (ms without a fix), from its device's source and interval; absent: the
   * options' (DEFAULT_MATCH_OPTIONS.staleAfterMs when none). Set from the `staleAfterMs` option of the call that
   * computed the state, and kept by later calls that do not give one.
   */
  staleAfterMs?: number;
  /**
   * The matcher's recent fixes (the passes near each) decoded together on every new fix (`course/hmm.ts`), and the
   * anchor before them. Internal to the matcher; absent before the first matched fix.
   */
  matchWindow?: MatchWindow;
}

/** The stretches of a runner's progress (a minute apart at least) ending within the last hour, and where they stand. */
export interface CruiseFold {
  startMs: number;
  /** Progress points folded, and the last of them (a state whose progress differs rebuilds the fold). */
  n: number;
  lastT: number;
  lastD: number;
  /** Where the next stretch starts. */
  prevT: number;
  prevD: number;
  /** Each kept stretch's end time and speed (m/s). */
  t: number[];
  v: number[];
}

export interface MatchWindow {
  anchor: ProgressPoint;
  /** The window's fixes: time, the passes near each, and the fix's position. */
  fixes: { t: number; cands: CourseCandidate[]; lat?: number; lon?: number; accuracyM?: number }[];
  /** Per window fix, from the latest decoding: its progress, and whether it was believed (not an outlier). */
  distances: number[];
  placed: boolean[];
  /** Time of the newest fix already decided (a progress point, or an outlier): later ones may wait for the next. */
  decidedT: number;
  /** The running fold of the runner's moving stretches (`cruiseSpeed`); rebuilt from the progress when absent. */
  cruise?: CruiseFold;
}

export interface LeaderboardRunner {
  /** How often the runner's device is expected to report (ms): silent beyond it, the row carries an estimate. */
  expectedIntervalMs?: number;
  RunnerId: number;
  BibNumber: string | null;
  FirstName: string;
  LastName: string;
  Gender: Gender;
  Age: number | null;
  BatteryState: string | null;
  state: RunnerState;
  /** A status set by people (DNS/DNF/DSQ) and the distance a DNF reached (m): overrides the matcher's status. */
  manualStatus?: { status: 'DNS' | 'DNF' | 'DSQ'; distanceM: number | null } | null;
  /** The runner's aid-station check-ins: one at a checkpoint overrides the GPS passing time there. */
  checkins?: readonly { checkpointId: number; t: number }[];
}

export interface LeaderboardFilter {
  gender?: Gender;
  /** One of AGE_GROUPS, or any 'A-B' / 'N+' / 'U20' range. */
  ageGroup?: string;
  /** Bib or name, case- and accent-insensitive. */
  search?: string;
}
