import { describeDatabaseError } from './errors';

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_S = 5;

export interface OutageLogger {
  info(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface DatabaseOutageOptions {
  log: OutageLogger;
  /** A cheap query (`SELECT 1`); while the database is down it runs every `probeMs` to notice the end. */
  probe?: () => Promise<void>;
  probeMs?: number;
  now?: () => number;
}

/**
 * Tracks whether the database is reachable, so that an outage is logged once when it starts and once when it ends
 * instead of a stack trace per failing request. `failed` is told of every request or check that failed because
 * the database was unreachable; `recovered` of anything that reached it again. While down, a probe runs on a timer
 * so the end is noticed (and logged) even without traffic.
 */
export class DatabaseOutage {
  private downSince: number | null = null;
  private failures = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: DatabaseOutageOptions) {
    this.now = opts.now ?? Date.now;
  }

  get down(): boolean {
    return this.downSince !== null;
  }

  failed(err: unknown): void {
    this.failures++;
    if (this.downSince !== null) return;
    this.downSince = this.now();
    this.failures = 1;
    this.opts.log.error(
      { reason: describeDatabaseError(err), retryAfterS: DATABASE_RETRY_AFTER_S },
      'database unavailable: answering 503 until it is back',
    );
    this.startProbe();
  }

  recovered(): void {
    if (this.downSince === null) return;
    const downMs = this.now() - this.downSince;
    this.downSince = null;
    this.stopProbe();
    this.opts.log.info(
      { downMs, failedRequests: this.failures },
      `database available again after ${(downMs / 1000).toFixed(1)} s`,
    );
  }

  close(): void {
    this.closed = true;
    this.stopProbe();
  }

  private startProbe() {
    const { probe } = this.opts;
    if (!probe || this.probeTimer || this.closed) return;
    this.probeTimer = setInterval(() => {
      if (this.probing) return;
      this.probing = true;
      probe()
        .then(
          () => this.recovered(),
          () => {},
        )
        .finally(() => (this.probing = false));
    }, this.opts.probeMs ?? 1000);
    this.probeTimer.unref();
  }

  private stopProbe() {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }
}
