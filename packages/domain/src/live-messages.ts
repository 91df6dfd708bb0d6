import { z } from 'zod';
import { genderSchema } from './entities';
import { RUNNER_STATUSES } from './constants';

/**
 * Wire shapes of the live race endpoints (`/api/open/races/{id}/…`) and their Server-Sent Events, shared by the
 * server that sends them and the browser that reads them. Defined as zod schemas with the types inferred; the
 * server serialises these once per change for every viewer rather than checking each message.
 */

export { RUNNER_STATUSES } from './constants';

export const runnerStatusSchema = z.enum(RUNNER_STATUSES);
export type RunnerStatus = z.infer<typeof runnerStatusSchema>;

/** One runner's line of the live leaderboard. */
export const leaderboardRowSchema = z.object({
  Rank: z.number().int().nullable(),
  RunnerId: z.number().int(),
  BibNumber: z.string().nullable(),
  FirstName: z.string(),
  LastName: z.string(),
  Gender: genderSchema,
  Age: z.number().int().nullable(),
  Status: runnerStatusSchema,
  DistanceKm: z.number().nullable(),
  Percent: z.number().nullable(),
  ElapsedSeconds: z.number().nullable(),
  PaceSecondsPerKm: z.number().nullable(),
  EtaFinish: z.string().nullable(),
  FinishTime: z.string().nullable(),
  LastPingTime: z.string().nullable(),
  Latitude: z.number().nullable(),
  Longitude: z.number().nullable(),
  BatteryState: z.string().nullable(),
  /** Seconds behind the leader (finish-time gap, or time since the leader passed this runner's distance). */
  GapSeconds: z.number().nullable(),
  /** Kilometres behind the leader. */
  GapKm: z.number().nullable(),
  /** The next course waypoint (aid station) ahead of the runner, while racing on a course that has waypoints. */
  NextWaypoint: z.string().nullable(),
  /** Its distance from the start along the course. */
  NextWaypointKm: z.number().nullable(),
  /** When the runner is expected there (ISO), from the same pace as EtaFinish. */
  EtaNextWaypoint: z.string().nullable(),
  /**
   * The range of EtaFinish and EtaNextWaypoint (ISO; null where the ETA is not shown or the runner's pace is not
   * measured yet): from the spread of the runner's section paces, the grade ahead and the aid-station stops.
   */
  EtaFinishEarliest: z.string().nullable().optional(),
  EtaFinishLatest: z.string().nullable().optional(),
  EtaNextWaypointEarliest: z.string().nullable().optional(),
  EtaNextWaypointLatest: z.string().nullable().optional(),
  /**
   * A silent runner (no fix for longer than their tracker's expected interval and a grace, `silentAfterMs`): the
   * estimated distance along the course at EstimatedAt, its range, and where that is on the map. Never used for the rank, gaps or splits; it
   * stops at the next waypoint not reached and is null again with the next real fix.
   */
  EstimatedDistanceKm: z.number().nullable().optional(),
  EstimatedDistanceKmMin: z.number().nullable().optional(),
  EstimatedDistanceKmMax: z.number().nullable().optional(),
  EstimatedAt: z.string().nullable().optional(),
  EstimatedLatitude: z.number().nullable().optional(),
  EstimatedLongitude: z.number().nullable().optional(),
  /** The last checkpoint the runner passed (by GPS or check-in), its distance and when. */
  LastCheckpoint: z.string().nullable().optional(),
  LastCheckpointKm: z.number().nullable().optional(),
  LastCheckpointTime: z.string().nullable().optional(),
  /** On the course and expected at the next checkpoint with a cutoff after that cutoff (or already late). */
  CutoffRisk: z.boolean().optional(),
  /**
   * Rank within the filtered set (gender and/or age group), only on rows of `filterLeaderboard` with such a filter;
   * Rank stays the overall one.
   */
  CategoryRank: z.number().int().nullable().optional(),
});
export type LeaderboardRow = z.infer<typeof leaderboardRowSchema>;

/** [fix time in epoch ms, lat, lon]: compact, because there are many. */
export const trailPointSchema = z.tuple([z.number(), z.number(), z.number()]);
export type TrailPoint = z.infer<typeof trailPointSchema>;

