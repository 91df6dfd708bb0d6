/**
 * Token buckets in memory, one per key: the rate limits of device ingestion and other per-process limits (the
 * sign-in limits are in the database, shared by a cluster: identity/sign-in-limits.ts). A bucket starts full (a
 * tracker back in coverage may upload its buffered fixes at once) and refills at `perSecond` up to `capacity`. Per
 * process: with several processes each enforces its own share.
 *
 * At most `maxKeys` buckets are kept, so a spray of keys cannot grow memory without bound: when a new key would go
 * past it, buckets that have refilled are forgotten first (forgetting a full bucket changes nothing), then the least
 * recently used ones, down to 90 % of the bound. Whoever wants a forgotten non-full bucket back must keep more than
 * `maxKeys` keys in play.
 */
export interface BucketSpec {
  capacity: number;
  /** Tokens refilled per second. */
  perSecond: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** When the key was last moved to the end of the use order. */
  moved: number;
}

export class TokenBuckets {
  /** Map order is use order (to the second): the first keys are the least recently used. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly spec: BucketSpec,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes n tokens of `key`'s bucket if it holds them; false (nothing taken) otherwise. */
  take(key: string, n = 1, now = Date.now()): boolean {
    let b = this.buckets.get(key);
    if (b) {
      b.tokens = this.refilled(b, now);
      b.at = now;
      // Moved to the end (the most recently used) at most once a second: a delete and re-insert per take costs a
      // busy tracker's every ping (the Map's deleted entries pile up and force rehashes), and use order to the
      // second is all `shrink` needs.
      if (now - b.moved >= 1000) {
        this.buckets.delete(key);
        this.buckets.set(key, b);
        b.moved = now;
      }
    } else {
      if (this.buckets.size >= this.maxKeys) this.shrink(now);
      b = { tokens: this.spec.capacity, at: now, moved: now };
      this.buckets.set(key, b);
    }
    if (b.tokens < n) return false;
    b.tokens -= n;
    return true;
  }

  /** Gives back tokens taken for something that was then refused elsewhere. */
  give(key: string, n = 1): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.spec.capacity, b.tokens + n);
  }

  /** Starts `key` afresh (a full bucket). */
  forget(key: string): void {
    this.buckets.delete(key);
  }

  private refilled(b: Bucket, now: number): number {
    return Math.min(this.spec.capacity, b.tokens + (Math.max(0, now - b.at) / 1000) * this.spec.perSecond);
  }

  private shrink(now: number) {
    for (const [k, b] of this.buckets)
      if (this.refilled(b, now) >= this.spec.capacity) this.buckets.delete(k);
    const target = Math.floor(this.maxKeys * 0.9);
    for (const k of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(k);
    }
  }
}
