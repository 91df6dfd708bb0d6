import { addressKey } from '../lib/trust-proxy';
import { TokenBuckets, type BucketSpec } from '../lib/token-buckets';

/**
 * Password-guessing limits of the embedded sign-in page, in memory per process. Every attempt with an email and a
 * password costs one token of each bucket below; a successful sign-in gives them back (and clears that address's
 * record for that email), so only failures count. The client address is Fastify's `request.ip`, which follows
 * TRUST_PROXY; IPv6 addresses count per /64.
 *
 * - per address, all emails together: 50 attempts, refilled over 15 minutes;
 * - per email from one address: 10 attempts, refilled over 15 minutes;
 * - per email from all addresses together: 100 attempts, refilled over a day. When this one is spent, the email is
 *   held only for addresses that have been failing on it: an address may still try while it has fewer than 2 wrong
 *   attempts for that email within about a day (its "strikes", refilled over a day). So a distributed attacker gets
 *   about 100 guesses a day plus 2 per address (per IPv6 /64) they own, while the account's owner, signing in from an
 *   address that has not been guessing, is never locked out by someone else's failures.
 */
export interface SignInLimitSpec {
  perAddress: BucketSpec;
  perEmailAndAddress: BucketSpec;
  perEmail: BucketSpec;
  /** Wrong attempts an address may have made on an email and still try while that email is held. */
  strikesPerEmailAndAddress: BucketSpec;
}

export const SIGN_IN_LIMITS: SignInLimitSpec = {
  perAddress: { capacity: 50, perSecond: 50 / 900 },
  perEmailAndAddress: { capacity: 10, perSecond: 10 / 900 },
  perEmail: { capacity: 100, perSecond: 100 / 86_400 },
  strikesPerEmailAndAddress: { capacity: 2, perSecond: 2 / 86_400 },
};

/** An attempt allowed to check its password; call `succeeded()` when the password was right. */
export interface SignInAttempt {
  succeeded(): void;
}

/** Emails longer than this are no account's (sign-up allows 254); keys are cut here so memory stays bounded. */
const MAX_EMAIL_KEY = 256;

export class SignInLimiter {
  private readonly perAddress: TokenBuckets;
  private readonly perPair: TokenBuckets;
  private readonly perEmail: TokenBuckets;
  private readonly strikes: TokenBuckets;

  constructor(spec: SignInLimitSpec = SIGN_IN_LIMITS, maxKeys = 100_000) {
    this.perAddress = new TokenBuckets(spec.perAddress, maxKeys);
    this.perPair = new TokenBuckets(spec.perEmailAndAddress, maxKeys);
    this.perEmail = new TokenBuckets(spec.perEmail, maxKeys);
    this.strikes = new TokenBuckets(spec.strikesPerEmailAndAddress, maxKeys);
  }

  /**
   * Takes the tokens of one attempt by `ip` on `email`, before the password is checked (synchronously, so parallel
   * attempts cannot all pass), or returns undefined when the attempt must be refused (429).
   */
  begin(email: string, ip: string, now = Date.now()): SignInAttempt | undefined {
    const emailKey = email.trim().toLowerCase().slice(0, MAX_EMAIL_KEY);
    const address = addressKey(ip);
    const pair = `${emailKey}\n${address}`;
    if (!this.perAddress.take(address, 1, now)) return undefined;
    if (!this.perPair.take(pair, 1, now)) {
      this.perAddress.give(address);
      return undefined;
    }
    const tookEmail = this.perEmail.take(emailKey, 1, now);
    const tookStrike = this.strikes.take(pair, 1, now);
    if (!tookEmail && !tookStrike) {
      // The email is held and this address has been failing on it.
      this.perAddress.give(address);
      this.perPair.give(pair);
      return undefined;
    }
    return {
      succeeded: () => {
        this.perAddress.give(address);
        this.perPair.forget(pair);
        this.strikes.forget(pair);
        if (tookEmail) this.perEmail.give(emailKey);
      },
    };
  }
}
