import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { iso, numOrNull, refColumns, rows } from './sql';
import type { AlertInput } from './types';

export interface StoredAlert {
  id: number;
  deviceId: number;
  raceId: number | null;
  runnerId: number | null;
  kind: string;
  at: string;
}

/** Records an alert once (same device, kind and time = the same alert re-delivered); null if duplicate/unknown. */
export async function storeAlert(db: DbOrTx, a: AlertInput): Promise<StoredAlert | null> {
  const ref = refColumns(a.device);
  const hw = JSON.stringify(ref.hw ?? []);
  const res = await rows(
    db,
    sql`WITH dev AS (
          SELECT COALESCE(
            (SELECT id FROM devices WHERE ${ref.key}::text IS NOT NULL AND tracking_key = ${ref.key}),
            (SELECT id FROM devices WHERE ${ref.dev}::int IS NOT NULL AND id = ${ref.dev}),
            (SELECT id FROM devices WHERE source = ${ref.src}
               AND lower(hardware_id) IN (SELECT jsonb_array_elements_text(${hw}::jsonb)) ORDER BY id LIMIT 1)) AS id,
            ${a.at.toISOString()}::timestamptz AS t
        )
        INSERT INTO device_alerts (device_id, race_id, runner_id, kind, message, at, lat, lon)
        SELECT dev.id, h.race_id, h.runner_id, ${a.kind}, ${a.message}, dev.t, ${a.lat}, ${a.lon}
        FROM dev LEFT JOIN LATERAL ${holderAt('dev.id', 'dev.t')} h ON true
        WHERE dev.id IS NOT NULL
        ON CONFLICT (device_id, kind, at) DO NOTHING
        RETURNING id, device_id, race_id, runner_id, kind, at`,
  );
  if (!res.length) return null;
  const r = res[0];
  return {
    id: Number(r.id),
    deviceId: Number(r.device_id),
    raceId: numOrNull(r.race_id),
    runnerId: numOrNull(r.runner_id),
    kind: String(r.kind),
    at: iso(r.at),
  };
}
