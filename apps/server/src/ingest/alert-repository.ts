import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { deviceIdOf, iso, numOrNull, rows } from './sql';
import type { AlertInput } from './types';

export interface StoredAlert {
  id: number;
  deviceId: number;
  raceId: number | null;
  runnerId: number | null;
  kind: string;
  at: string;
}

/**
 * How long an alert recorded at its receive time is recognised when it is delivered again: a SPOT feed shows a
 * message for 7 days, and every poll reads it anew.
 */
const RECEIVE_TIME_REPEAT_WINDOW = '7 days';

/**
 * The race an alert goes to: the holder's at its time, else the race the device is in now (a tracker added to a
 * race but not yet handed to a runner: its SOS reaches that race's HQ at once, the runner is attributed by the
 * hand-over later, alerts/attribution.ts). Null only for a device in no race (the admins' HQ view).
 */
const raceOfAlert = sql.raw('COALESCE(h.race_id, (SELECT d.race_id FROM devices d WHERE d.id = dev.id))');

/**
 * Records an alert once; null when it is a duplicate or no device has this reference. The same device, kind and
 * time is the same alert delivered again. An alert whose own time is unusable (`atReceiveTime`) is recorded at the
 * time it is received — its `at` is then exactly its `received_at`, which marks it — and a later delivery of the
 * same alert (same kind, message and position within RECEIVE_TIME_REPEAT_WINDOW) is recognised by that mark.
 */
export async function storeAlert(
  db: DbOrTx,
  a: AlertInput,
  opts: { atReceiveTime?: boolean } = {},
): Promise<StoredAlert | null> {
  const at = opts.atReceiveTime ? sql`now()` : sql`${a.at.toISOString()}::timestamptz`;
  const repeated = opts.atReceiveTime
    ? sql`AND NOT EXISTS (
            SELECT 1 FROM device_alerts o
            WHERE o.device_id = dev.id AND o.kind = ${a.kind} AND o.at = o.received_at
              AND o.received_at > now() - ${RECEIVE_TIME_REPEAT_WINDOW}::interval
              AND o.message IS NOT DISTINCT FROM ${a.message}
              AND o.lat IS NOT DISTINCT FROM ${a.lat} AND o.lon IS NOT DISTINCT FROM ${a.lon})`
    : sql``;
  const res = await rows(
    db,
    sql`WITH dev AS (SELECT ${deviceIdOf(a.device)} AS id, ${at} AS t)
        INSERT INTO device_alerts (device_id, race_id, runner_id, kind, message, at, lat, lon)
        SELECT dev.id, ${raceOfAlert}, h.runner_id, ${a.kind}, ${a.message}, dev.t, ${a.lat}, ${a.lon}
        FROM dev LEFT JOIN LATERAL ${holderAt('dev.id', 'dev.t')} h ON true
        WHERE dev.id IS NOT NULL ${repeated}
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

/** The device a reference names and the race and runner holding it at `at`; null for an unknown device. */
export async function deviceHolderAt(
  db: DbOrTx,
  device: AlertInput['device'],
  at: Date,
): Promise<{ deviceId: number; raceId: number | null; runnerId: number | null } | null> {
  const res = await rows(
    db,
    sql`WITH dev AS (SELECT ${deviceIdOf(device)} AS id, ${at.toISOString()}::timestamptz AS t)
        SELECT dev.id, ${raceOfAlert} AS race_id, h.runner_id
        FROM dev LEFT JOIN LATERAL ${holderAt('dev.id', 'dev.t')} h ON true
        WHERE dev.id IS NOT NULL`,
  );
  if (!res.length) return null;
  return {
    deviceId: Number(res[0].id),
    raceId: numOrNull(res[0].race_id),
    runnerId: numOrNull(res[0].runner_id),
  };
}
