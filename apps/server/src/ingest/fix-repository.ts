import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { DbOrTx } from '../db/client';
import { holderAt } from './attribution-repository';
import { deviceIdOf, iso, numOrNull, refColumns, rows, type Row } from './sql';
import type { DeviceRef, FixInput } from './types';

/**
 * Storage of fixes. A batch is stored by ONE statement (device lookup, attribution, idempotent insert and, with
 * `notify`, its announcement as CTEs), so a batch is atomic and costs one round trip. The device's newest-fix
 * columns are not in it: device-state.ts writes them after the acknowledgement, coalesced per device.
 */

export interface StoredRow {
  idx: number;
  deviceId: number | null;
  positionId: number | null;
  raceId: number | null;
  runnerId: number | null;
  receivedAt: string | null;
}

/** What the batch statement announces its stored fixes with (the event bus's `positionNotify`). */
export interface FixNotify {
  channel: string;
  /** Payload prefix: the sending process's id and the compact positions marker (events/pg-bus.ts). */
  prefix: string;
}

/** A NOTIFY payload must stay under 8000 bytes: the statement packs fixes up to this many bytes into each. */
const NOTIFY_PACK_BYTES = 6000;

/**
 * The batch statement; its parameters are the batch as JSON and, with `notify`, the channel and payload prefix.
 * With `notify` it also announces every fix it inserted with `pg_notify`, in the same transaction: PostgreSQL
 * delivers the notifications when (and only when) the transaction commits, so a fix that is stored is announced to
 * every process even when this one dies right after the commit, before the device's ack or anything else. Each
 * fix as a compact JSON array (pg-bus.ts `CompactPosition`), packed up to NOTIFY_PACK_BYTES per notification
 * (one NOTIFY per ~50 fixes, not one per fix). The part of each array the server already knows comes with the batch
 * as text (`tail`): building it per row with json_build_array cost PostgreSQL ~2–5 µs of its ~40 µs per fix.
 */
