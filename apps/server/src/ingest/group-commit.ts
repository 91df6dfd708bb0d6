import { isDatabaseUnavailable } from '../db/errors';

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
  /**
   * Called once when a whole batch failed. The batch is then split in halves and each half written on its own,
   * recursively, so the bad item(s) fail alone and the others are stored (see `run`).
   */
  onBatchError?: (err: unknown, size: number) => void;
  /**
   * What a bad item is likely to share with its successors (the device): after an item failed alone, items with
   * its key are written apart from the others for `quarantineMs`, so a device that keeps sending fixes the
   * database refuses costs one statement of its own per batch instead of a bisection of everyone's batch.
   */
  key?: (item: I) => string;
  quarantineMs?: number;
  /** While a batch is being written, fewer items than this wait for it (see MIN_BATCH_WHILE_BUSY). */
  minBatchWhileBusy?: number;
  /**
   * true (default): what is waiting is spread over the free connections (batches of at least MIN_SPLIT), several
   * smaller statements finishing sooner than one big one. false: a statement takes all that waits (up to maxBatch),
   * fewer and bigger statements, for a database whose CPU is the limit (each statement has a fixed cost).
   */
  spread?: boolean;
}

/** Below this a batch is not split: every statement costs a round trip, a plan execution and a commit. */
const MIN_SPLIT = 64;
/**
 * While a batch is being written, fewer items than this wait for it to finish (or for more to arrive) instead of
 * starting a statement of their own: a statement's fixed cost (round trip, commit, its WAL flush) is most of the
 * cost of a small batch, so under load a trickle of small batches would cap the rate. Measured with the built
 * server (bench/ingest.bench.ts): a statement costs ~9 ms + ~0.15 ms per fix on the 2-core bench machine.
 */
const MIN_BATCH_WHILE_BUSY = 32;

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
  /** Keys of items that failed alone → until when their items are written apart. */
  private readonly quarantined = new Map<string, number>();
  private readonly quarantineMs: number;
  private readonly minWhileBusy: number;

  constructor(private readonly opts: GroupCommitOptions<I, O>) {
    this.maxBatch = opts.maxBatch ?? 500;
    this.concurrency = opts.concurrency ?? 1;
    this.quarantineMs = opts.quarantineMs ?? 60_000;
    this.minWhileBusy = opts.minBatchWhileBusy ?? MIN_BATCH_WHILE_BUSY;
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
    // Busy: a few items join the next batch, started when one in flight finishes (its `finally` kicks again).
    if (this.inFlight > 0 && this.queue.length < this.minWhileBusy) return;
    this.scheduled = true;
    // Let the current tick's arrivals join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush() {
    while (
      this.inFlight < this.concurrency &&
      this.queue.length &&
      (this.inFlight === 0 || this.queue.length >= this.minWhileBusy)
    ) {
      // Spread what is waiting over the free connections (several smaller batches finish sooner than one big one), or
      // all of it in one statement.
      const free = this.concurrency - this.inFlight;
      const size =
        this.opts.spread === false
          ? this.maxBatch
          : Math.min(this.maxBatch, Math.max(MIN_SPLIT, Math.ceil(this.queue.length / free)));
      const batch = this.queue.splice(0, size);
      this.inFlight++;
      void this.runApart(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length) this.kick();
        else if (!this.inFlight) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  /** Writes a batch, the items of quarantined keys after the others and apart from them. */
  private async runApart(batch: Pending<I, O>[]) {
    const { key } = this.opts;
    if (!key || !this.quarantined.size) return void (await this.run(batch));
    const now = Date.now();
    const suspect = (p: Pending<I, O>) => {
      const k = key(p.item);
      const until = this.quarantined.get(k);
      if (until === undefined) return false;
      if (until > now) return true;
      this.quarantined.delete(k);
      return false;
    };
    const apart = batch.filter(suspect);
    if (!apart.length) return void (await this.run(batch));
    const rest = batch.filter((p) => !apart.includes(p));
    if (rest.length) await this.run(rest);
    await this.run(apart);
  }

  private quarantine(item: I) {
    const { key } = this.opts;
    if (!key) return;
    const now = Date.now();
    if (this.quarantined.size >= 10_000)
      for (const [k, until] of this.quarantined) if (until <= now) this.quarantined.delete(k);
    if (this.quarantined.size < 10_000) this.quarantined.set(key(item), now + this.quarantineMs);
  }

  /**
   * Writes a batch; true when it was written whole. When it fails for something in its rows (a value the database
   * refuses, a device deleted meanwhile), it is bisected: the first half is written on its own, then the second —
   * whose write is skipped (it is split at once) when the first half succeeded, since the failure must be in it.
   * A failing half is split again, down to the single bad item. One bad item in n costs at most 2·⌈log2 n⌉ extra
   * statements instead of n, so one bad device cannot slow everyone else's pings; the bad item's key is then
   * quarantined (see `key`). When the database is unreachable every item would fail the same way: all are
   * rejected at once.
   */
  private async run(batch: Pending<I, O>[], whole = true, knownBad = false): Promise<boolean> {
    if (!knownBad || batch.length === 1) {
      try {
        const out = await this.opts.write(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(out[i]));
        return true;
      } catch (err) {
        // The database is unreachable: every item would fail the same way, one by one (and log each time).
        const unavailable = isDatabaseUnavailable(err);
        if (batch.length === 1 || unavailable) {
          for (const p of batch) p.reject(err);
          if (batch.length === 1 && !unavailable) this.quarantine(batch[0].item);
          return false;
        }
        if (whole) this.opts.onBatchError?.(err, batch.length);
      }
    }
    const mid = Math.ceil(batch.length / 2);
    const firstWritten = await this.run(batch.slice(0, mid), false);
    await this.run(batch.slice(mid), false, firstWritten);
    return false;
  }
}
