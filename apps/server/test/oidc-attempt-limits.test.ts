import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { clientKey as addressKey } from '../src/lib/client-key';
import { DEMO_ACCOUNTS } from '../src/identity/accounts';
import { SIGN_IN_LIMITS, SignInLimiter } from '../src/identity/sign-in-limits';
import { startApp, type Running } from './support/oidc-flow';
import {
  attemptsUntilRefused,
  expectSignedIn,
  TOO_MANY,
  Visitor,
  WRONG,
  wrongAttempts,
} from './support/sign-in-visitor';

const ADMIN = DEMO_ACCOUNTS.admin.email;
const DIRECTOR = DEMO_ACCOUNTS.director1.email;

/**
 * Password-guessing limits of the embedded sign-in page (issue 9, defect 2), driven over real HTTP: the client
 * address is the TCP peer (distinct loopback source addresses 127.0.0.x) unless TRUST_PROXY says a proxy in front
 * may name it in X-Forwarded-For.
 */

// Each wrong attempt is a real scrypt check (about 100 real ones in the longest test): a generous timeout.
describe('sign-in attempt limits over real HTTP', { timeout: 180_000 }, () => {
  let database: Database | undefined;
  let run: Running | undefined;
  async function start(env: Record<string, string> = {}) {
    database = await openDatabase({});
    run = await startApp(database, undefined, env);
    return run;
  }
  afterEach(async () => {
    await run?.close();
    await database?.close();
    run = undefined;
    database = undefined;
  });

  it('TRUST_PROXY off (default): a new X-Forwarded-For on every attempt does not reset the per-address limit', async () => {
    const app = await start();
    const attacker = await new Visitor(app).open();
    const capacity = SIGN_IN_LIMITS.perAddress.capacity; // 50
    const started = Date.now();
    // A different email each time (so only the per-address limit applies) and a different forged address.
    const statuses = await wrongAttempts(
      attacker,
      Array.from({ length: capacity }, (_, i) => ({
        email: `nobody-${i}@example.org`,
        forwardedFor: `198.51.100.${i + 1}`,
      })),
    );
    expect(statuses).toEqual(Array<number>(capacity).fill(200));
    // The next is refused (bar any the bucket refilled meanwhile: one per 18 s), whatever it forges.
    await attemptsUntilRefused(attacker, started, SIGN_IN_LIMITS.perAddress);
    // Even the right password of an account, from that address, now waits.
    const right = await attacker.login(DIRECTOR, 'demo', { forwardedFor: '203.0.113.100' });
    expect(right.status).toBe(429);
    // Another real client address is not affected.
    const other = await new Visitor(app, '127.0.0.2').open();
    await expectSignedIn(other, app, DIRECTOR);
  });

  it('TRUST_PROXY=1: the rightmost X-Forwarded-For address is the client; a forged leftmost entry changes nothing', async () => {
    const app = await start({ TRUST_PROXY: '1' });
    const visitor = await new Visitor(app).open();
    const x = '203.0.113.10';
    const y = '203.0.113.20';
    const pair = SIGN_IN_LIMITS.perEmailAndAddress.capacity; // 10
    expect(
      await wrongAttempts(
        visitor,
        Array.from({ length: pair }, () => ({ email: DIRECTOR, forwardedFor: x })),
      ),
    ).toEqual(Array<number>(pair).fill(200));
    // Client x is held on this email, whatever it writes in front of the proxy's entry.
    for (const forwardedFor of [x, `192.0.2.1, ${x}`, `${y}, ${x}`, `unknown, ${x}`]) {
      const held = await visitor.login(DIRECTOR, 'demo', { forwardedFor });
      expect(held.status).toBe(429);
      expect(held.body).toContain(TOO_MANY);
    }
    // Client y (another address the proxy forwards) has its own limits: a wrong password is just wrong...
    const wrong = await visitor.login(DIRECTOR, 'nope', { forwardedFor: `${x}, ${y}` });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain(WRONG);
    // ...and the right one signs in.
    await expectSignedIn(visitor, app, DIRECTOR, { forwardedFor: y });
  });

  it("an attacker's wrong passwords from one address do not lock out the administrator's right password from another", async () => {
    const app = await start();
    const attacker = await new Visitor(app, '127.0.0.2').open();
    const pair = SIGN_IN_LIMITS.perEmailAndAddress.capacity;
    expect(
      await wrongAttempts(
        attacker,
        Array.from({ length: pair }, () => ({ email: ADMIN })),
      ),
    ).toEqual(Array<number>(pair).fill(200));
    // The attacking address is held on that email, even with the right password...
    const held = await attacker.login(ADMIN, 'demo');
    expect(held.status).toBe(429);
    expect(held.body).toContain(TOO_MANY);
    expect(held.redirect).toBeUndefined();
    // ...and the administrator, from their own address, signs in as administrator.
    const admin = await new Visitor(app, '127.0.0.3').open();
    expect(await expectSignedIn(admin, app, ADMIN)).toMatchObject({ isAdmin: true });
  });

  it('a distributed attack spends the per-email budget: new attacking addresses get 2 guesses, a clean address signs in', async () => {
    const app = await start({ TRUST_PROXY: '127.0.0.1' });
    const attacker = await new Visitor(app).open();
    const pair = SIGN_IN_LIMITS.perEmailAndAddress.capacity; // 10
    const addresses = SIGN_IN_LIMITS.perEmail.capacity / pair; // 10 addresses × 10 = the day's 100
    const spend = Array.from({ length: addresses * pair }, (_, i) => ({
      email: ADMIN,
      forwardedFor: `192.0.2.${1 + Math.floor(i / pair)}`,
    }));
    expect(await wrongAttempts(attacker, spend)).toEqual(Array<number>(spend.length).fill(200));

    // The email is now held for failing addresses: a fresh attacking address gets its 2 strikes, then waits
    // (well before its own per-email-and-address limit of 10).
    const fresh = '192.0.2.200';
    const strikes = SIGN_IN_LIMITS.strikesPerEmailAndAddress.capacity;
    const tries: number[] = [];
    for (let i = 0; i <= strikes; i++) {
      tries.push(...(await wrongAttempts(attacker, [{ email: ADMIN, forwardedFor: fresh }])));
    }
    expect(tries).toEqual([...Array<number>(strikes).fill(200), 429]);
    expect((await attacker.login(ADMIN, 'demo', { forwardedFor: fresh })).status).toBe(429);
    // Other accounts are not held for that address.
    const other = await attacker.login(DIRECTOR, 'nope', { forwardedFor: fresh });
    expect(other.status).toBe(200);
    expect(other.body).toContain(WRONG);

    // The administrator from an address that has not been guessing signs in, now and again later.
    const admin = await new Visitor(app).open();
    expect(await expectSignedIn(admin, app, ADMIN, { forwardedFor: '198.51.100.7' })).toMatchObject({
      isAdmin: true,
    });
    const again = await new Visitor(app).open();
    await expectSignedIn(again, app, ADMIN, { forwardedFor: '198.51.100.7' });
  });
});

