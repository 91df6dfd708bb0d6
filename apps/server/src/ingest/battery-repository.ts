import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { rows } from './sql';
import type { DeviceSource } from './types';

/** Battery reported without a position (Meshtastic telemetry, LoRaWAN status). */
export async function updateBattery(
  db: DbOrTx,
  source: DeviceSource,
  hardwareIds: string[],
  percent: number | null,
  state: string | null,
): Promise<number | null> {
  const hw = JSON.stringify(hardwareIds.map((h) => h.trim().toLowerCase()));
  const res = await rows(
    db,
    sql`UPDATE devices SET battery_percent = ${percent}, battery_state = COALESCE(${state}, battery_state)
        WHERE id = (SELECT id FROM devices WHERE source = ${source}
                    AND lower(hardware_id) IN (SELECT jsonb_array_elements_text(${hw}::jsonb)) ORDER BY id LIMIT 1)
        RETURNING id`,
  );
  return res.length ? Number(res[0].id) : null;
}
