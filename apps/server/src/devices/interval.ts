import {
  adminDeviceSchema,
  deviceCreateSchema,
  deviceFeedBodySchema,
  deviceFeedStateSchema,
  deviceUpdateSchema,
  deviceUplinkStateSchema,
} from '@racebeacon/domain';
import { z } from 'zod';

/**
 * A device's own expected reporting interval (race HQ's lost-signal alert and the leaderboard's `stale` status wait
 * k × this long): seconds, 10 s to one day, or null for its source's default. Admin-only, like the device inventory.
 */
export const MIN_EXPECTED_INTERVAL_S = 10;
export const MAX_EXPECTED_INTERVAL_S = 86_400;

const intervalField = z
  .number()
  .int()
  .min(MIN_EXPECTED_INTERVAL_S)
  .max(MAX_EXPECTED_INTERVAL_S)
  .nullable()
  .optional()
  .describe(
    `How often the device reports, in seconds (${MIN_EXPECTED_INTERVAL_S}–${MAX_EXPECTED_INTERVAL_S}); null: its source's default`,
  );

const intervalBody = z.object({ ExpectedIntervalSeconds: intervalField });
export type DeviceIntervalInput = z.output<typeof intervalBody> & z.output<typeof deviceFeedBodySchema>;

/**
 * The admin's create and edit bodies with ExpectedIntervalSeconds and a runner's own feed (FeedId, FeedPassword;
 * absent on an edit: unchanged).
 */
export const deviceCreateWithIntervalSchema = deviceCreateSchema
  .extend(intervalBody.shape)
  .extend(deviceFeedBodySchema.shape);
export const deviceUpdateWithIntervalSchema = deviceUpdateSchema
  .extend(intervalBody.shape)
  .extend(deviceFeedBodySchema.shape);

/** The admin's device with its expected interval (null: the source's default) and its own feed's poll state. */
export const adminDeviceWithIntervalSchema = adminDeviceSchema
  .extend({
    ExpectedIntervalSeconds: z.number().int().nullable(),
    PendingHardwareId: z
      .string()
      .nullable()
      .describe(
        "A runner's own tracker waiting for proof of possession: the hardware id its director claimed (nothing is received by it until approved)",
      ),
  })
  .extend(deviceFeedStateSchema.shape)
  .extend(deviceUplinkStateSchema.shape)
  .meta({ id: 'AdminDeviceWithInterval' });
export type AdminDeviceWithInterval = z.infer<typeof adminDeviceWithIntervalSchema>;
