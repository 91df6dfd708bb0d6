import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Db } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import { rows } from './sql';

/**
 * The device's newest-fix columns (last_ping_time, last_lat, last_lon, battery_percent, battery_state), written off
 * the acknowledgement path (docs/decisions/ingest-device-state.md). A fix is acknowledged once its positions row is
 * committed — the durable truth, announced to every process in the same transaction; the device row is a summary
 * of it. Updating that row in the batch statement cost PostgreSQL about as much as inserting the fix (a new row
 * version of the device per batch, its lock, its WAL), for a value the Devices screen shows to the second.
 *
 * So the fixes a batch stored are noted here, newest per device, and written by one statement per flush, at most
 * FLUSH_MS later: one UPDATE row per device whatever number of fixes it sent meanwhile; never moving last_ping_time
 * backwards (the statement only moves it forward, so processes of a cluster flushing in any order agree); the
 * battery of the newest fix, or the newest battery reported in the window when that fix carries none (as the
 * batch statement did across batches). Flushed on graceful stop. A crash loses at most the last FLUSH_MS of
 * last-ping freshness — never a fix: the positions rows are stored.
 */
export const FLUSH_MS = 1000;
/** The longest a graceful stop waits for the last flush. */
const CLOSE_WAIT_MS = 2000;

export interface DeviceFixState {
  deviceId: number;
  /** Fix time, ms. */
  t: number;
  lat: number;
  lon: number;
  batteryPercent: number | null;
  batteryState: string | null;
}

/**
 * Devices locked in id order (two processes flushing the same devices cannot deadlock), FOR NO KEY UPDATE (the
 * lock the UPDATE takes anyway; it does not block the positions inserts' foreign-key checks).
 */
const updateQuery = (json: string) => sql`
  WITH n AS (
    SELECT * FROM jsonb_to_recordset(${json}::jsonb) AS n(id int, t timestamptz, lat float8, lon float8, bp real, bs text)
  ), lk AS (
    SELECT id FROM devices WHERE id = ANY (ARRAY(SELECT id FROM n)) ORDER BY id FOR NO KEY UPDATE
  )
  UPDATE devices d
  SET last_ping_time = n.t, last_lat = n.lat, last_lon = n.lon,
      battery_percent = COALESCE(n.bp, d.battery_percent),
      battery_state = COALESCE(n.bs, d.battery_state)
  FROM n
  WHERE d.id = n.id AND d.id = ANY (ARRAY(SELECT id FROM lk))
    AND (d.last_ping_time IS NULL OR d.last_ping_time < n.t)`;

const STATEMENT = 'racebeacon_device_state';
let statementText: string | undefined;

const num = (v: number | null) => (v === null || !Number.isFinite(v) ? 'null' : String(v));

export interface DeviceStateWriterOptions {
  db: Db;
  /** PostgreSQL pool: the update runs as a prepared statement on it. */
  pool?: pg.Pool;
  log: FastifyBaseLogger;
  flushMs?: number;
}

export class DeviceStateWriter {
  private pending = new Map<number, DeviceFixState>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly flushMs: number;

  constructor(private readonly opts: DeviceStateWriterOptions) {
    this.flushMs = opts.flushMs ?? FLUSH_MS;
  }

  /** Notes a stored fix of a device: kept when it is the newest the writer holds for that device. */
  note(s: DeviceFixState): void {
    const held = this.pending.get(s.deviceId);
    if (held === undefined) this.pending.set(s.deviceId, s);
    else if (s.t > held.t) {
      // The newest battery of the window when the newest fix carries none (COALESCE keeps the device's otherwise).
      if (s.batteryPercent === null) s.batteryPercent = held.batteryPercent;
      if (s.batteryState === null) s.batteryState = held.batteryState;
      this.pending.set(s.deviceId, s);
    } else {
      return;
    }
    if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything noted so far (after a flush already running); resolves once written or given up. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    this.running = this.write(batch).finally(() => (this.running = null));
    await this.running;
  }

  /**
   * Stops the timer and writes what is pending (graceful stop), waiting at most CLOSE_WAIT_MS: with the database
   * away a stop must not wait for the pool's connection timeout; what is then not written is what a crash loses.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        timeout = setTimeout(() => {
          this.opts.log.warn('device last-ping update still unwritten at stop: given up');
          resolve();
        }, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timeout);
  }

  private async write(batch: Map<number, DeviceFixState>): Promise<void> {
    // In id order: the statement locks in that order too.
    const ids = [...batch.keys()].sort((a, b) => a - b);
    const parts = new Array<string>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const s = batch.get(ids[i])!;
      parts[i] =
        `{"id":${s.deviceId},"t":"${new Date(s.t).toISOString()}","lat":${s.lat},"lon":${s.lon},` +
        `"bp":${num(s.batteryPercent)},"bs":${s.batteryState === null ? 'null' : JSON.stringify(s.batteryState)}}`;
    }
    const json = `[${parts.join(',')}]`;
    try {
      const { pool, db } = this.opts;
      if (pool) {
        statementText ??= new PgDialect().sqlToQuery(updateQuery('[]')).sql;
        await pool.query({ name: STATEMENT, text: statementText, values: [json] });
      } else {
        await rows(db, updateQuery(json));
      }
    } catch (err) {
      // Kept for the next flush (merged with what arrived since, the newest winning), unless stopping.
      for (const s of batch.values()) {
        const held = this.pending.get(s.deviceId);
        if (held && held.t > s.t) {
          held.batteryPercent ??= s.batteryPercent;
          held.batteryState ??= s.batteryState;
        } else this.note(s);
      }
      if (!isDatabaseUnavailable(err))
        this.opts.log.warn({ err, devices: batch.size }, 'device last-ping update failed; retried');
      if (this.closed) this.pending.clear();
    }
  }
}
