/**
 * The internal event stream: its events, the bus interface and the in-process bus (PGlite: one process); the
 * PostgreSQL bus, which reaches every process sharing the database, is in pg-bus.ts. Ingestion publishes accepted
 * positions and battery reports (after their transaction committed) and device alerts, services publish race
 * changes; the live race and the jobs subscribe. Delivery is at most once per process: a dropped LISTEN connection
 * loses what was sent while it was down, so consumers that must be exact re-read the database.
 */
export type LiveEvent =
  | {
      type: 'position';
      raceId: number | null;
      runnerId: number | null;
      deviceId: number;
      positionId: number;
      fixTime: string;
      receivedAt: string;
      lat: number;
      lon: number;
      altitude: number | null;
      speed: number | null;
      batteryPercent: number | null;
      batteryState: string | null;
      source: string;
      /**
       * The horizontal accuracy the device reported (metres; null or absent: none), which the matcher weighs the fix
       * by. Optional: a payload from a process that predates it has none.
       */
      accuracy?: number | null;
    }
  | {
      /** A battery level reported without a position (LoRaWAN status, Meshtastic telemetry); `at`: received. */
      type: 'battery';
      raceId: number | null;
      runnerId: number | null;
      deviceId: number;
      at: string;
      batteryPercent: number | null;
      batteryState: string | null;
      source: string;
    }
  | { type: 'race-updated'; raceId: number }
  | {
      /**
       * An aid-station check-in was stored (checkins/): a fix of the runner at the checkpoint (source `check-in`),
       * applied by every process's live race like a GPS fix. `time`: the check-in time.
       */
      type: 'checkin';
      raceId: number;
      runnerId: number;
      checkpointId: number;
      kind: string;
      time: string;
      lat: number;
      lon: number;
    }
  | {
      /** A device message recorded in device_alerts (SOS, HELP and their cancellations, inReach texts). */
      type: 'alert';
      raceId: number | null;
      runnerId: number | null;
      deviceId: number;
      kind: string;
      at: string;
    }
  | {
      /**
       * A race HQ alert was raised, refreshed (LastSeenAt), acknowledged or resolved (alerts/): every process's HQ
       * streams of that race (raceId null: a device holding no race) re-read it and pass it on.
       */
      type: 'alert-changed';
      raceId: number | null;
      alertId: number;
    };

export interface EventBus {
  /** Call only after the data behind the event is committed. Resolves once other processes have been told. */
  publish(e: LiveEvent): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(fn: (e: LiveEvent) => void): () => void;
  /**
   * Whether events from other processes are being received now (PostgreSQL: the LISTEN connection is up; the
   * in-process bus always is). For the readiness check.
   */
  listening(): boolean;
  /**
   * Called each time a lost LISTEN connection is back: events sent while it was down were lost, so consumers that
   * keep state re-read the database. Returns the unsubscribe function.
   */
  onReconnect(fn: () => void): () => void;
  /**
   * PostgreSQL: how a statement that stores fixes announces them itself, with `pg_notify` in its own transaction,
   * so a committed fix is always announced (even when the process dies right after the commit) and costs no
   * second round trip: the channel and the payload prefix (this process's id and the compact positions marker,
   * see pg-bus.ts `decodePositions`). Null on the in-process bus.
   */
  positionNotify(): { channel: string; prefix: string } | null;
  /** Delivers events to this process's subscribers only (their NOTIFY went out with the statement). */
  deliverLocal(events: LiveEvent[]): void;
  close(): Promise<void>;
}

export interface BusLogger {
  info?(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export const silentLogger: BusLogger = { warn: () => {}, error: () => {} };

/** Local fan-out shared by both implementations. A throwing subscriber never affects the others. */
export class Subscribers {
  private readonly fns = new Set<(e: LiveEvent) => void>();
  constructor(private readonly log: BusLogger) {}
  add(fn: (e: LiveEvent) => void): () => void {
    this.fns.add(fn);
    return () => void this.fns.delete(fn);
  }
  deliver(e: LiveEvent) {
    for (const fn of [...this.fns]) {
      try {
        fn(e);
      } catch (err) {
        this.log.error({ err }, 'event subscriber failed');
      }
    }
  }
  clear() {
    this.fns.clear();
  }
}

/** Single process (PGlite): plain in-memory fan-out. */
export function createMemoryBus(log: BusLogger = silentLogger): EventBus {
  const subs = new Subscribers(log);
  let closed = false;
  return {
    async publish(e) {
      if (!closed) subs.deliver(e);
    },
    subscribe: (fn) => subs.add(fn),
    listening: () => !closed,
    onReconnect: () => () => {},
    positionNotify: () => null,
    deliverLocal(events) {
      if (!closed) for (const e of events) subs.deliver(e);
    },
    async close() {
      closed = true;
      subs.clear();
    },
  };
}
