import { z } from 'zod';
import { DEVICE_SOURCES, GENDERS } from './constants';

/**
 * What the API returns, defined once as zod schemas with the TypeScript types inferred from them. The server checks
 * every response against these on the way out (a field not listed here can never leak, e.g. a device's TrackingKey
 * in a non-admin response) and publishes them in its OpenAPI document; the web app reads the same types.
 *
 * Field names are PascalCase, as API clients know them. Times are ISO 8601 strings with an offset; ids are positive
 * integers. A schema with an `id` (`.meta({ id })`) is a named component of the OpenAPI document, referenced where
 * it is used.
 */

export { DEVICE_SOURCES, GENDERS } from './constants';

const isoTime = z.string().describe('ISO 8601 date-time with offset');

export const genderSchema = z.enum(GENDERS);
export type Gender = z.infer<typeof genderSchema>;

export const deviceSourceSchema = z.enum(DEVICE_SOURCES);
export type DeviceSource = z.infer<typeof deviceSourceSchema>;

export const raceSchema = z
  .object({
    RaceId: z.number().int(),
    Name: z.string(),
    Description: z.string(),
    Location: z.string(),
    /** ISO 8601 with offset, or null when not set. */
    StartTime: isoTime.nullable(),
    HasStarted: z.boolean(),
    HasFinished: z.boolean(),
    Approved: z.boolean(),
    DirectorId: z.string(),
    /** Race clock: when timing began (StartTime if already past at Start, else the moment Start was pressed). */
    ClockStartedAt: isoTime.nullable().optional(),
    /** When the race was ended. */
    ClockStoppedAt: isoTime.nullable().optional(),
    /** Privacy: the public sees positions and the leaderboard this many minutes late (0: live). */
    PublicDelayMin: z.number().int().optional(),
    /** Privacy: whether runners' trails are public. */
    TrailsPublic: z.boolean().optional(),
    /** Retention: positions are deleted this many days after the race's end; null: kept. */
    RetentionDays: z.number().int().nullable().optional(),
  })
  .meta({ id: 'Race' });
export type Race = z.infer<typeof raceSchema>;

/** Runner as seen by the public: no device internals. */
export const publicRunnerSchema = z
  .object({
    RunnerId: z.number().int(),
    RaceId: z.number().int(),
    FirstName: z.string(),
    LastName: z.string(),
    BibNumber: z.string().nullable(),
    Gender: genderSchema,
    Age: z.number().int().nullable(),
  })
  .meta({ id: 'PublicRunner' });
export type PublicRunner = z.infer<typeof publicRunnerSchema>;

/** Runner as seen by its race's director: adds the held device. */
export const runnerSchema = publicRunnerSchema
  .extend({
    DeviceId: z.number().int().nullable(),
    /** Name of the held device, so the director sees which tracker a runner carries. */
    DeviceName: z.string().nullable().describe('Name of the device the runner holds'),
    /** Privacy: the runner stays on the leaderboard, with no dot or trail for the public. */
    HidePosition: z.boolean().optional(),
  })
  .meta({ id: 'Runner' });
export type Runner = z.infer<typeof runnerSchema>;

export const waypointSchema = z.object({
  Name: z.string(),
  Latitude: z.number(),
  Longitude: z.number(),
  /** Distance along the course in metres, when projected. */
  DistanceM: z.number().nullable(),
});
export type Waypoint = z.infer<typeof waypointSchema>;

export const courseSchema = z
  .object({
    CourseId: z.number().int(),
    RaceId: z.number().int(),
    /** A working link that shows this course on a map. */
    MapUrl: z.string().describe('Page showing the course on a map (inline SVG)'),
    Name: z.string().nullable(),
    LengthM: z.number(),
    ClimbM: z.number(),
    DescentM: z.number(),
    PointCount: z.number().int(),
    HasElevation: z.boolean(),
    Waypoints: z.array(waypointSchema),
    GeoJsonUrl: z.string(),
    GpxUrl: z.string(),
  })
  .meta({ id: 'Course' });
export type Course = z.infer<typeof courseSchema>;

/** A race request as an admin reviews it: the race, how many runners it has, and its course. */
export const raceRequestSchema = raceSchema
  .extend({
    RunnerCount: z.number().int(),
    Course: courseSchema.nullable(),
  })
  .meta({ id: 'RaceRequest' });
export type RaceRequest = z.infer<typeof raceRequestSchema>;

export const deviceSchema = z
  .object({
    DeviceId: z.number().int(),
    Name: z.string(),
    /** e.g. "87%", "GOOD", "LOW"; null when never reported. */
    BatteryState: z.string().nullable(),
    LastPingTime: isoTime.nullable(),
    RaceId: z.number().int().nullable(),
    AssignedRunnerId: z.number().int().nullable(),
    Source: deviceSourceSchema,
    HardwareId: z.string().nullable(),
  })
  .meta({ id: 'Device' });
export type Device = z.infer<typeof deviceSchema>;

/** Admin view of a device: the only response that carries the tracking key. */
export const adminDeviceSchema = deviceSchema
  .extend({
    TrackingKey: z.string(),
    RaceName: z.string().nullable(),
    RunnerName: z.string().nullable(),
  })
  .meta({ id: 'AdminDevice' });
export type AdminDevice = z.infer<typeof adminDeviceSchema>;

/**
 * Uplinks that named the device but carried no position (a LoRaWAN payload formatter that gives none, a Meshtastic
 * position packet without a fix): answered as usual and counted here, so an admin sees a misconfigured formatter.
 */
