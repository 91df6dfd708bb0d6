import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { DbOrTx } from '../db/client';
import type { DeviceRef, DeviceSource, FixInput } from './types';

/**
 * SQL for ingestion. A batch of fixes is stored by ONE statement (device lookup, attribution, idempotent insert
 * and the device's newest-fix update as CTEs), so a batch is atomic and costs one round trip.
 */

interface Row {
  [k: string]: unknown;
}
async function rows(db: DbOrTx, q: SQL): Promise<Row[]> {
  const res = (await db.execute(q)) as unknown as { rows: Row[] };
  return res.rows;
}

const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * The runner holding device `dev` at time `t`, as a LATERAL subquery yielding (race_id, runner_id).
 * The first holder of a device in a race owns its fixes from the race's start (clock start, else StartTime) even
 * when assigned later; every later holder from the hand-over time on. A closed assignment ends at unassigned_at.
 */
export function holderAt(dev: string, t: string): SQL {
  return sql.raw(`(
    SELECT da.race_id, da.runner_id
    FROM device_assignments da JOIN races rc ON rc.id = da.race_id
    WHERE da.device_id = ${dev}
      AND (da.unassigned_at IS NULL OR da.unassigned_at > ${t})
      AND (CASE WHEN EXISTS (
                  SELECT 1 FROM device_assignments pa
                  WHERE pa.device_id = da.device_id AND pa.race_id = da.race_id
                    AND (pa.assigned_at < da.assigned_at OR (pa.assigned_at = da.assigned_at AND pa.id < da.id)))
                THEN da.assigned_at
                ELSE LEAST(da.assigned_at, COALESCE(rc.clock_started_at, rc.start_time, da.assigned_at)) END) <= ${t}
    ORDER BY da.assigned_at DESC, da.id DESC
    LIMIT 1)`);
}

function refColumns(ref: DeviceRef): {
  key: string | null;
  src: string | null;
  hw: string[] | null;
  dev: number | null;
} {
  if ('trackingKey' in ref) return { key: ref.trackingKey, src: null, hw: null, dev: null };
  if ('deviceId' in ref) return { key: null, src: null, hw: null, dev: ref.deviceId };
  return { key: null, src: ref.source, hw: ref.hardwareIds.map((h) => h.trim().toLowerCase()), dev: null };
}

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

export interface AlertInput {
  device: DeviceRef;
  kind: string;
  message: string | null;
  at: Date;
  lat: number | null;
  lon: number | null;
}

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

/** Re-runs attribution over a device's stored fixes (after an assignment changed, so a late first holder keeps
 * the fixes received before the assignment). Returns the number of positions whose runner changed. */
export async function reattributeDevice(db: DbOrTx, deviceId: number): Promise<number> {
  const res = await rows(
    db,
    sql`UPDATE positions p SET race_id = h.race_id, runner_id = h.runner_id
        FROM positions q LEFT JOIN LATERAL ${holderAt('q.device_id', 'q.fix_time')} h ON true
        WHERE q.id = p.id AND p.device_id = ${deviceId}
          AND (p.runner_id IS DISTINCT FROM h.runner_id OR p.race_id IS DISTINCT FROM h.race_id)
        RETURNING p.id`,
  );
  return res.length;
}

/** Re-attributes the fixes of every device that has been assigned in a race (see reattributeDevice). */
export async function reattributeRace(db: DbOrTx, raceId: number): Promise<number> {
  const res = await rows(
    db,
    sql`UPDATE positions p SET race_id = h.race_id, runner_id = h.runner_id
        FROM positions q LEFT JOIN LATERAL ${holderAt('q.device_id', 'q.fix_time')} h ON true
        WHERE q.id = p.id
          AND p.device_id IN (SELECT device_id FROM device_assignments WHERE race_id = ${raceId})
          AND (p.runner_id IS DISTINCT FROM h.runner_id OR p.race_id IS DISTINCT FROM h.race_id)
        RETURNING p.id`,
  );
  return res.length;
}

/** Device id for a tracking key (credential check for requests that carry no position). */
export async function deviceIdByKey(db: DbOrTx, key: string): Promise<number | null> {
  const res = await rows(db, sql`SELECT id FROM devices WHERE tracking_key = ${key}`);
  return res.length ? Number(res[0].id) : null;
}

// --- SPOT feeds ---

export interface SpotFeedRow {
  id: number;
  feedId: string;
  feedPassword: string | null;
  lastPolledAt: string | null;
  lastError: string | null;
  createdAt: string;
}

const feedRow = (r: Row): SpotFeedRow => ({
  id: Number(r.id),
  feedId: String(r.feed_id),
  feedPassword: (r.feed_password as string | null) ?? null,
  lastPolledAt: r.last_polled_at ? iso(r.last_polled_at) : null,
  lastError: (r.last_error as string | null) ?? null,
  createdAt: iso(r.created_at),
});

export async function listSpotFeeds(db: DbOrTx): Promise<SpotFeedRow[]> {
  return (await rows(db, sql`SELECT * FROM spot_feeds ORDER BY id`)).map(feedRow);
}

/** null when the feed is already registered. */
export async function insertSpotFeed(
  db: DbOrTx,
  feedId: string,
  feedPassword: string | null,
): Promise<SpotFeedRow | null> {
  const res = await rows(
    db,
    sql`INSERT INTO spot_feeds (feed_id, feed_password) VALUES (${feedId}, ${feedPassword})
        ON CONFLICT (feed_id) DO NOTHING RETURNING *`,
  );
  return res.length ? feedRow(res[0]) : null;
}

export async function deleteSpotFeed(db: DbOrTx, id: number): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM spot_feeds WHERE id = ${id} RETURNING id`)).length > 0;
}

/**
 * Claims a feed for polling: succeeds only if nobody (no process) polled it within `minGapSeconds`, so several
 * server processes never poll one feed more often than SPOT allows.
 */
export async function claimSpotFeed(
  db: DbOrTx,
  id: number,
  minGapSeconds: number,
): Promise<SpotFeedRow | null> {
  const res = await rows(
    db,
    sql`UPDATE spot_feeds SET last_polled_at = now()
        WHERE id = ${id}
          AND (last_polled_at IS NULL OR last_polled_at <= now() - make_interval(secs => ${minGapSeconds}))
        RETURNING *`,
  );
  return res.length ? feedRow(res[0]) : null;
}

export async function setSpotFeedError(db: DbOrTx, id: number, error: string | null): Promise<void> {
  await db.execute(sql`UPDATE spot_feeds SET last_error = ${error} WHERE id = ${id}`);
}

/**
 * Races during which SPOT feeds must be polled: live (started, not finished) or starting within the hour, and
 * using at least one SPOT device.
 */
export async function activeSpotRaceIds(db: DbOrTx): Promise<number[]> {
  const res = await rows(
    db,
    sql`SELECT r.id FROM races r
        WHERE NOT r.has_finished
          AND (r.has_started OR (r.start_time IS NOT NULL AND r.start_time <= now() + interval '1 hour'
                                 AND r.start_time >= now() - interval '1 day'))
          AND (EXISTS (SELECT 1 FROM devices d WHERE d.source = 'spot' AND d.race_id = r.id)
               OR EXISTS (SELECT 1 FROM device_assignments da JOIN devices d ON d.id = da.device_id
                          WHERE da.race_id = r.id AND d.source = 'spot' AND da.unassigned_at IS NULL))
        ORDER BY r.id`,
  );
  return res.map((r) => Number(r.id));
}
