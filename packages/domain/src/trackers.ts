import { z } from 'zod';
import { DEVICE_SOURCES } from './constants';

/**
 * Runners' own satellite trackers (issue 12): a device polled from its own feed — a Garmin MapShare page (the
 * MapShare name is the device's HardwareId, with an optional MapShare password) or a SPOT messenger with its own
 * shared-page feed id — and the director's "attach the runner's tracker" request with its tracker check.
 */

/** A MapShare name as it appears in share.garmin.com/{name}: letters, digits, `.`, `_` and `-`. */
export const MAPSHARE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** A SPOT shared-page feed id (the same rule as an admin's shared feed). */
export const SPOT_FEED_ID_RE = /^[A-Za-z0-9_-]+$/;

export const MAX_FEED_PASSWORD_LENGTH = 200;

const feedIdField = z
  .string()
  .trim()
  .min(1, 'FeedId must not be empty (send null for none)')
  .max(100)
  .regex(SPOT_FEED_ID_RE, 'FeedId must be the feed id from the SPOT shared page (letters and digits)')
  .nullable()
  .optional()
  .describe("A SPOT device's own shared-page feed id (polled like an admin's shared feed); null: none");

const feedPasswordField = z
  .string()
  .max(MAX_FEED_PASSWORD_LENGTH)
  .nullable()
  .optional()
  .describe('MapShare password or SPOT feed password; write-only (never returned), null or "" removes it');

/** The feed fields an admin's device create/update body may carry (absent on an edit: unchanged). */
export const deviceFeedBodySchema = z.object({ FeedId: feedIdField, FeedPassword: feedPasswordField });
export type DeviceFeedInput = z.output<typeof deviceFeedBodySchema>;

/** The feed state a device shows (the password itself never). */
export const deviceFeedStateSchema = z.object({
  FeedId: z.string().nullable(),
  HasFeedPassword: z.boolean(),
  FeedPolledAt: z.string().nullable().describe('When its own feed was last polled'),
  FeedError: z.string().nullable().describe('Why the last poll of its own feed failed; null when it worked'),
});
export type DeviceFeedState = z.infer<typeof deviceFeedStateSchema>;

/** What a source needs to be polled from its own feed or to be recognised; a problem in words, or null. */
export function trackerProblem(t: {
  Source: string;
  HardwareId: string | null;
  FeedId: string | null;
}): string | null {
  if (t.Source === 'mapshare') {
    if (!t.HardwareId) return 'HardwareId: the MapShare name is required for a MapShare tracker';
    if (!MAPSHARE_NAME_RE.test(t.HardwareId))
      return 'HardwareId: a MapShare name has only letters, digits, ".", "_" and "-" (share.garmin.com/{name})';
    if (t.FeedId) return 'FeedId: a MapShare tracker has no feed id (its MapShare name is the HardwareId)';
    return null;
  }
  if (t.FeedId && t.Source !== 'spot') return 'FeedId: only a SPOT or MapShare tracker is polled from a feed';
  return null;
}

/**
 * Sources a runner's own tracker attached by its HardwareId waits for proof of possession (issue 24): fixes of
 * these arrive pushed and named by that id alone. A MapShare name is a public page the runner controls; a phone has
 * its tracking key.
 */
export const CLAIMED_BY_HARDWARE_ID: readonly string[] = ['inreach', 'lorawan', 'meshtastic', 'spot'];
/** Sources whose device can send the claim code itself as a text message. */
export const CLAIM_CODE_SOURCES: readonly string[] = ['inreach', 'meshtastic'];

/** Sources a director may attach as a runner's own tracker (all of them: phones report with their tracking key). */
export const attachTrackerBodySchema = z
  .object({
    Source: z.enum(DEVICE_SOURCES),
    HardwareId: z
      .string()
      .trim()
      .max(100)
      .nullable()
      .optional()
      .transform((v) => v || null)
      .describe('MapShare name, SPOT ESN, inReach IMEI, DevEUI or Meshtastic node; none for a phone'),
    FeedId: feedIdField.transform((v) => v ?? null),
    FeedPassword: feedPasswordField.transform((v) => v || null),
    Name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe("The device's name; default: the runner's name"),
  })
  .superRefine((b, ctx) => {
    const problem = trackerProblem(b);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
    else if (b.Source === 'spot' && !b.FeedId && !b.HardwareId)
      ctx.addIssue({
        code: 'custom',
        message: 'A SPOT tracker needs its FeedId (its own feed) or HardwareId (ESN)',
      });
    else if (['inreach', 'lorawan', 'meshtastic'].includes(b.Source) && !b.HardwareId)
      ctx.addIssue({ code: 'custom', message: `HardwareId is required for a ${b.Source} tracker` });
  });
export type AttachTrackerBody = z.input<typeof attachTrackerBodySchema>;
export type AttachTrackerInput = z.output<typeof attachTrackerBodySchema>;

/** A runner's tracker as the tracker check shows it to the race's director (never the tracking key or password). */
export const runnerTrackerSchema = deviceFeedStateSchema
  .extend({
    DeviceId: z.number().int(),
    RunnerId: z.number().int(),
    Name: z.string(),
    Source: z.enum(DEVICE_SOURCES),
    HardwareId: z.string().nullable(),
    /** Created for this race by the director (detaching deletes it); false: a device of the race's fleet. */
    OwnTracker: z.boolean(),
    Pending: z
      .boolean()
      .describe(
        'An own tracker attached by hardware id whose possession is not yet proven: nothing is received by that id (no position shown or stored) until an admin approves it or the device sends ClaimCode',
      ),
    ClaimCode: z
      .string()
      .optional()
      .describe(
        'While Pending: the code to send from the device itself as a text message (inReach, Meshtastic) to prove it is the runner’s',
      ),
    LastFixTime: z.string().nullable().describe('Fix time of the newest fix received from the device'),
    LastFixAgeSeconds: z.number().int().nullable().describe('How long ago that was, by the server clock'),
    LastLatitude: z.number().nullable(),
    LastLongitude: z.number().nullable(),
    BatteryState: z.string().nullable(),
    TrackingKey: z
      .string()
      .optional()
      .describe(
        'The key to enter in the phone app, only for a phone the director attached (OsmAnd, OwnTracks)',
      ),
  })
  .meta({ id: 'RunnerTracker' });

/** What detaching a runner's tracker did: an own tracker with no fix is deleted, otherwise only unassigned. */
export const detachTrackerSchema = z.object({
  RunnerId: z.number().int(),
  DeviceId: z.number().int(),
  Deleted: z.boolean().describe('true: the device was deleted; false: taken from the runner, its fixes kept'),
});
export type DetachTracker = z.infer<typeof detachTrackerSchema>;
export type RunnerTracker = z.infer<typeof runnerTrackerSchema>;
