import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { deviceIdOf, numOrNull, rows } from './sql';
import type { BatteryReport } from './types';

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
