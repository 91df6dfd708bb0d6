import { HttpError } from '../lib/errors';
import { TokenBuckets, type BucketSpec } from '../lib/token-buckets';

/**
 * Per device and per source, in memory per process (lib/token-buckets.ts): with several processes each enforces its
 * own share, which is enough to stop one broken tracker from flooding the store.
 */
export interface RateLimitSpec {
  device: BucketSpec;
  source: BucketSpec;
}

/**
 * Defaults: a device may burst 1,000 fixes (hours of 10-second buffered fixes) and then 2 per second; a whole
 * source 20,000 in a burst and then 10,000 per second, beyond what the store takes on one server anyway.
 */
export const DEFAULT_RATE_LIMITS: RateLimitSpec = {
  device: { capacity: 1000, perSecond: 2 },
  source: { capacity: 20_000, perSecond: 10_000 },
};

/**
 * The most fixes one request may carry (a Traccar batch upload): what a full device bucket holds. A bigger batch
 * could never be accepted however long the client waited, so it is refused with 413 instead of 429.
 */
export const MAX_FIXES_PER_REQUEST = DEFAULT_RATE_LIMITS.device.capacity;

export class IngestRateLimiter {
  private readonly device: TokenBuckets;
  private readonly source: TokenBuckets;
  /** The most fixes one request may carry with these limits (see MAX_FIXES_PER_REQUEST). */
  readonly maxPerRequest: number;
  constructor(spec: RateLimitSpec = DEFAULT_RATE_LIMITS) {
    this.device = new TokenBuckets(spec.device);
    this.source = new TokenBuckets(spec.source);
    this.maxPerRequest = Math.floor(Math.min(spec.device.capacity, spec.source.capacity));
  }

  /** Throws 413 when n fixes could never fit in a bucket (a 429 would be retried forever). */
  checkSize(n: number) {
    if (n > this.maxPerRequest)
      throw new HttpError(
        413,
        'batch_too_large',
        `A request may carry at most ${this.maxPerRequest} fixes; this one has ${n}. Send them in several requests.`,
      );
  }

  /**
   * Throws 429 when the device (named by its credential or hardware id) or the whole source is over its limit,
   * 413 when n is more than a bucket holds.
   */
  check(source: string, deviceKey: string, n = 1) {
    this.checkSize(n);
    const key = `${source}:${deviceKey}`;
    if (!this.device.take(key, n))
      throw new HttpError(429, 'rate_limited', 'This device is sending too many positions; retry shortly.');
    if (!this.source.take(source, n)) {
      this.device.give(key, n);
      throw new HttpError(429, 'rate_limited', `Too many positions from ${source} right now; retry shortly.`);
    }
  }

  /** For sources that must never be answered with an error (inReach, SPOT, MQTT): true = accept. */
  allow(source: string, deviceKey: string, n = 1): boolean {
    try {
      this.check(source, deviceKey, n);
      return true;
    } catch {
      return false;
    }
  }
}
