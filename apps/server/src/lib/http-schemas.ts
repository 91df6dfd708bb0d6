import { DEVICE_SOURCES } from '@racebeacon/domain';
import { z } from 'zod';

/**
 * Route parameter and response schemas (zod). Responses are checked on the way out, so a field that is not listed
 * here can never leak (e.g. a device's TrackingKey in a non-admin response). They also feed the OpenAPI document.
 */

/** Ids are PostgreSQL `integer` identity columns. */
export const MAX_ID = 2_147_483_647;
const DECIMAL_ID = /^[1-9][0-9]{0,9}$/;
export const ID_RULE = `must be a decimal id from 1 to ${MAX_ID} (digits only)`;

/**
 * The id in a path segment, or null: decimal digits only (no sign, no leading zero, no whitespace, no `0x1`,
 * `1e0` or `0b1` that Number() would also read as 1) and within the column's range.
 */
export function parseId(value: unknown): number | null {
  if (typeof value !== 'string' || !DECIMAL_ID.test(value)) return null;
  const n = Number(value);
  return n <= MAX_ID ? n : null;
}

/**
 * The one id schema of every route parameter (`:id`, `:raceId`, …). platform/input-guard.ts applies the same rule
 * (parseId) to every id-named parameter before validation, answering 400 `invalid_id`.
 */
export const id = z.preprocess(
  (v) => parseId(v) ?? v,
  z
    .number({ error: ID_RULE })
    .int({ error: ID_RULE })
    .min(1, { error: ID_RULE })
    .max(MAX_ID, { error: ID_RULE }),
);

export const raceIdParams = z.object({ raceId: id });
export const idParams = z.object({ id });
export const raceRunnerParams = z.object({ raceId: id, runnerId: id });
export const raceCourseParams = z.object({ raceId: id, courseId: id });
export const deviceIdParams = z.object({ deviceId: id });
export const deviceRaceParams = z.object({ deviceId: id, raceId: id });
export const deviceRaceRunnerParams = z.object({ deviceId: id, raceId: id, runnerId: id });

const isoTime = z.string().describe('ISO 8601 date-time with offset');

export const raceSchema = z
  .object({
    RaceId: z.number().int(),
    Name: z.string(),
    Description: z.string(),
    Location: z.string(),
    StartTime: isoTime.nullable(),
    HasStarted: z.boolean(),
    HasFinished: z.boolean(),
    Approved: z.boolean(),
    DirectorId: z.string(),
    ClockStartedAt: isoTime.nullable().optional(),
    ClockStoppedAt: isoTime.nullable().optional(),
  })
  .meta({ id: 'Race' });

export const publicRunnerSchema = z
  .object({
    RunnerId: z.number().int(),
    RaceId: z.number().int(),
    FirstName: z.string(),
    LastName: z.string(),
    BibNumber: z.string().nullable(),
    Gender: z.enum(['M', 'F']),
    Age: z.number().int().nullable(),
  })
  .meta({ id: 'PublicRunner' });

export const runnerSchema = publicRunnerSchema
  .extend({
    DeviceId: z.number().int().nullable(),
    DeviceName: z.string().nullable().describe('Name of the device the runner holds'),
  })
  .meta({ id: 'Runner' });

export const courseSchema = z
  .object({
    CourseId: z.number().int(),
    RaceId: z.number().int(),
    MapUrl: z.string().describe('Page showing the course on a map (inline SVG)'),
    Name: z.string().nullable(),
    LengthM: z.number(),
    ClimbM: z.number(),
    DescentM: z.number(),
    PointCount: z.number().int(),
    HasElevation: z.boolean(),
    Waypoints: z.array(
      z.object({
        Name: z.string(),
        Latitude: z.number(),
        Longitude: z.number(),
        DistanceM: z.number().nullable(),
      }),
    ),
    GeoJsonUrl: z.string(),
    GpxUrl: z.string(),
  })
  .meta({ id: 'Course' });

export const deviceSchema = z
  .object({
    DeviceId: z.number().int(),
    Name: z.string(),
    BatteryState: z.string().nullable(),
    LastPingTime: isoTime.nullable(),
    RaceId: z.number().int().nullable(),
    AssignedRunnerId: z.number().int().nullable(),
    Source: z.enum(DEVICE_SOURCES),
    HardwareId: z.string().nullable(),
  })
  .meta({ id: 'Device' });

export const adminDeviceSchema = deviceSchema
  .extend({
    TrackingKey: z.string(),
    RaceName: z.string().nullable(),
    RunnerName: z.string().nullable(),
  })
  .meta({ id: 'AdminDevice' });

export const availableDeviceSchema = z
  .object({ DeviceId: z.number().int(), Name: z.string() })
  .meta({ id: 'AvailableDevice' });

/** Deletes answer 200 with a small JSON body (the web client parses every response body as JSON). */
export const deletedSchema = z.object({ Deleted: z.literal(true) });

export const errorSchema = z.object({ error: z.string(), message: z.string() }).meta({ id: 'Error' });
