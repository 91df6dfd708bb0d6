import { z } from 'zod';
import { ALERT_KINDS, ALERT_SETTINGS_LIMITS, ALERT_STATES, DEFAULT_ALERT_SETTINGS } from './constants';
import { ALERT_MESSAGE_KEYS } from './alert-messages';

/**
 * Race HQ alerts: the API shapes (zod, PascalCase, named OpenAPI components like the other entities) and, re-exported
 * from `alert-rules.ts`, the pure rules that raise and resolve them. The rules import no zod: a screen that only needs
 * them and the constants bundles no schema.
 */

export * from './alert-rules';

const isoTime = z.string().describe('ISO 8601 date-time with offset');
const noNul = (s: string) => !s.includes('\u0000');

export const alertKindSchema = z.enum(ALERT_KINDS).meta({ id: 'AlertKind' });
export const alertStateSchema = z.enum(ALERT_STATES).meta({ id: 'AlertState' });
export const alertMessageKeySchema = z
  .enum(ALERT_MESSAGE_KEYS)
  .meta({ id: 'AlertMessageKey' })
  .describe(
    'The detail as a key a screen words in its language (with MessageParams); Message is its English',
  );

/** An alert as the HQ sees it (`GET /api/director/races/{raceId}/alerts`, `GET /api/admin/alerts`). */
export const alertSchema = z
  .object({
    AlertId: z.number().int(),
    /** Null for a device that holds no race (admins only). */
    RaceId: z.number().int().nullable(),
    RunnerId: z.number().int().nullable(),
    BibNumber: z.string().nullable(),
    RunnerName: z.string().nullable(),
    DeviceId: z.number().int().nullable(),
    DeviceName: z.string().nullable(),
    Kind: alertKindSchema,
    State: alertStateSchema,
    /** When the alert was raised. */
    RaisedAt: isoTime,
    /** When its condition was last seen holding (or the device message last repeated it). */
    LastSeenAt: isoTime,
    /** Last known position of the runner / device. */
    Latitude: z.number().nullable(),
    Longitude: z.number().nullable(),
    Message: z.string().describe('What happened, for people: "No fix for 34 min (expected every 2.5 min)"'),
    /** Null for an alert stored before keys existed (or changed by an older server): show Message. */
    MessageKey: alertMessageKeySchema.nullable(),
    MessageParams: z
      .record(z.string(), z.union([z.number(), z.string()]))
      .nullable()
      .describe(
        'The parameters of MessageKey: durations in ms (silentMs, expectedMs, durationMs, lateMs), progressM in metres, fixes (a count), percent, checkpoint and text (the device’s text, verbatim), cancelledAt (ISO 8601)',
      ),
    AcknowledgedBy: z.string().nullable(),
    AcknowledgedAt: isoTime.nullable(),
    /** Null with a ResolvedAt: resolved by itself (its condition cleared). */
    ResolvedBy: z.string().nullable(),
    ResolvedAt: isoTime.nullable(),
    /** The latest note given when acknowledging or resolving. */
    Note: z.string().nullable(),
  })
  .meta({ id: 'Alert' });
export type Alert = z.infer<typeof alertSchema>;

/** One change of an alert's state, as the HQ log keeps it (raised = `open`). */
export const alertLogEntrySchema = z
  .object({
    AlertId: z.number().int(),
    State: alertStateSchema,
    At: isoTime,
    /** Who made the change; null when the system did (raised, or resolved by itself). */
    By: z.string().nullable(),
    Note: z.string().nullable(),
  })
  .meta({ id: 'AlertLogEntry' });
export type AlertLogEntry = z.infer<typeof alertLogEntrySchema>;

/** Body of `POST /api/director/alerts/{alertId}/acknowledge` and `/resolve`. */
export const alertActionSchema = z.object({
  Note: z
    .string()
    .trim()
    .max(2000, 'Note must be at most 2000 characters')
    .refine(noNul, { error: 'Note must not contain NUL characters' })
    .optional(),
});
export type AlertActionBody = z.input<typeof alertActionSchema>;
export type AlertActionInput = z.output<typeof alertActionSchema>;

const L = ALERT_SETTINGS_LIMITS;
const D = DEFAULT_ALERT_SETTINGS;

/**
 * A race's alert thresholds (`GET`/`PUT /api/director/races/{raceId}/alert-settings`). In a PUT body a missing
 * field takes its default.
 */
export const alertSettingsSchema = z
  .object({
    NoMovementMinutes: z
      .number()
      .int()
      .min(L.NoMovementMinutes.min)
      .max(L.NoMovementMinutes.max)
      .default(D.NoMovementMinutes)
      .describe('Minutes without 100 m of course progress before no-movement (twice that at an aid station)'),
    LostSignalFactor: z
      .number()
      .min(L.LostSignalFactor.min)
      .max(L.LostSignalFactor.max)
      .default(D.LostSignalFactor)
      .describe('k: lost-signal (and leaderboard stale) after k × the device’s expected reporting interval'),
    LowBatteryPercent: z
      .number()
      .int()
      .min(L.LowBatteryPercent.min)
      .max(L.LowBatteryPercent.max)
      .default(D.LowBatteryPercent)
      .describe('low-battery at or below this percentage (or when the device reports LOW)'),
    OffCourseFixes: z
      .number()
      .int()
      .min(L.OffCourseFixes.min)
      .max(L.OffCourseFixes.max)
      .default(D.OffCourseFixes)
      .describe('off-course when more than this many consecutive fixes are off the course'),
    AidStationRadiusM: z
      .number()
      .int()
      .min(L.AidStationRadiusM.min)
      .max(L.AidStationRadiusM.max)
      .default(D.AidStationRadiusM)
      .describe('Metres along the course around a waypoint that count as its aid-station zone'),
    HelpKeyword: z
      .string()
      .trim()
      .max(L.HelpKeywordMaxLength)
      .refine(noNul, { error: 'HelpKeyword must not contain NUL characters' })
      .nullable()
      .default(D.HelpKeyword)
      .describe(
        'inReach message text containing this (case-insensitive) is a help request; null or empty: none',
      ),
  })
  .meta({ id: 'AlertSettings' });
export type AlertSettingsBody = z.input<typeof alertSettingsSchema>;
export type AlertSettings = z.output<typeof alertSettingsSchema>;
