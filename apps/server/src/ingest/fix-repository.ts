import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { deviceIdOf, iso, numOrNull, refColumns, rows, type Row } from './sql';
import type { DeviceRef, FixInput } from './types';

/**
 * Storage of fixes. A batch is stored by ONE statement (device lookup, attribution, idempotent insert and the
 * device's newest-fix update as CTEs), so a batch is atomic and costs one round trip.
 */

export interface StoredRow {
  idx: number;
  deviceId: number | null;
  positionId: number | null;
  raceId: number | null;
  runnerId: number | null;
  receivedAt: string | null;
}

/** The batch statement; its only parameter is the batch as JSON. */
function storeFixesQuery(json: string): SQL {
  return sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${json}::jsonb) AS x(
        idx int, key text, src text, hw text[], dev int, t timestamptz, lat float8, lon float8,
        alt float8, spd float8, bp real, bs text, source text)
    ), r AS (
      SELECT x.*, COALESCE(
        (SELECT d.id FROM devices d WHERE x.key IS NOT NULL AND d.tracking_key = x.key),
        (SELECT d.id FROM devices d WHERE x.dev IS NOT NULL AND d.id = x.dev),
        (SELECT d.id FROM devices d
          WHERE x.hw IS NOT NULL AND d.source = x.src AND lower(d.hardware_id) = ANY(x.hw)
          ORDER BY d.id LIMIT 1)) AS device_id
      FROM x
    ), a AS (
      SELECT r.*, h.race_id AS h_race, h.runner_id AS h_runner
      FROM r LEFT JOIN LATERAL ${holderAt('r.device_id', 'r.t')} h ON true
      WHERE r.device_id IS NOT NULL
    ), ins AS (
      INSERT INTO positions (device_id, race_id, runner_id, fix_time, lat, lon, altitude, speed,
                             battery_percent, battery_state, source)
      SELECT device_id, h_race, h_runner, t, lat, lon, alt, spd, bp, bs, source FROM a
      ON CONFLICT (device_id, fix_time) DO NOTHING
      RETURNING id, device_id, fix_time, race_id, runner_id, received_at
    ), lk AS (
      -- Lock the batch's devices in id order, so concurrent batches touching the same devices cannot deadlock.
      SELECT id FROM devices WHERE id IN (SELECT device_id FROM a) ORDER BY id FOR UPDATE
    ), upd AS (
      UPDATE devices d
      SET last_ping_time = n.t, last_lat = n.lat, last_lon = n.lon,
          battery_percent = COALESCE(n.bp, d.battery_percent),
          battery_state = COALESCE(n.bs, d.battery_state)
      FROM (SELECT DISTINCT ON (device_id) device_id, t, lat, lon, bp, bs FROM a ORDER BY device_id, t DESC) n
      WHERE d.id = n.device_id AND d.id IN (SELECT id FROM lk)
        AND (d.last_ping_time IS NULL OR d.last_ping_time < n.t)
      RETURNING d.id
    )
    SELECT r.idx, r.device_id, ins.id AS position_id, ins.race_id, ins.runner_id, ins.received_at
    FROM r LEFT JOIN ins ON ins.device_id = r.device_id AND ins.fix_time = r.t
    ORDER BY r.idx`;
}

let storeFixesText: string | null = null;

/**
 * Stores a batch; one result row per input (deviceId null = unknown device, positionId null = duplicate).
 * With a node-postgres pool the statement is prepared once per connection (planning the CTEs costs about as much
 * as running them for a small batch).
 */
export async function storeFixes(db: DbOrTx, fixes: FixInput[], pool?: pg.Pool): Promise<StoredRow[]> {
  const input = fixes.map((f, idx) => ({
    idx,
    ...refColumns(f.device),
    t: f.fixTime.toISOString(),
    lat: f.lat,
    lon: f.lon,
    alt: f.altitude ?? null,
    spd: f.speed ?? null,
    bp: f.batteryPercent ?? null,
    bs: f.batteryState ?? null,
    source: f.source,
  }));
  const json = JSON.stringify(input);
  let result: Row[];
  if (pool) {
    storeFixesText ??= new PgDialect().sqlToQuery(storeFixesQuery('[]')).sql;
    result = (await pool.query<Row>({ name: 'racebeacon_store_fixes', text: storeFixesText, values: [json] }))
      .rows;
  } else {
    result = await rows(db, storeFixesQuery(json));
  }
  return result.map((row) => ({
    idx: Number(row.idx),
    deviceId: numOrNull(row.device_id),
    positionId: numOrNull(row.position_id),
    raceId: numOrNull(row.race_id),
    runnerId: numOrNull(row.runner_id),
    receivedAt: row.received_at ? iso(row.received_at) : null,
  }));
}

/** Whether a device has this reference (a credential checked on a request that carries no position). */
export async function deviceExists(db: DbOrTx, ref: DeviceRef): Promise<boolean> {
  const res = await rows(db, sql`SELECT ${deviceIdOf(ref)} AS id`);
  return res[0]?.id !== null && res[0]?.id !== undefined;
}
