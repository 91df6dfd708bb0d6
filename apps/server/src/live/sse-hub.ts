import type { ServerResponse } from 'node:http';

/**
 * Server-Sent Events plumbing for the live race: viewers grouped by race, one pre-encoded Buffer written to every
 * viewer of a race (serialised once, however many viewers), heartbeats, back-pressure and shutdown.
 * Knows nothing about races or leaderboards: it moves bytes.
 */

export interface SseHubOptions {
  /** Comment line sent to every viewer this often so proxies keep the connection open. */
  heartbeatMs?: number;
  /** Reconnect delay advertised to clients: base + random jitter, so a restart does not cause a storm. */
  retryBaseMs?: number;
  retryJitterMs?: number;
  /** A viewer whose unsent output exceeds this is dropped (it reconnects and gets a fresh snapshot). */
  maxBufferedBytes?: number;
  /** Viewers written to per event-loop turn during a broadcast. */
  broadcastSlice?: number;
}

interface Viewer {
  res: ServerResponse;
  raceId: number;
}

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

  constructor(opts: SseHubOptions = {}) {
    this.opts = {
      heartbeatMs: opts.heartbeatMs ?? 20_000,
      retryBaseMs: opts.retryBaseMs ?? 3_000,
      retryJitterMs: opts.retryJitterMs ?? 7_000,
      maxBufferedBytes: opts.maxBufferedBytes ?? 4 * 1024 * 1024,
      broadcastSlice: opts.broadcastSlice ?? 2000,
    };
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Takes over `res` as an event stream for `raceId`: writes headers, the retry hint and `initial` messages.
   * `onClose` runs once when the viewer goes away (client disconnect, drop, or hub shutdown).
   */
  open(raceId: number, res: ServerResponse, initial: Buffer[], onClose?: () => void): void {
    if (this.closed) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'shutting_down', message: 'The server is shutting down.' }));
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

    const viewer: Viewer = { res, raceId };
    let set = this.byRace.get(raceId);
    if (!set) this.byRace.set(raceId, (set = new Set()));
    set.add(viewer);
    const cleanup = () => {
      const s = this.byRace.get(raceId);
      if (s?.delete(viewer) && s.size === 0) this.byRace.delete(raceId);
      onClose?.();
    };
    res.once('close', cleanup);
  }

  /**
   * Writes one already-encoded message to every viewer of the race. Thousands of viewers are served in slices, so
   * ingestion requests and other races are not held up for the whole fan-out; slices run in FIFO order, so every
   * viewer still gets the messages in order.
   */
  broadcast(raceId: number, message: Buffer): number {
    const set = this.byRace.get(raceId);
    if (!set) return 0;
    const slice = this.opts.broadcastSlice;
    if (set.size <= slice) {
      for (const v of set) this.write(v, message);
      return set.size;
    }
    const viewers = [...set];
    const writeFrom = (from: number) => {
      const end = Math.min(viewers.length, from + slice);
      for (let i = from; i < end; i++) this.write(viewers[i], message);
      if (end < viewers.length && !this.closed) setImmediate(writeFrom, end);
    };
    writeFrom(0);
    return viewers.length;
  }

  viewerCount(raceId?: number): number {
    if (raceId !== undefined) return this.byRace.get(raceId)?.size ?? 0;
    let n = 0;
    for (const s of this.byRace.values()) n += s.size;
    return n;
  }

  /** Ends the streams of one race (it is no longer public). */
  closeRace(raceId: number): void {
    for (const v of [...(this.byRace.get(raceId) ?? [])]) v.res.end();
  }

  /** Ends every stream (graceful shutdown: the HTTP server cannot close while they are open). */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const set of [...this.byRace.values()]) {
      for (const v of [...set]) {
        // End the response, then the connection: an idle keep-alive socket would hold server.close() up.
        const socket = v.res.socket;
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
