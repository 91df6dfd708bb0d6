import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import type { DeviceRef } from './types';

/** Helpers shared by the ingestion repositories, which write raw SQL (one statement per batch). */

export interface Row {
  [k: string]: unknown;
}

/** The rows of a raw statement, whichever driver ran it. */
export async function rows(db: DbOrTx, q: SQL): Promise<Row[]> {
  const res = (await db.execute(q)) as unknown as { rows: Row[] };
  return res.rows;
}

export const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * A device reference as the columns a statement looks the device up by: tracking key, our device id, or the
 * source with its hardware ids (trimmed and lower-cased: matching is case-insensitive).
 */
export function refColumns(ref: DeviceRef): {
  key: string | null;
  src: string | null;
  hw: string[] | null;
  dev: number | null;
} {
  if ('trackingKey' in ref) return { key: ref.trackingKey, src: null, hw: null, dev: null };
  if ('deviceId' in ref) return { key: null, src: null, hw: null, dev: ref.deviceId };
  return { key: null, src: ref.source, hw: ref.hardwareIds.map((h) => h.trim().toLowerCase()), dev: null };
}

/** The id of the device a reference names, as a scalar subquery (NULL when no device has it). */
export function deviceIdOf(ref: DeviceRef): SQL {
  const c = refColumns(ref);
  const hw = JSON.stringify(c.hw ?? []);
  return sql`COALESCE(
    (SELECT id FROM devices WHERE ${c.key}::text IS NOT NULL AND tracking_key = ${c.key}),
    (SELECT id FROM devices WHERE ${c.dev}::int IS NOT NULL AND id = ${c.dev}),
    (SELECT id FROM devices WHERE source = ${c.src}
       AND lower(hardware_id) IN (SELECT jsonb_array_elements_text(${hw}::jsonb)) ORDER BY id LIMIT 1))`;
}