function storeFixesQuery(json: string, notify?: FixNotify): SQL {
  const announce = notify
    ? sql`, rt AS (
      -- Every row's received_at is now() (the transaction's start): its epoch ms worked out once.
      SELECT floor(extract(epoch FROM now()) * 1000)::bigint::text AS ms
    ), ev AS (
      -- What only the statement knows (race, runner, device, position id, receive time) in front of the rest of
      -- the compact array, which the batch brings ready-made ("tail": fix time ms, lat, lon, altitude, speed,
      -- battery, state, source): no JSON built per row here. One row per stored position (two copies of a fix in
      -- a batch share one).
      SELECT DISTINCT ON (j.position_id) '[' || coalesce(j.race_id::text, 'null') || ',' ||
          coalesce(j.runner_id::text, 'null') || ',' || j.device_id || ',' || j.position_id || ',' || j.fm || ',' ||
          rt.ms || ',' || j.tail || ']' AS e
      FROM j CROSS JOIN rt WHERE j.position_id IS NOT NULL
    ), evs AS (
      -- A running total in the rows' own order (no sort): notifications of at most NOTIFY_PACK_BYTES + one fix.
      SELECT e, sum(octet_length(e) + 1) OVER (ROWS UNBOUNDED PRECEDING) AS cum FROM ev
    ), nt AS (
      SELECT pg_notify(${notify.channel}::text, ${notify.prefix}::text || '[' || string_agg(e, ',') || ']')
      FROM evs GROUP BY floor(cum / ${sql.raw(String(NOTIFY_PACK_BYTES))})
    )`
    : sql``;
  return sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${json}::jsonb) AS x(
        idx int, key text, src text, hw text[], dev int, t timestamptz, lat float8, lon float8,
        alt float8, spd float8, bp real, bs text, source text, fm text, tail text, acc float8, hdg float8)
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
                             battery_percent, battery_state, source, accuracy_m, heading_deg)
      SELECT device_id, h_race, h_runner, t, lat, lon, alt, spd, bp, bs, source, acc, hdg FROM a
      ON CONFLICT (device_id, fix_time) DO NOTHING
      RETURNING id, device_id, fix_time, race_id, runner_id, received_at
    ), j AS (
      SELECT r.idx, r.device_id, r.fm, r.tail, ins.id AS position_id, ins.race_id, ins.runner_id, ins.received_at
      FROM r LEFT JOIN ins ON ins.device_id = r.device_id AND ins.fix_time = r.t
    )${announce}
    SELECT j.idx, j.device_id, j.position_id, j.race_id, j.runner_id, j.received_at
    FROM j${
      // Referenced so that it runs (a CTE nobody reads is not evaluated); count(*) reads all of it.
      notify ? sql` CROSS JOIN (SELECT count(*) FROM nt) announced` : sql``
    }
    ORDER BY j.idx`;
}

/**
 * The batch's result columns as PostgreSQL's text (numbers converted by numOrNull): every row of a statement has the
 * same received_at (now()), parsed once instead of into a Date per row.
 */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (v: string) => Date;

const statementText = new Map<string, string>();
const preparedText = (name: string, q: SQL) => {
  let text = statementText.get(name);
  if (text === undefined) statementText.set(name, (text = new PgDialect().sqlToQuery(q).sql));
  return text;
};

/**
 * Stores a batch; one result row per input (deviceId null = unknown device, positionId null = duplicate).
 * With a node-postgres pool the statement is prepared once per connection (planning the CTEs costs about as much
 * as running them for a small batch); with `notify` it also announces the stored fixes (see storeFixesQuery).
 */
export async function storeFixes(
  db: DbOrTx,
  fixes: FixInput[],
  pool?: pg.Pool,
  notify?: FixNotify,
): Promise<StoredRow[]> {
  const json = batchJson(fixes);
  let result: Row[];
  if (pool) {
    const name = notify ? 'racebeacon_store_fixes_notify' : 'racebeacon_store_fixes';
    const text = preparedText(name, storeFixesQuery('[]', notify ? { channel: '', prefix: '' } : undefined));
    const values = notify ? [json, notify.channel, notify.prefix] : [json];
    result = (await pool.query<Row>({ name, text, values, types: RAW_TEXT } as pg.QueryConfig)).rows;
  } else {
    result = await rows(db, storeFixesQuery(json));
  }
  const out = new Array<StoredRow>(result.length);
  let lastRaw: unknown = null;
  let lastIso: string | null = null;
  const receivedIso = (v: unknown): string | null => {
    if (v === null || v === undefined) return null;
    if (v !== lastRaw) {
      lastRaw = v;
      lastIso = iso(typeof v === 'string' && pool ? parseTimestamptz(v) : v);
    }
    return lastIso;
  };
  for (let i = 0; i < result.length; i++) {
    const row = result[i];
    out[i] = {
      idx: Number(row.idx),
      deviceId: numOrNull(row.device_id),
      positionId: numOrNull(row.position_id),
      raceId: numOrNull(row.race_id),
      runnerId: numOrNull(row.runner_id),
      receivedAt: receivedIso(row.received_at),
    };
  }
  return out;
}

/** The batch as the statement's JSON parameter, written directly (no intermediate object per fix). */
function batchJson(fixes: FixInput[]): string {
  const parts = new Array<string>(fixes.length);
  for (let idx = 0; idx < fixes.length; idx++) {
    const f = fixes[idx];
    const c = refColumns(f.device);
    const bs = f.batteryState == null ? 'null' : JSON.stringify(f.batteryState);
    const source = JSON.stringify(f.source);
    parts[idx] =
      `{"idx":${idx},"key":${JSON.stringify(c.key)},"src":${JSON.stringify(c.src)},"hw":${JSON.stringify(c.hw)},` +
      `"dev":${c.dev ?? 'null'},"t":"${f.fixTime.toISOString()}","lat":${f.lat},"lon":${f.lon},` +
      `"alt":${num(f.altitude)},"spd":${num(f.speed)},"bp":${num(f.batteryPercent)},` +
      `"bs":${bs},"source":${source},"fm":"${f.fixTime.getTime()}","tail":${JSON.stringify(
        `${f.lat},${f.lon},${num(f.altitude)},${num(f.speed)},${num(f.batteryPercent)},${bs},${source}${
          // The accuracy only when reported (CompactPosition's optional last element).
          f.accuracy != null && Number.isFinite(f.accuracy) ? `,${f.accuracy}` : ''
        }`,
      )},"acc":${num(f.accuracy)},"hdg":${num(f.heading)}}`;
  }
  return `[${parts.join(',')}]`;
}

/** A finite number as JSON, null otherwise (JSON.stringify writes NaN and Infinity as null too). */
const num = (v: number | null | undefined) => (v == null || !Number.isFinite(v) ? 'null' : String(v));

/** Whether a device has this reference (a credential checked on a request that carries no position). */
export async function deviceExists(db: DbOrTx, ref: DeviceRef): Promise<boolean> {
  const res = await rows(db, sql`SELECT ${deviceIdOf(ref)} AS id`);
  return res[0]?.id !== null && res[0]?.id !== undefined;
}