/** GET …/course-track: what the live map and elevation profile draw (a 20k-point GPX is thinned). */
export const courseTrackSchema = z.object({
  HasCourse: z.boolean(),
  LengthM: z.number(),
  /** [lat, lon] for Leaflet. */
  Line: z.array(z.tuple([z.number(), z.number()])),
  KmMarkers: z.array(z.object({ Km: z.number(), Latitude: z.number(), Longitude: z.number() })),
  Waypoints: z.array(
    z.object({ Name: z.string(), Latitude: z.number(), Longitude: z.number(), DistanceM: z.number() }),
  ),
  HasElevation: z.boolean(),
  /** [distance m, elevation m] samples. */
  Profile: z.array(z.tuple([z.number(), z.number()])),
});
export type CourseTrack = z.infer<typeof courseTrackSchema>;

/** GET …/positions: one entry per runner. */
export const runnerPositionsSchema = z.object({
  RunnerId: z.number().int(),
  Latest: trailPointSchema.nullable(),
  Trail: z.array(trailPointSchema),
  /** A silent runner's estimated position now (the leaderboard row's Estimated… fields); absent otherwise. */
  Estimated: z
    .object({
      DistanceKm: z.number(),
      DistanceKmMin: z.number(),
      DistanceKmMax: z.number(),
      Latitude: z.number(),
      Longitude: z.number(),
      At: z.string(),
    })
    .optional(),
});
export type RunnerPositions = z.infer<typeof runnerPositionsSchema>;

/** SSE `snapshot`: the whole live state (sent on connect, and after the race changed). */
export const liveSnapshotSchema = z.object({
  Seq: z.number().int(),
  At: z.string(),
  RaceId: z.number().int(),
  ClockStartedAt: z.string().nullable(),
  ClockStoppedAt: z.string().nullable(),
  HasCourse: z.boolean(),
  Rows: z.array(leaderboardRowSchema),
  Trails: z.array(z.object({ RunnerId: z.number().int(), Trail: z.array(trailPointSchema) })),
});
export type LiveSnapshot = z.infer<typeof liveSnapshotSchema>;

/** SSE `update`: what changed since the previous message. */
export const liveUpdateSchema = z.object({
  Seq: z.number().int(),
  At: z.string(),
  /** Whole rows of runners whose state changed. */
  Rows: z.array(leaderboardRowSchema),
  /** [RunnerId, Rank]: runners whose rank alone changed. */
  Ranks: z.array(z.tuple([z.number().int(), z.number().int().nullable()])),
  /** [RunnerId, fix time ms, lat, lon]: new fixes. */
  Fixes: z.array(z.tuple([z.number().int(), z.number(), z.number(), z.number()])),
});
export type LiveUpdate = z.infer<typeof liveUpdateSchema>;

/*
 * The compact live stream (`…/live?v=4`, issue 15's "light on the wire"): the same leaderboard and map in a fraction
 * of the bytes. Encoded and decoded by `live-codec.ts` (one codec, server and browser); the shapes are here.
 * Numbers are integers in fixed units (metres, 1e-5 degrees, seconds, minutes), delta-coded against what the viewer
 * already holds; positions are rounded to 1e-5 degrees (about 1 m) and predicted times (ETAs and their ranges) to
 * the whole minute, below what the page shows.
 */

/** A compact column value: a number, a string, or null. */
const compactValue = z.union([z.number(), z.string(), z.null()]);

/** SSE `snap` of the compact stream: the whole live state, one column per leaderboard field. */
export const liveCompactSnapshotSchema = z.object({
  V: z.literal(2),
  Seq: z.number().int(),
  At: z.string(),
  RaceId: z.number().int(),
  ClockStartedAt: z.string().nullable(),
  ClockStoppedAt: z.string().nullable(),
  HasCourse: z.boolean(),
  /** Rows, in leaderboard order. */
  N: z.number().int(),
  /** Field name → N values (numbers delta-coded down the column; see live-codec.ts). */
  Cols: z.record(z.string(), z.array(compactValue)),
  /** Rows (index − previous) whose LastPingTime, Latitude and Longitude are their trail's newest point (0 in Cols). */
  FromFix: z.array(z.number().int()).optional(),
  /** Field name → indexes of the rows that do not have the field at all. */
  Undef: z.record(z.string(), z.array(z.number().int())).optional(),
  /**
   * Per row: its trail, flat [time, lat, lon, …], the first point against the previous row's first, then deltas;
   * every point but the newest to 1e-4° and the whole second (about GPS noise), the newest exact (1e-5°, ms).
   */
  Trails: z.array(z.array(z.number())),
  /**
   * The course for placing fixes (`courseLine` in live-codec.ts): its line's points as [Δmetres along the course,
   * Δlat, Δlon in 1e-5° …]; absent without a course.
   */
  Line: z.array(z.number().int()).optional(),
  /**
   * With a Line: the trails against the course (Trails then empty), packed columns [counts, times, distances, Δlats,
   * Δlons, the newest points' milliseconds] (`encodeCourseTrails` in live-codec.ts).
   */
  CT: z.array(z.union([z.string(), z.array(compactValue)])).optional(),
  /** With CT: the trails' commonest interval between fixes (s). */
  TI: z.number().int().optional(),
  /**
   * The leader's progress (`LeaderCurve` in live-codec.ts): [RunnerId, first second, first metre, then Δseconds,
   * Δmetres per point]; gaps in seconds travel against it.
   */
  LC: z.array(z.number().int()).optional(),
  /**
   * The snapshot's integer columns, range-coded together (`range-code.ts`): the CT columns in order ('' in their
   * places), then each Cols column of integers and nulls ([] in its place) as two: 1 where a row's value is null,
   * and the values.
   */
  Z: z.string().optional(),
});
export type LiveCompactSnapshot = z.infer<typeof liveCompactSnapshotSchema>;

