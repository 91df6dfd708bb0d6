import type { ServerResponse } from 'node:http';
import type { Alert } from '@racebeacon/domain';
import type { EventBus, LiveEvent } from '../events/bus';

/**
 * The race HQ live stream (text/event-stream, read by the web with fetch streaming since it carries a bearer
 * token): on connect one `alerts` event with the race's open and acknowledged alerts, then one `alert` event per
 * change of an alert of that race — raised, refreshed, acknowledged, resolved — whichever process made it (the bus's
 * `alert-changed`), and a comment line every `heartbeatMs`. The admins' stream (ALL_ALERTS) gets every alert's
 * change, those of devices in no race included. An alert is read from the database once per process
 * and change, however many viewers.
 */

export interface AlertStreamHubOptions {
  bus: EventBus;
  /** The alert as the API shows it, or null when it is gone. */
  load(alertId: number): Promise<Alert | null>;
  log: { warn(obj: unknown, msg?: string): void };
  heartbeatMs?: number;
  /** A viewer whose unsent output exceeds this is dropped (the web reconnects and gets the current list). */
  maxBufferedBytes?: number;
  /**
   * Most HQ streams one client (`clientKey`) holds at once, like the live streams (LIVE_MAX_STREAMS_PER_CLIENT);
   * 0: no cap.
   */
  maxStreamsPerClient?: number;
}

/** A place for one HQ stream of a client, given back (once) when the stream ends or never opens. */
export interface AlertStreamSlot {
  release(): void;
}

/** The admins' stream: every alert's change, of every race and of devices in no race. */
export const ALL_ALERTS = 'all';

const encode = (event: string, data: unknown) =>
  Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

export class AlertStreamHub {
  /** Viewers per race, and the admins' viewers of every alert (ALL_ALERTS). */
  private readonly viewers = new Map<number | typeof ALL_ALERTS, Set<ServerResponse>>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /** Streams open or being prepared, per client key. */
  private readonly byClient = new Map<string, number>();

  constructor(private readonly opts: AlertStreamHubOptions) {
    this.unsubscribe = opts.bus.subscribe((e) => this.onEvent(e));
    this.heartbeat = setInterval(() => this.beat(), opts.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  /**
   * A slot for one more stream of `client` (a `clientKey`), taken before the alerts are read so concurrent requests
   * cannot overshoot the cap; null when the client holds as many as allowed.
   */
  admit(client: string): AlertStreamSlot | null {
    const mine = this.byClient.get(client) ?? 0;
    const max = this.opts.maxStreamsPerClient ?? 0;
    if (max > 0 && mine >= max) return null;
    this.byClient.set(client, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const n = (this.byClient.get(client) ?? 1) - 1;
        if (n > 0) this.byClient.set(client, n);
        else this.byClient.delete(client);
      },
    };
  }

  /**
   * Takes over the response: headers, the current alerts, then every change until the viewer leaves; `slot` (from
   * `admit`) is given back then.
   */
  open(
    raceId: number | typeof ALL_ALERTS,
    res: ServerResponse,
    current: Alert[],
    slot?: AlertStreamSlot,
  ): void {
    if (res.destroyed || !res.socket || res.socket.destroyed) {
      // The client left while its alerts were read: its 'close' has already fired, nothing would end this one.
      slot?.release();
      return;
    }
    if (this.closed) {
      slot?.release();
      res.writeHead(503, { connection: 'close' }).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let set = this.viewers.get(raceId);
    if (!set) this.viewers.set(raceId, (set = new Set()));
    set.add(res);
    const leave = () => {
      slot?.release();
      const s = this.viewers.get(raceId);
      s?.delete(res);
      if (s && !s.size) this.viewers.delete(raceId);
    };
    res.on('close', leave);
    res.on('error', leave);
    res.write(Buffer.from('retry: 3000\n\n'));
    res.write(encode('alerts', current));
  }

  viewerCount(raceId?: number | typeof ALL_ALERTS): number {
    if (raceId !== undefined) return this.viewers.get(raceId)?.size ?? 0;
    let n = 0;
    for (const s of this.viewers.values()) n += s.size;
    return n;
  }

  /** Ends every stream (before the HTTP server closes). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const set of this.viewers.values()) for (const res of set) res.end();
    this.viewers.clear();
  }

  private onEvent(e: LiveEvent) {
    if (this.closed || e.type !== 'alert-changed') return;
    const raceId = e.raceId;
    const race = raceId !== null && this.viewers.has(raceId);
    if (!race && !this.viewers.has(ALL_ALERTS)) return;
    this.opts
      .load(e.alertId)
      .then((alert) => {
        if (!alert) return;
        const message = encode('alert', alert);
        if (race && alert.RaceId === raceId) this.broadcast(raceId, message);
        this.broadcast(ALL_ALERTS, message);
      })
      .catch((err: unknown) => this.opts.log.warn({ err, alertId: e.alertId }, 'HQ stream: alert not read'));
  }

  private broadcast(raceId: number | typeof ALL_ALERTS, message: Buffer) {
    const max = this.opts.maxBufferedBytes ?? 1024 * 1024;
    for (const res of this.viewers.get(raceId) ?? []) {
      if (res.writableLength > max) {
        res.destroy();
        continue;
      }
      res.write(message);
    }
  }

  private beat() {
    const line = Buffer.from(`: heartbeat ${Date.now()}\n\n`);
    for (const set of this.viewers.values()) for (const res of set) res.write(line);
  }
}
