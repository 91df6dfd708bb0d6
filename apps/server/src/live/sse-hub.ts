import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';

/**
 * Server-Sent Events plumbing for the live race: viewers grouped by race, one pre-encoded Buffer written to every
 * viewer of a race (serialised once, however many viewers), heartbeats, back-pressure and shutdown.
 * Knows nothing about races or leaderboards: it moves bytes. It also caps how many streams are open, in total and
 * per client address, because each one holds a file descriptor for as long as the viewer watches (see `admit`).
 */

export interface SseHubOptions {
  /** Comment line sent to every viewer this often so proxies keep the connection open. */
  heartbeatMs?: number;
  /** Reconnect delay advertised to clients: base + random jitter, so a restart does not cause a storm. */
  retryBaseMs?: number;
  retryJitterMs?: number;
  /**
   * Reconnect delay sent to every viewer when the hub closes (graceful stop): base + random jitter, short, since
   * behind a load balancer the viewer reconnects to another process at once; spread so they do not all come together.
   */
  closeRetryBaseMs?: number;
  closeRetryJitterMs?: number;
  /** A viewer whose unsent output exceeds this is dropped (it reconnects and gets a fresh snapshot). */
  maxBufferedBytes?: number;
  /** Viewers written to per event-loop turn during a broadcast. */
  broadcastSlice?: number;
  /** Most streams open at once (default: unlimited; the server passes LIVE_MAX_STREAMS). */
  maxStreams?: number;
  /** Most streams open at once per client (`clientKey`, lib/client-key.ts); 0 = no per-client cap. */
  maxStreamsPerClient?: number;
}

/**
 * A place for one stream, taken before anything slow (reading the race) so concurrent requests cannot overshoot
 * the caps, and given back when the stream ends or never opens. `release` is idempotent.
 */
export interface StreamSlot {
  readonly client: string;
  release(): void;
}

export type StreamAdmission = { ok: true; slot: StreamSlot } | { ok: false; limit: 'client' | 'total' };

/** The process's open-file limit (soft; Node raises it to the hard limit at start), or null where unknown. */
export function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m) return null;
    return m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    return null; // not Linux
  }
}

/** Ceiling of the default stream cap: what one process was measured to serve (bench/live.bench.ts, 10,000 viewers). */
export const MAX_STREAMS_CEILING = 10_000;
/** Default cap when the open-file limit is unknown. */
export const MAX_STREAMS_UNKNOWN_LIMIT = 1_000;

/**
 * Default LIVE_MAX_STREAMS from the open-file limit. Every stream holds one descriptor for as long as it is open;
 * the rest of the process needs descriptors too (tracker pings and API requests — each a socket —, the database
 * pool and LISTEN connection, PGlite's files, the log). A quarter of the limit, at least 256, stays for them, so a
 * full stream cap never makes pings or API calls fail; and never more than MAX_STREAMS_CEILING streams.
 */
export function defaultMaxStreams(fdLimit: number | null = openFileLimit()): number {
  if (fdLimit === null || !Number.isFinite(fdLimit)) {
    return fdLimit === null ? MAX_STREAMS_UNKNOWN_LIMIT : MAX_STREAMS_CEILING;
  }
  const reserve = Math.max(256, Math.floor(fdLimit / 4));
  return Math.max(1, Math.min(MAX_STREAMS_CEILING, fdLimit - reserve));
}

interface Viewer {
  res: ServerResponse;
  raceId: number;
  /** The message format the viewer reads (0: the first stream; 1: the compact one, `?v=4`). */
  channel: number;
}

const NO_SLOT: StreamSlot = { client: '', release: () => {} };