/** SSE `delta` of the compact stream: what changed since the previous message, against what the viewer holds. */
export const liveCompactDeltaSchema = z.object({
  Seq: z.number().int(),
  At: z.string(),
  /**
   * Patched rows in columns: [[RunnerId − previous …], [field bit mask …], then for each field bit set in any mask
   * (ascending) the values of the rows that have it] (nulls in Null; `compactDeltaRows` gives them as rows). A column
   * of integers is a string of zigzag base-32 digits (`pack` in live-codec.ts); the masks are
   * [indexes, …the message's masks]. With PI the RunnerId column is empty.
   */
  P: z.array(z.union([z.string(), z.array(compactValue)])),
  /** [RunnerId, field index, …]: fields a patched row no longer has. */
  Undef: z.array(z.number().int()).optional(),
  /** [RunnerId − previous, bit mask, …]: fields of patched rows that became null. */
  Null: z.array(z.number().int()).optional(),
  /** The leader's distance (m): a patched row's GapKm travels as its difference from leader − DistanceKm. */
  L: z.number().int().optional(),
  /**
   * Ranks that are not what the viewer works out (the rows ranked by finish time, then distance: `live-codec.ts`):
   * [RunnerId, Rank or null, …].
   */
  K: z.array(z.number().int().nullable()).optional(),
  /** Ranks off the one the viewer works out, as [RunnerId − previous, Rank − that rank, …] (K: where either is null). */
  J: z.array(z.number().int()).optional(),
  /** The course's length (m): a patched row's Percent is implied when it is its DistanceKm's share of it. */
  C: z.number().optional(),
  /**
   * New fixes: [the patched rows' counts of fixes (in P's order), those fixes' times, their Δlats, their Δlons (four
   * columns, packed like P's), then for other runners RunnerId − previous, count, then per fix time, Δlat, Δlon …],
   * each against the runner's newest fix (a count < 0: the last fix's Δlat, Δlon are against the snapshot Line's
   * point at the row's distance). A time in seconds from that newest fix's time + I (from the message's time, whole
   * second, for a runner with none held).
   */
  F: z.array(z.union([z.number(), z.string(), z.array(z.number())])).optional(),
  /** The fixes' commonest interval (s) since each runner's newest fix held; 0 when absent. */
  I: z.number().int().optional(),
  /** The leader's pace (s/km): a patched row's GapSeconds travels as its difference from the gap it predicts. */
  LP: z.number().int().optional(),
  /** A new leader's progress, as the snapshot's LC. */
  LC: z.array(z.number().int()).optional(),
  /**
   * The patched runners told by what is due (then P's RunnerId column is empty): [lag s, RunnerIds due but not
   * patched, RunnerIds patched but not due], as differences, packed (`patchedIdsFrom` in live-codec.ts).
   */
  PI: z.tuple([z.number().int(), z.string(), z.string()]).optional(),
  /** The leader's progress since the last point held: [Δseconds, Δmetres, …]. */
  LA: z.array(z.number().int()).optional(),
  /**
   * The message's packed integer columns (P's RunnerIds, mask indexes and value columns, F's four columns, PI's two),
   * range-coded together (`range-code.ts`), in that order; each is '' in its place.
   */
  Z: z.string().optional(),
});
export type LiveCompactDelta = z.infer<typeof liveCompactDeltaSchema>;

export * from './live-codec';
