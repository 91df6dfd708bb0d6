import { z } from 'zod';
import { DEVICE_SOURCES, GENDERS, MAX_START_TIME, MIN_START_TIME } from './constants';

/**
 * Request body schemas, shared by the server (validation, OpenAPI) and the web app (forms). For each body, `…Body`
 * is what a client may send (`z.input`) and `…Input` what the server works with once it is parsed (`z.output`:
 * trimmed, defaults filled in).
 */

export { DEVICE_SOURCES, GENDERS, MAX_START_TIME, MIN_START_TIME } from './constants';

const START_TIME_RULE =
  'must be an ISO 8601 date-time with an offset (Z or ±hh:mm), such as 2026-06-01T06:00:00Z, ' +
  'between the years 2000 and 2100';

/**
 * A real ISO 8601 date-time with seconds and an offset: `2026-06-01T06:00:00Z`, `…06:00:00.000Z` (what a browser's
 * toISOString() sends) or `…08:00:00+02:00`. Calendar-checked (no 30 February), within MIN/MAX_START_TIME; no bare
 * numbers, dates without a time, local times, or expanded years (`+275760-…`), which JavaScript would accept but
 * turn into another date or one the database refuses.
 */
export const isoDateTime = z.iso
  .datetime({ offset: true, error: START_TIME_RULE })
  .max(64)
  .refine(
    (s) => {
      const t = Date.parse(s);
      return t >= MIN_START_TIME && t <= MAX_START_TIME;
    },
    { error: START_TIME_RULE },
  );

/** A race's editable fields. Approved/HasStarted/HasFinished/DirectorId in a body are ignored (not listed). */
export const raceBodySchema = z.object({
  Name: z.string().trim().min(1, 'Name is required').max(200),
  Description: z.string().max(5000).optional().default(''),
  Location: z.string().max(500).optional().default(''),
  StartTime: isoDateTime.nullable().optional().default(null),
  /** Privacy (absent: unchanged on an edit, the default on a create). */
  PublicDelayMin: z
    .number()
    .int()
    .min(0)
    .max(1440)
    .optional()
    .describe('Minutes the public sees positions and the leaderboard late (0: live; 0–1440)'),
  TrailsPublic: z.boolean().optional().describe("Whether runners' trails are public"),
  RetentionDays: z
    .number()
    .int()
    .min(0)
    .max(3650)
    .nullable()
    .optional()
    .describe("Days after the race's end its positions are deleted (null: kept; 0–3650)"),
});
export type RaceBody = z.input<typeof raceBodySchema>;
export type RaceInput = z.output<typeof raceBodySchema>;

/** A runner's editable fields. RunnerId/RaceId/DeviceId in a body are ignored (not listed). */
export const runnerBodySchema = z.object({
  FirstName: z.string().trim().min(1, 'FirstName is required').max(100),
  LastName: z.string().trim().min(1, 'LastName is required').max(100),
  BibNumber: z
    .union([z.string().trim().max(20), z.number().int().nonnegative()])
    .nullable()
    .optional()
    .transform((v) => (v === undefined || v === null || v === '' ? null : String(v))),
  Gender: z.enum(GENDERS).optional().default('M'),
  Age: z.number().int().min(0).max(120).nullable().optional().default(null),
  /** Privacy: on the leaderboard by progress, no dot on the public map (absent: unchanged on an edit, false). */
  HidePosition: z.boolean().optional().describe('Hide the live position from the public'),
});
export type RunnerBody = z.input<typeof runnerBodySchema>;
export type RunnerInput = z.output<typeof runnerBodySchema>;

/**
 * Runner fields for race HQ: who to call and the runner's own phone. Accepted on the director's runner bodies (and the
 * CSV import) and returned by the director's runner reads only — never on /api/open.
 */
export const MAX_EMERGENCY_CONTACT_LENGTH = 200;
export const MAX_PHONE_LENGTH = 50;

/** Free text without control characters (a NUL byte no text column holds; line breaks have no place in a phone). */
const hqText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f'), {
      error: 'must not contain control characters',
    })
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional();

/** The director's runner body: the runner's fields plus the HQ fields (absent: unchanged on an edit, null on a create). */
export const directorRunnerBodySchema = runnerBodySchema.extend({
  EmergencyContact: hqText(MAX_EMERGENCY_CONTACT_LENGTH).describe(
    `Emergency contact, name and phone (≤ ${MAX_EMERGENCY_CONTACT_LENGTH}); absent on an edit: unchanged`,
  ),
  Phone: hqText(MAX_PHONE_LENGTH).describe(
    `The runner's phone (≤ ${MAX_PHONE_LENGTH}); absent on an edit: unchanged`,
  ),
});
export type DirectorRunnerBody = z.input<typeof directorRunnerBodySchema>;
export type DirectorRunnerInput = z.output<typeof directorRunnerBodySchema>;

export const deviceCreateSchema = z.object({
  Name: z.string().trim().min(1, 'Please enter a name').max(100),
  Source: z.enum(DEVICE_SOURCES).optional().default('osmand'),
  HardwareId: z.string().trim().max(100).nullable().optional().default(null),
});
export type DeviceCreateBody = z.input<typeof deviceCreateSchema>;
export type DeviceCreateInput = z.output<typeof deviceCreateSchema>;

/** Only the fields sent change. */
export const deviceUpdateSchema = z.object({
  Name: z.string().trim().min(1, 'Please enter a name').max(100).optional(),
  Source: z.enum(DEVICE_SOURCES).optional(),
  HardwareId: z.string().trim().max(100).nullable().optional(),
});
export type DeviceUpdateBody = z.input<typeof deviceUpdateSchema>;
export type DeviceUpdateInput = z.output<typeof deviceUpdateSchema>;

/** Registering a SPOT shared-page feed: its id, and the page's password when it has one. */
export const spotFeedBodySchema = z.object({
  FeedId: z
    .string()
    .trim()
    .min(1, 'FeedId is required')
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'FeedId must be the feed id from the SPOT shared page (letters and digits)'),
  FeedPassword: z.string().max(200).optional().nullable(),
});
export type SpotFeedBody = z.input<typeof spotFeedBodySchema>;
export type SpotFeedInput = z.output<typeof spotFeedBodySchema>;

/**
 * The one-line reason a body was refused, worded as the API's 400 `validation_error` message words it: each problem
 * as `Field: rule` (the field's path joined with dots; the rule alone for the body as a whole), separated by "; ".
 * A form that checks its body with one of these schemas before sending shows the same words the server would.
 */
export function validationMessage(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string {
  const message = issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
  return message || 'Invalid request.';
}

// ---------------------------------------------------------------- race operations (issue 12)

/** Setting or clearing (Status null) a runner's status; a reason is optional. */
export const runnerStatusBodySchema = z.object({
  Status: z.enum(['DNS', 'DNF', 'DSQ'], { error: 'Status must be "DNS", "DNF", "DSQ" or null' }).nullable(),
  Reason: z
    .string()
    .trim()
    .max(500, 'Reason must be at most 500 characters')
    .nullable()
    .optional()
    .transform((v) => (v === undefined || v === null || v === '' ? null : v)),
});
export type RunnerStatusBody = z.input<typeof runnerStatusBodySchema>;
export type RunnerStatusInput = z.output<typeof runnerStatusBodySchema>;

/** Setting (an ISO date-time) or clearing (null) a checkpoint's cutoff. */
export const checkpointCutoffBodySchema = z.object({
  CutoffTime: isoDateTime.nullable(),
});
export type CheckpointCutoffBody = z.input<typeof checkpointCutoffBodySchema>;
