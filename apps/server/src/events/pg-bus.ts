import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { silentLogger, Subscribers, type BusLogger, type EventBus, type LiveEvent } from './bus';

/**
 * The event bus across processes: PostgreSQL LISTEN/NOTIFY on one channel, events packed several to a notification,
 * a dedicated LISTEN connection reconnected with capped, jittered back-off.
 */

export const NOTIFY_CHANNEL = 'racebeacon_events';
/** NOTIFY payloads must stay under 8000 bytes; keep a margin for the envelope. */
const MAX_PAYLOAD_BYTES = 7000;

/**
 * A NOTIFY payload: the sending process's id, a newline, then a JSON array of events. The id comes first so a
 * process can skip its own notifications without parsing them.
 */
export function packEnvelopes(origin: string, events: LiveEvent[], maxBytes = MAX_PAYLOAD_BYTES): string[] {
  const out: string[] = [];
  let batch: string[] = [];
  let size = 0;
  const overhead = Buffer.byteLength(origin) + 3;
  const flush = () => {
    if (batch.length) out.push(`${origin}\n[${batch.join(',')}]`);
    batch = [];
    size = 0;
  };
  for (const e of events) {
    const json = JSON.stringify(e);
    const len = Buffer.byteLength(json) + 1;
    if (overhead + len > maxBytes) continue; // cannot happen with our event shapes; never send an oversized one
    if (overhead + size + len > maxBytes) flush();
    batch.push(json);
    size += len;
  }
  flush();
  return out;
}

/**
 * Marker of a payload of positions in compact form, right after the origin line: the ingest statement announces the
 * fixes it stores itself (pg_notify in its own transaction, ingest/fix-repository.ts), each as a JSON array
 * `CompactPosition` instead of an object with its field names — a third of the bytes, so more fixes per NOTIFY.
 */
export const POSITIONS_MARKER = 'p';

/**
 * [raceId, runnerId, deviceId, positionId, fixTimeMs, receivedAtMs, lat, lon, altitude, speed, batteryPercent,
 * batteryState, source, accuracy?]: the accuracy (metres) only when the device reported one, so a fix without it
 * costs no byte, and a 13-element array (a process that predates it) still reads, as no accuracy.
 */
export type CompactPosition = [
  number | null,
  number | null,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  string | null,
  string,
  (number | null)?,
];

export function decodePosition(a: CompactPosition): Extract<LiveEvent, { type: 'position' }> {
  return {
    type: 'position',
    raceId: a[0],
    runnerId: a[1],
    deviceId: a[2],
    positionId: a[3],
    fixTime: new Date(a[4]).toISOString(),
    receivedAt: new Date(a[5]).toISOString(),
    lat: a[6],
    lon: a[7],
    altitude: a[8],
    speed: a[9],
    batteryPercent: a[10],
    batteryState: a[11],
    source: a[12],
    accuracy: a[13] ?? null,
  };
}

export function unpackEnvelope(payload: string): { origin: string; events: LiveEvent[] } | null {
  const nl = payload.indexOf('\n');
  if (nl < 0) return null;
  const compact = payload.startsWith(POSITIONS_MARKER, nl + 1);
  try {
    const events = JSON.parse(payload.slice(nl + (compact ? 2 : 1))) as unknown;
    if (!Array.isArray(events)) return null;
    return {
      origin: payload.slice(0, nl),
      events: compact ? (events as CompactPosition[]).map(decodePosition) : (events as LiveEvent[]),
    };
  } catch {
    return null;
  }
}

export interface PgBusOptions {
  /** Connection string for the dedicated LISTEN connection. */
  url: string;
  /** Pool used to send NOTIFY (any connection works). */
  pool: pg.Pool;
  log?: BusLogger;
  /** Delay before reconnecting a dropped LISTEN connection; doubles on each failure up to `maxReconnectMs`. */
  reconnectMs?: number;
  /**
   * Longest delay between reconnect attempts (default 2 s): kept low so a process catches up within seconds of the
   * database coming back. Each delay is jittered (between half and all of it) so processes do not retry in step.
   */
  maxReconnectMs?: number;
}

