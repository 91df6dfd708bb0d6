import { z } from 'zod';

/**
 * Route parameter and response schemas (zod). Responses are checked on the way out, so a field that is not listed
 * in the response schema can never leak (e.g. a device's TrackingKey in a non-admin response). They also feed the
 * OpenAPI document.
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

/**
 * The response shapes are the domain package's (one definition for server and browser); re-exported here so that
 * a route finds its parameter and response schemas in one place.
 */
export {
  adminDeviceSchema,
  apiErrorSchema as errorSchema,
  availableDeviceSchema,
  courseSchema,
  deletedSchema,
  deviceSchema,
  publicRunnerSchema,
  raceSchema,
  runnerSchema,
} from '@racebeacon/domain';
