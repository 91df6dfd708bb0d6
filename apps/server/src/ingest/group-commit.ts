import { isDatabaseUnavailable } from '../repositories/db-errors';

/**
 * Group commit: callers submit items one by one; items that arrive while a batch is being written wait and are
 * written together by the next one. Under load this turns N pings into N/batch statements (and fsyncs) instead
 * of N, while an idle server writes a lone ping at once. Each caller's promise settles after its batch commits.
 */
export interface GroupCommitOptions<I, O> {
  /** Writes a batch atomically; returns one result per item, in order. */
  write(items: I[]): Promise<O[]>;
  maxBatch?: number;
  /** Batches written at the same time (PostgreSQL connections); 1 for PGlite, which has one. */
  concurrency?: number;
  /** Called when a whole batch failed; the batch is then retried item by item so one bad item fails alone. */
  onBatchError?: (err: unknown, size: number) => void;
}

/** Below this a batch is not split: every statement costs a round trip, a plan execution and a commit. */
const MIN_SPLIT = 64;

interface Pending<I, O> {
  item: I;
  resolve(v: O): void;
  reject(err: unknown): void;
}

export class GroupCommitter<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly concurrency: number;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: GroupCommitOptions<I, O>) {
    this.maxBatch = opts.maxBatch ?? 500;
    this.concurrency = opts.concurrency ?? 1;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.kick();
    });
  }

  submitMany(items: I[]): Promise<O[]> {
    return Promise.all(items.map((i) => this.submit(i)));
  }

  /** Resolves when nothing is queued or being written (shutdown). */
  async drain(): Promise<void> {
    if (!this.queue.length && !this.inFlight) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  private kick() {
    if (this.scheduled || this.inFlight >= this.concurrency || !this.queue.length) return;
    this.scheduled = true;
    // Let the current tick's arrivals join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush() {
    while (this.inFlight < this.concurrency && this.queue.length) {
      // Spread what is waiting over the free connections: several smaller batches finish sooner than one big one.
      const free = this.concurrency - this.inFlight;
      const size = Math.min(this.maxBatch, Math.max(MIN_SPLIT, Math.ceil(this.queue.length / free)));
      const batch = this.queue.splice(0, size);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length) this.kick();
        else if (!this.inFlight) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  private async run(batch: Pending<I, O>[]) {
    try {
      const out = await this.opts.write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i]));
      return;
    } catch (err) {
      // The database is unreachable: every item would fail the same way, one by one (and log each time).
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
      this.opts.onBatchError?.(err, batch.length);
    }
    for (const p of batch) {
      try {
        const [o] = await this.opts.write([p.item]);
        p.resolve(o);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