export const deviceUplinkStateSchema = z.object({
  UplinksWithoutPosition: z.number().int().describe('How many uplinks without a position the device sent'),
  LastUplinkWithoutPositionAt: z
    .string()
    .nullable()
    .describe('When the last uplink without a position came (ISO 8601); null: none'),
});
export type DeviceUplinkState = z.infer<typeof deviceUplinkStateSchema>;

/** A device of a race that no runner holds, as the director picks one for a runner. */
export const availableDeviceSchema = z
  .object({ DeviceId: z.number().int(), Name: z.string() })
  .meta({ id: 'AvailableDevice' });
export type AvailableDevice = z.infer<typeof availableDeviceSchema>;

/** A registered SPOT shared-page feed. The password is write-only: only whether there is one is shown. */
export const spotFeedSchema = z.object({
  Id: z.number(),
  FeedId: z.string(),
  HasPassword: z.boolean(),
  LastPolledAt: z.string().nullable(),
  LastError: z.string().nullable(),
  CreatedAt: z.string(),
});
export type SpotFeed = z.infer<typeof spotFeedSchema>;

/**
 * A delete answers 200 with a small JSON body (the web client parses every response body as JSON); each route adds
 * the id it deleted (`RaceId`, `RunnerId`, …).
 */
export const deletedSchema = z.object({ Deleted: z.literal(true) });
export type Deleted = z.infer<typeof deletedSchema>;

/** Every 4xx/5xx body. */
export const apiErrorSchema = z.object({ error: z.string(), message: z.string() }).meta({ id: 'Error' });
export type ApiError = z.infer<typeof apiErrorSchema>;

/** The sign-in settings the browser is given at runtime (GET /api/config → auth). */
export const authSettingsSchema = z.object({
  authority: z.string(),
  clientId: z.string(),
  /** The single API scope (e.g. api://racebeacon/races.manage). */
  scope: z.string(),
  adminGroupId: z.string(),
  redirectUri: z.string(),
  postLogoutRedirectUri: z.string(),
});
export type AuthSettings = z.infer<typeof authSettingsSchema>;

/** GET /api/config: what the web app needs at runtime (product name, sign-in, map tiles). */
export const publicConfigSchema = z.object({
  productName: z.string(),
  contactEmail: z.string(),
  auth: authSettingsSchema,
  map: z.object({ tileUrl: z.string(), tileAttribution: z.string() }),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;

// ---------------------------------------------------------------- race operations (issue 12)

/** A runner status set by people: did not start, did not finish, disqualified (null: none / cleared). */
export const manualRunnerStatusSchema = z.enum(['DNS', 'DNF', 'DSQ']);
export type ManualRunnerStatus = z.infer<typeof manualRunnerStatusSchema>;

/** A checkpoint: the course's start, its named waypoints on the course, its finish; with an optional cutoff. */
export const checkpointSchema = z
  .object({
    CheckpointId: z.number().int(),
    Name: z.string(),
    /** Distance along the course from the start. */
    DistanceKm: z.number(),
    /** The runner must have passed here by this time (ISO), or null. */
    CutoffTime: isoTime.nullable(),
  })
  .meta({ id: 'Checkpoint' });
export type Checkpoint = z.infer<typeof checkpointSchema>;

/** One change of a runner's status, with who and when. */
export const runnerStatusLogEntrySchema = z
  .object({
    RunnerId: z.number().int(),
    BibNumber: z.string().nullable(),
    FirstName: z.string(),
    LastName: z.string(),
    /** The status set, or null when it was cleared. */
    Status: manualRunnerStatusSchema.nullable(),
    Reason: z.string().nullable(),
    At: isoTime,
    /** Who set it (user id, or e.g. "check-in: <checkpoint>"). */
    By: z.string().nullable(),
    /** Distance reached when a DNF was recorded, km. */
    DistanceKm: z.number().nullable(),
  })
  .meta({ id: 'RunnerStatusLogEntry' });
export type RunnerStatusLogEntry = z.infer<typeof runnerStatusLogEntrySchema>;

/** A runner's current status as set by people (the answer to setting it). */
export const runnerStatusInfoSchema = z
  .object({
    RunnerId: z.number().int(),
    RaceId: z.number().int(),
    Status: manualRunnerStatusSchema.nullable(),
    Reason: z.string().nullable(),
    StatusTime: isoTime.nullable(),
    StatusBy: z.string().nullable(),
    /** Distance reached when a DNF was recorded, km. */
    DistanceKm: z.number().nullable(),
  })
  .meta({ id: 'RunnerStatusInfo' });
export type RunnerStatusInfo = z.infer<typeof runnerStatusInfoSchema>;

/** One checkpoint passed by a runner: from GPS (interpolated between two fixes) or from an aid-station check-in. */
export const splitSchema = z.object({
  CheckpointId: z.number().int(),
  PassingTime: isoTime,
  Source: z.enum(['gps', 'check-in']),
  /** Interpolated between fixes (GPS), not observed. */
  Estimated: z.boolean(),
});
export type Split = z.infer<typeof splitSchema>;

export const runnerSplitsSchema = z
  .object({
    RunnerId: z.number().int(),
    BibNumber: z.string().nullable(),
    Splits: z.array(splitSchema),
  })
  .meta({ id: 'RunnerSplits' });
export type RunnerSplits = z.infer<typeof runnerSplitsSchema>;