describe('SignInLimiter rules (clock passed in)', () => {
  const t0 = Date.UTC(2025, 0, 1);
  let database: Database;
  let limiter: SignInLimiter;
  beforeAll(async () => {
    database = await openDatabase({});
    limiter = new SignInLimiter(database.db);
  });
  afterAll(() => database?.close());
  beforeEach(async () => {
    await database.db.execute(sql`DELETE FROM sign_in_buckets`);
  });
  const fail = async (email: string, ip: string, times: number, now = t0) => {
    const results: boolean[] = [];
    for (let i = 0; i < times; i++) results.push((await limiter.begin(email, ip, now)) !== undefined);
    return results;
  };
  const rowCount = async () =>
    (
      (await database.db.execute(sql`SELECT count(*)::int AS n FROM sign_in_buckets`)) as unknown as {
        rows: { n: number }[];
      }
    ).rows[0].n;

  it('counts an email case-insensitively per address, refills over 15 minutes, and forgets failures on success', async () => {
    expect(await fail('A@x.org', '203.0.113.1', 10)).toEqual(Array<boolean>(10).fill(true));
    expect(await limiter.begin('a@X.org', '203.0.113.1', t0)).toBeUndefined();
    // 90 s later one attempt has refilled.
    const later = await limiter.begin('a@x.org', '203.0.113.1', t0 + 90_000);
    expect(later).toBeDefined();
    await later!.succeeded();
    // Success clears this address's record for that email: a full 10 again.
    expect(await fail('a@x.org', '203.0.113.1', 11, t0 + 90_000)).toEqual([
      ...Array<boolean>(10).fill(true),
      false,
    ]);
  });

  it('holds an email with a spent budget only for addresses that have failed on it, until the day refills', async () => {
    for (let a = 1; a <= 10; a++) await fail('admin@x.org', `192.0.2.${a}`, 10);
    expect(await fail('admin@x.org', '192.0.2.99', 3)).toEqual([true, true, false]);
    // A clean address may still try, and its success does not reopen the email for the failing ones.
    await (await limiter.begin('admin@x.org', '198.51.100.1', t0))!.succeeded();
    expect(await limiter.begin('admin@x.org', '192.0.2.99', t0)).toBeUndefined();
    // A day later budget and strikes have refilled.
    expect(await limiter.begin('admin@x.org', '192.0.2.99', t0 + 86_400_000)).toBeDefined();
  });

  it('counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4', async () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('203.0.113.5')).toBe('203.0.113.5');
    // 50 attempts on different emails from addresses of one /64 spend that /64's allowance.
    for (let i = 0; i < 50; i++)
      expect(await limiter.begin(`u${i}@x.org`, `2001:db8:1:2::${i.toString(16)}`, t0)).toBeDefined();
    expect(await limiter.begin('u-last@x.org', '2001:db8:1:2:ffff::1', t0)).toBeUndefined();
    expect(await limiter.begin('u-last@x.org', '2001:db8:1:3::1', t0)).toBeDefined();
  });

  it('a refused attempt takes nothing: the address keeps its allowance for other emails', async () => {
    // 10 on one email from the address, then 5 refused on it: the per-address count stays at 10 of 50.
    await fail('held@x.org', '203.0.113.7', 10);
    expect(await fail('held@x.org', '203.0.113.7', 5)).toEqual(Array<boolean>(5).fill(false));
    const others = await fail('other@x.org', '203.0.113.7', 10);
    const more = await fail('third@x.org', '203.0.113.7', 10);
    const rest = await fail('fourth@x.org', '203.0.113.7', 10);
    const last = await fail('fifth@x.org', '203.0.113.7', 11);
    expect([...others, ...more, ...rest, ...last]).toEqual([...Array<boolean>(40).fill(true), false]);
  });

  it('parallel attempts never get more than the limit between them', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, () => limiter.begin('race@x.org', '203.0.113.9', t0)),
    );
    expect(results.filter((r) => r !== undefined)).toHaveLength(SIGN_IN_LIMITS.perEmailAndAddress.capacity);
  });

  it('the sweep removes the rows of buckets that are full again, and only those', async () => {
    for (let i = 0; i < 200; i++) await limiter.begin(`spray-${i}@x.org`, `10.0.0.${i}`, t0);
    // A row per bucket: 200 addresses, 200 pairs, 200 emails, 200 strikes.
    expect(await rowCount()).toBe(800);
    // 15 minutes later one token is back in each bucket but the strikes' (refilled over a day): only theirs stay.
    const later = t0 + 15 * 60_000;
    expect(await limiter.sweep(later)).toBe(600);
    expect(await rowCount()).toBe(200);
    // An email whose day's budget is spent keeps its row through the sweep (its bucket is far from full).
    for (let a = 1; a <= 10; a++) await fail('spent@x.org', `192.0.2.${a}`, 10, later);
    await limiter.sweep(later + 20 * 60_000);
    const kept = (await database.db.execute(
      sql`SELECT key FROM sign_in_buckets WHERE key NOT LIKE 's:%' ORDER BY key`,
    )) as unknown as { rows: { key: string }[] };
    expect(kept.rows.map((r) => r.key)).toEqual(['e:spent@x.org']);
    // A day later everything has refilled and goes.
    await limiter.sweep(later + 86_400_000 + 60_000);
    expect(await rowCount()).toBe(0);
  });
});