/**
 * PostgreSQL: LISTEN/NOTIFY reaches every server process sharing the database. Events published in the same
 * tick are sent together (several per NOTIFY, one round trip). The publishing process delivers its own events
 * locally at once and ignores their echo, so each process sees each event exactly once.
 */
export async function createPgBus(opts: PgBusOptions): Promise<EventBus> {
  const log = opts.log ?? silentLogger;
  const origin = randomUUID();
  const subs = new Subscribers(log);
  const baseDelay = opts.reconnectMs ?? 250;
  const maxDelay = Math.max(baseDelay, opts.maxReconnectMs ?? 2000);
  let closed = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let delay = baseDelay;
  /** When the LISTEN connection was lost (null while it is up). */
  let lostAt: number | null = null;
  let failedAttempts = 0;
  const reconnectListeners = new Set<() => void>();

  let queue: { e: LiveEvent; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let scheduled = false;

  const ownPrefix = `${origin}\n`;
  function onNotification(msg: pg.Notification) {
    if (msg.channel !== NOTIFY_CHANNEL || !msg.payload || msg.payload.startsWith(ownPrefix)) return;
    const env = unpackEnvelope(msg.payload);
    if (env) for (const e of env.events) subs.deliver(e);
  }

  /** The active LISTEN connection is gone (logged once per loss, not per failed attempt). */
  function lost(c: pg.Client, err?: Error) {
    if (client !== c) return;
    client = null;
    c.removeAllListeners('notification');
    c.end().catch(() => {});
    if (closed) return;
    lostAt = Date.now();
    failedAttempts = 0;
    delay = baseDelay;
    log.warn(
      { reason: err ? `${(err as { code?: string }).code ?? ''} ${err.message}`.trim() : 'connection ended' },
      'event bus LISTEN connection lost; reconnecting (events from other processes are missed meanwhile)',
    );
    scheduleReconnect();
  }

  async function connect(): Promise<void> {
    // keepAlive: a silently dropped connection (no FIN from a dead host) is noticed too.
    const c = new pg.Client({ connectionString: opts.url, keepAlive: true });
    c.on('notification', onNotification);
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (err) {
      c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    delay = baseDelay;
    if (lostAt !== null) {
      const downMs = Date.now() - lostAt;
      lostAt = null;
      (log.info ?? log.warn).call(
        log,
        { downMs, failedAttempts },
        'event bus LISTEN connection restored; live state catches up from the database',
      );
      for (const fn of [...reconnectListeners]) {
        try {
          fn();
        } catch (err) {
          log.error({ err }, 'event bus reconnect listener failed');
        }
      }
    }
  }

  function scheduleReconnect() {
    if (closed || retryTimer) return;
    // Between half and all of the current delay: processes that lost the database together do not retry in step.
    const wait = Math.round(delay / 2 + (Math.random() * delay) / 2);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect().catch(() => {
        failedAttempts++;
        delay = Math.min(delay * 2, maxDelay);
        scheduleReconnect();
      });
    }, wait);
    retryTimer.unref();
  }

  async function flush() {
    scheduled = false;
    const items = queue;
    queue = [];
    if (!items.length) return;
    try {
      const payloads = packEnvelopes(
        origin,
        items.map((i) => i.e),
      );
      await opts.pool.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [
        NOTIFY_CHANNEL,
        payloads,
      ]);
      for (const i of items) i.resolve();
    } catch (err) {
      log.error({ err }, 'event bus NOTIFY failed');
      for (const i of items) i.reject(err);
    }
  }

  await connect();

  return {
    publish(e) {
      if (closed) return Promise.resolve();
      subs.deliver(e);
      return new Promise<void>((resolve, reject) => {
        queue.push({ e, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
    subscribe: (fn) => subs.add(fn),
    listening: () => !closed && client !== null,
    positionNotify: () => ({ channel: NOTIFY_CHANNEL, prefix: `${origin}\n${POSITIONS_MARKER}` }),
    deliverLocal(events) {
      if (!closed) for (const e of events) subs.deliver(e);
    },
    onReconnect(fn) {
      reconnectListeners.add(fn);
      return () => void reconnectListeners.delete(fn);
    },
    async close() {
      if (closed) return;
      await flush();
      closed = true;
      subs.clear();
      reconnectListeners.clear();
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
