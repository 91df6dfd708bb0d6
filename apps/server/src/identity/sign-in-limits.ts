import { sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { clientKey } from '../lib/client-key';
import type { BucketSpec } from '../lib/token-buckets';

/**
 * Password-guessing limits of the embedded sign-in page, kept in the database (`sign_in_buckets`), so every process
 * of a cluster counts the same attempts and a restart forgets nothing. Every attempt with an email and a password
 * costs one token of each bucket below; a successful sign-in gives them back (and clears that address's record for
 * that email), so only failures count. The client address is Fastify's `request.ip`, which follows TRUST_PROXY;
 * IPv6 addresses count per /64.
 *
 * - per address, all emails together: 50 attempts, refilled over 15 minutes;
 * - per email from one address: 10 attempts, refilled over 15 minutes;
 * - per email from all addresses together: 100 attempts, refilled over a day. When this one is spent, the email is
 *   held only for addresses that have been failing on it: an address may still try while it has fewer than 2 wrong
 *   attempts for that email within about a day (its "strikes", refilled over a day). So a distributed attacker gets
 *   about 100 guesses a day plus 2 per address (per IPv6 /64) they own, while the account's owner, signing in from an
 *   address that has not been guessing, is never locked out by someone else's failures.
 *
 * Concurrency: each bucket is taken by one upsert that refills it, checks it and takes the token in the same
 * statement (no read-then-write), and an attempt's buckets are taken in one transaction, always in the same order
 * (address, email+address, email, strikes), so a refused attempt rolls back whatever it took and two attempts never
 * wait on each other in a cycle. The clock is the database's (`now()`), the same for every process. A row goes when
 * its bucket is full again (`expires_at`): a sweep every few minutes, skipping rows an attempt holds.
 * While the database cannot be reached the queries fail, and the sign-in is answered 503 like any request then.
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
  succeeded(): Promise<void>;
}

/** Emails longer than this are no account's (sign-up allows 254); keys are cut here so rows stay small. */
const MAX_EMAIL_KEY = 256;

/** How often a process removes the rows of buckets that are full again. */
const SWEEP_EVERY_MS = 5 * 60_000;

/** Thrown inside the attempt's transaction to roll back what it took. */
class Refused extends Error {}

export class SignInLimiter {
  private lastSweep = 0;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly spec: SignInLimitSpec = SIGN_IN_LIMITS,
    private readonly onSweepError: (err: unknown) => void = () => {},
  ) {}

  /**
   * Takes the tokens of one attempt by `ip` on `email`, before the password is checked, or resolves undefined when
   * the attempt must be refused (429). `now`: a clock for tests; the database's otherwise.
   */
  async begin(email: string, ip: string, now?: number): Promise<SignInAttempt | undefined> {
    const emailKey = email.trim().toLowerCase().slice(0, MAX_EMAIL_KEY);
    const address = clientKey(ip);
    const keys = {
      address: `a:${address}`,
      pair: `p:${emailKey}\n${address}`,
      email: `e:${emailKey}`,
      strike: `s:${emailKey}\n${address}`,
    };
    const t = clock(now);
    if (now === undefined) this.maybeSweep(); // (a test's clock would not match the sweep's)
    const { spec } = this;
    let tookEmail: boolean;
    try {
      tookEmail = await this.db.transaction(async (tx) => {
        if (!(await take(tx, keys.address, spec.perAddress, t))) throw new Refused();
        if (!(await take(tx, keys.pair, spec.perEmailAndAddress, t))) throw new Refused();
        const email = await take(tx, keys.email, spec.perEmail, t);
        const strike = await take(tx, keys.strike, spec.strikesPerEmailAndAddress, t);
        // Neither: the email is held and this address has been failing on it.
        if (!email && !strike) throw new Refused();
        return email;
      });
    } catch (err) {
      if (err instanceof Refused) return undefined;
      throw err;
    }
    return {
      succeeded: () =>
        // The same order as `begin`, in one transaction.
        this.db.transaction(async (tx) => {
          await give(tx, keys.address, spec.perAddress);
          await forget(tx, keys.pair);
          if (tookEmail) await give(tx, keys.email, spec.perEmail);
          await forget(tx, keys.strike);
        }),
    };
  }

  /** Removes the rows of buckets that are full again (forgetting them changes nothing). */
  async sweep(now?: number): Promise<number> {
    const res = (await this.db.execute(sql`
      DELETE FROM sign_in_buckets WHERE key IN (
        SELECT key FROM sign_in_buckets WHERE expires_at <= ${clock(now)} FOR UPDATE SKIP LOCKED
      )`)) as unknown as { rowCount?: number | null; affectedRows?: number };
    return res.rowCount ?? res.affectedRows ?? 0;
  }

  private maybeSweep() {
    const at = Date.now();
    if (this.sweeping || at - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = at;
    this.sweeping = this.sweep()
      .then(
        () => undefined,
        (err: unknown) => this.onSweepError(err),
      )
      .finally(() => (this.sweeping = null));
  }
}

function clock(now: number | undefined): SQL {
  return now === undefined ? sql`now()` : sql`${new Date(now).toISOString()}::timestamptz`;
}

/**
 * Takes one token of `key`'s bucket in one statement: a new bucket starts full; an existing one is refilled to
 * `t`, and the token is taken only if it holds one (otherwise the row is left as it was and nothing is returned).
 */
async function take(tx: DbOrTx, key: string, spec: BucketSpec, t: SQL): Promise<boolean> {
  const cap = sql`${spec.capacity}::float8`;
  const rate = sql`${spec.perSecond}::float8`;
  const refilled = sql`least(${cap}, b.tokens + greatest(0, extract(epoch from (${t} - b.at))::float8) * ${rate})`;
  const res = (await tx.execute(sql`
    INSERT INTO sign_in_buckets AS b (key, tokens, at, expires_at)
    VALUES (${key}, ${cap} - 1, ${t}, ${t} + make_interval(secs => 1 / ${rate}))
    ON CONFLICT (key) DO UPDATE SET
      tokens = ${refilled} - 1,
      at = greatest(b.at, ${t}),
      expires_at = greatest(b.at, ${t}) + make_interval(secs => (${cap} - (${refilled} - 1)) / ${rate})
    WHERE ${refilled} >= 1
    RETURNING b.tokens`)) as unknown as { rows: unknown[] };
  return res.rows.length > 0;
}

/** Gives back a token (its row may go a little later than it could: never earlier). */
async function give(tx: DbOrTx, key: string, spec: BucketSpec): Promise<void> {
  await tx.execute(
    sql`UPDATE sign_in_buckets SET tokens = least(${spec.capacity}::float8, tokens + 1) WHERE key = ${key}`,
  );
}

/** Starts `key` afresh (a full bucket). */
async function forget(tx: DbOrTx, key: string): Promise<void> {
  await tx.execute(sql`DELETE FROM sign_in_buckets WHERE key = ${key}`);
}
