import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { deviceIdOf, numOrNull, rows } from './sql';
import type { BatteryReport, DeviceRef } from './types';

/** A battery report stored on its device, with the runner holding the device when it was received. */
export interface StoredBattery {
  deviceId: number;
  raceId: number | null;
  runnerId: number | null;
}

/**
 * Stores a battery level reported without a position on its device (the percentage replaces the device's; a state
 * of null keeps the device's), attributed like a fix taken at `at`; null when no device has this reference.
 */
export async function storeBattery(db: DbOrTx, r: BatteryReport, at: Date): Promise<StoredBattery | null> {
  const res = await rows(
    db,
    sql`WITH upd AS (
          UPDATE devices SET battery_percent = ${r.batteryPercent},
                             battery_state = COALESCE(${r.batteryState}, battery_state)
          WHERE id = ${deviceIdOf(r.device)}
          RETURNING id, ${at.toISOString()}::timestamptz AS t
        )
        SELECT upd.id, h.race_id, h.runner_id
        FROM upd LEFT JOIN LATERAL ${holderAt('upd.id', 'upd.t')} h ON true`,
  );
  if (!res.length) return null;
  return {
    deviceId: Number(res[0].id),
    raceId: numOrNull(res[0].race_id),
    runnerId: numOrNull(res[0].runner_id),
  };
}

/**
 * Counts a data uplink that carried no position on the device it names (`uplinks_without_position`, and its time in
 * `last_uplink_without_position_at`): an admin sees a payload formatter that gives no position. false when no
 * device has this reference.
 */
export async function countUplinkWithoutPosition(db: DbOrTx, ref: DeviceRef): Promise<boolean> {
  const res = await rows(
    db,
    sql`UPDATE devices SET uplinks_without_position = uplinks_without_position + 1,
                           last_uplink_without_position_at = now()
        WHERE id = ${deviceIdOf(ref)} RETURNING id`,
  );
  return res.length > 0;
}