/** One SSE message, encoded once. `id` lets a reconnecting EventSource resume (it sends Last-Event-ID). */
export function encodeSseMessage(event: string, data: string, id?: string): Buffer {
  // data must not contain raw newlines: JSON.stringify output never does.
  return Buffer.from(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${data}\n\n`);
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export class SseHub {
  private readonly byRace = new Map<number, Set<Viewer>>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly opts: Required<SseHubOptions>;
  private closed = false;
  /** Slots taken (streams open or being prepared), in total and per client key. */
  private slots = 0;
  private readonly slotsByClient = new Map<string, number>();
  /** Broadcasts to many viewers still being written slice by slice (in the order they were sent). */
  private readonly fanOuts = new Set<{ viewers: Viewer[]; message: Buffer; next: number }>();

  constructor(opts: SseHubOptions = {}) {
    this.opts = {
      heartbeatMs: opts.heartbeatMs ?? 20_000,
      retryBaseMs: opts.retryBaseMs ?? 3_000,
      retryJitterMs: opts.retryJitterMs ?? 7_000,
      closeRetryBaseMs: opts.closeRetryBaseMs ?? 250,
      closeRetryJitterMs: opts.closeRetryJitterMs ?? 1_750,
      maxBufferedBytes: opts.maxBufferedBytes ?? 4 * 1024 * 1024,
      broadcastSlice: opts.broadcastSlice ?? 2000,
      maxStreams: opts.maxStreams ?? Infinity,
      maxStreamsPerClient: opts.maxStreamsPerClient ?? 0,
    };
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Takes a slot for one more stream of `client` (a `clientKey`), or says which cap refuses it: the client's
   * own (checked first: one greedy client is told so even when the server is also full) or the total.
   */
  admit(client: string): StreamAdmission {
    const mine = this.slotsByClient.get(client) ?? 0;
    const perClient = this.opts.maxStreamsPerClient;
    if (perClient > 0 && mine >= perClient) return { ok: false, limit: 'client' };
    if (this.slots >= this.opts.maxStreams) return { ok: false, limit: 'total' };
    this.slots++;
    this.slotsByClient.set(client, mine + 1);
    let released = false;
    return {
      ok: true,
      slot: {
        client,
        release: () => {
          if (released) return;
          released = true;
          this.slots--;
          const n = (this.slotsByClient.get(client) ?? 1) - 1;
          if (n > 0) this.slotsByClient.set(client, n);
          else this.slotsByClient.delete(client);
        },
      },
    };
  }

  /** Slots taken: streams open or being prepared, of one client or in total. */
  streamCount(client?: string): number {
    return client === undefined ? this.slots : (this.slotsByClient.get(client) ?? 0);
  }

  /**
   * Takes over `res` as an event stream for `raceId`: writes headers, the retry hint and `initial` messages.
   * `onClose` runs once when the viewer goes away (client disconnect, drop, or hub shutdown); `slot` (from `admit`)
   * is given back then, or at once when the stream does not open. `channel`: the message format the viewer reads.
   */
  open(
    raceId: number,
    res: ServerResponse,
    initial: Buffer[],
    onClose?: () => void,
    slot = NO_SLOT,
    channel = 0,
  ): void {
    if (this.closed) {
      slot.release();
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: 'shutting_down', message: 'The server is shutting down.' }));
      return;
    }
    if (res.destroyed || !res.socket || res.socket.destroyed) {
      // The client left while the race was being read: its 'close' has already fired, nothing would end this one.
      slot.release();
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and similar proxies must not buffer the stream
      'x-accel-buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    const retry = this.opts.retryBaseMs + Math.floor(Math.random() * this.opts.retryJitterMs);
    res.write(`retry: ${retry}\n\n`);
    for (const b of initial) res.write(b);

    const viewer: Viewer = { res, raceId, channel };
    let set = this.byRace.get(raceId);
    if (!set) this.byRace.set(raceId, (set = new Set()));
    set.add(viewer);
    const cleanup = () => {
      const s = this.byRace.get(raceId);
      if (s?.delete(viewer) && s.size === 0) this.byRace.delete(raceId);
      slot.release();
      onClose?.();
    };
    res.once('close', cleanup);
  }

  /**
   * Writes one already-encoded message to every viewer of the race. Thousands of viewers are served in slices, so
   * ingestion requests and other races are not held up for the whole fan-out; slices run in FIFO order, so every
   * viewer still gets the messages in order. With `channel`, only the viewers reading that message format (or one
   * of those listed).
   */
  broadcast(raceId: number, message: Buffer, channel?: number | readonly number[]): number {
    const set = this.byRace.get(raceId);
    if (!set) return 0;
    const slice = this.opts.broadcastSlice;
    const reads =
      channel === undefined
        ? () => true
        : typeof channel === 'number'
          ? (v: Viewer) => v.channel === channel
          : (v: Viewer) => channel.includes(v.channel);
    if (set.size <= slice) {
      let n = 0;
      for (const v of set) {
        if (!reads(v)) continue;
        this.write(v, message);
        n++;
      }
      return n;
    }
    const viewers = [...set].filter(reads);
    const fanOut = { viewers, message, next: 0 };
    const writeFrom = () => {
      if (this.closed) return; // close() wrote the rest
      const end = Math.min(viewers.length, fanOut.next + slice);
      for (let i = fanOut.next; i < end; i++) this.write(viewers[i], message);
      fanOut.next = end;
      if (end < viewers.length) setImmediate(writeFrom);
      else this.fanOuts.delete(fanOut);
    };
    this.fanOuts.add(fanOut);
    writeFrom();
    return viewers.length;
  }

  viewerCount(raceId?: number, channel?: number): number {
    if (raceId !== undefined && channel !== undefined) {
      let n = 0;
      for (const v of this.byRace.get(raceId) ?? []) if (v.channel === channel) n++;
      return n;
    }
    if (raceId !== undefined) return this.byRace.get(raceId)?.size ?? 0;
    let n = 0;
    for (const s of this.byRace.values()) n += s.size;
    return n;
  }

  /** Ends the streams of one race (it is no longer public). */
  closeRace(raceId: number): void {
    for (const v of [...(this.byRace.get(raceId) ?? [])]) v.res.end();
  }

  /**
   * Ends every stream (graceful shutdown: the HTTP server cannot close while they are open), after the rest of any
   * broadcast still being written, each with a short `retry:` first, so the viewer reconnects soon (to another
   * process, behind a load balancer) and resumes with its Last-Event-ID instead of waiting the long everyday delay.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    // Broadcasts still being written slice by slice reach their last viewers first, in the order they were sent.
    for (const f of this.fanOuts)
      for (let i = f.next; i < f.viewers.length; i++) this.write(f.viewers[i], f.message);
    this.fanOuts.clear();
    const { closeRetryBaseMs, closeRetryJitterMs } = this.opts;
    for (const set of [...this.byRace.values()]) {
      for (const v of [...set]) {
        // End the response, then the connection: an idle keep-alive socket would hold server.close() up.
        const socket = v.res.socket;
        if (!v.res.writableEnded && !v.res.destroyed)
          v.res.write(`retry: ${closeRetryBaseMs + Math.floor(Math.random() * closeRetryJitterMs)}\n\n`);
        v.res.end(() => socket?.end());
      }
    }
    this.byRace.clear();
  }

  private write(v: Viewer, message: Buffer) {
    const { res } = v;
    if (res.writableEnded || res.destroyed) return;
    // A viewer that cannot keep up would make us hold every message for it; drop it instead.
    if (res.writableLength > this.opts.maxBufferedBytes) {
      res.destroy();
      return;
    }
    res.write(message);
  }

  private beat() {
    for (const set of this.byRace.values()) for (const v of set) this.write(v, HEARTBEAT);
  }
}
