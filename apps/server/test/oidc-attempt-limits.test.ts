import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { addressKey } from '../src/lib/trust-proxy';
import { DEMO_ACCOUNTS } from '../src/identity/accounts';
import { SIGN_IN_LIMITS, SignInLimiter } from '../src/identity/sign-in-limits';
import { Browser, interactionUid, startApp, WebClient, whoami, type Running } from './support/oidc-flow';

/**
 * Password-guessing limits of the embedded sign-in page (issue 9, defect 2), driven over real HTTP: the client
 * address is the TCP peer (distinct loopback source addresses 127.0.0.x) unless TRUST_PROXY says a proxy in front
 * may name it in X-Forwarded-For.
 */

const TOO_MANY = 'Too many sign-in attempts. Wait a few minutes, then try again.';
const WRONG = 'Wrong email or password.';
const ADMIN = DEMO_ACCOUNTS.admin.email;
const DIRECTOR = DEMO_ACCOUNTS.director1.email;

interface Answer {
  status: number;
  location: string | null;
  body: string;
}

/** A browser (own cookie jar) whose requests leave from a chosen loopback address, optionally via a "proxy" header. */
class Visitor {
  private cookies = new Map<string, string>();
  uid = '';
  readonly client: WebClient;
  constructor(
    private readonly run: Running,
    private readonly from = '127.0.0.1',
  ) {
    this.client = new WebClient(new Browser(run.url), run.config);
  }

  request(
    path: string,
    opts: { form?: Record<string, string>; from?: string; forwardedFor?: string } = {},
  ): Promise<Answer> {
    const url = new URL(path, this.run.url);
    const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (opts.forwardedFor) headers['x-forwarded-for'] = opts.forwardedFor;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: body ? 'POST' : 'GET',
          headers,
          localAddress: opts.from ?? this.from,
          agent: false,
        },
        (res) => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair] = line.split(';');
            const i = pair.indexOf('=');
            const value = pair.slice(i + 1).trim();
            if (value && !/expires=Thu, 01 Jan 1970/i.test(line))
              this.cookies.set(pair.slice(0, i).trim(), value);
            else this.cookies.delete(pair.slice(0, i).trim());
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null, body: text }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Follows redirects inside the provider; stops at the app's redirect URI or a page. */
  async follow(
    path: string,
    opts: { form?: Record<string, string>; from?: string; forwardedFor?: string } = {},
  ) {
    let res = await this.request(path, opts);
    while (res.status >= 300 && res.status < 400 && res.location) {
      const next = new URL(res.location, this.run.url);
      if (!next.pathname.startsWith('/oidc')) return { ...res, redirect: next };
      res = await this.request(next.pathname + next.search, {
        from: opts.from,
        forwardedFor: opts.forwardedFor,
      });
    }
    return { ...res, redirect: undefined };
  }

  /** Opens the sign-in page of a fresh authorization request. */
  async open() {
    const page = await this.follow(this.client.authorizeUrl());
    expect(page.status).toBe(200);
    this.uid = interactionUid(page.body);
    return this;
  }

  /** Submits the sign-in form from this visitor's address (or the given one / a forwarded client). */
  login(email: string, password: string, opts: { from?: string; forwardedFor?: string } = {}) {
    return this.follow(`/oidc/interaction/${this.uid}/login`, { form: { email, password }, ...opts });
  }
}

/** Submits many wrong passwords in parallel, batch by batch (each one is a real scrypt check). */
async function wrongAttempts(
  visitor: Visitor,
  attempts: { email: string; from?: string; forwardedFor?: string }[],
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < attempts.length; i += 10) {
    const batch = attempts.slice(i, i + 10);
    const answers = await Promise.all(
      batch.map((a, j) =>
        visitor.login(a.email, `wrong-guess-${i + j}`, { from: a.from, forwardedFor: a.forwardedFor }),
      ),
    );
    for (const answer of answers) {
      expect(answer.body).toContain(answer.status === 429 ? TOO_MANY : WRONG);
      statuses.push(answer.status);
    }
  }
  return statuses;
}

/** Signs in with the right password and checks the whole way to an API call. */
async function expectSignedIn(
  visitor: Visitor,
  run: Running,
  email: string,
  opts: { from?: string; forwardedFor?: string } = {},
) {
  const done = await visitor.login(email, 'demo', opts);
  expect(done.body).not.toContain(TOO_MANY);
  expect(done.redirect?.href.startsWith(visitor.client.redirectUri())).toBe(true);
  const code = done.redirect!.searchParams.get('code')!;
  expect(code).toBeTruthy();
  const res = await visitor.client.exchange(code);
  expect(res.status).toBe(200);
  const tokens = (await res.json()) as { access_token: string };
  const me = await whoami(run, tokens.access_token);
  expect(me.status).toBe(200);
  const user = (await me.json()) as { email?: string; isAdmin: boolean };
  expect(user.email?.toLowerCase()).toBe(email.toLowerCase());
  return user;
}

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
    // A different email each time (so only the per-address limit applies) and a different forged address.
    const statuses = await wrongAttempts(
      attacker,
      Array.from({ length: capacity }, (_, i) => ({
        email: `nobody-${i}@example.org`,
        forwardedFor: `198.51.100.${i + 1}`,
      })),
    );
    expect(statuses).toEqual(Array<number>(capacity).fill(200));
    const next = await attacker.login('nobody-next@example.org', 'guess', { forwardedFor: '203.0.113.99' });
    expect(next.status).toBe(429);
    expect(next.body).toContain(TOO_MANY);
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
  const fail = (limiter: SignInLimiter, email: string, ip: string, times: number, now = t0) => {
    const results: boolean[] = [];
    for (let i = 0; i < times; i++) results.push(limiter.begin(email, ip, now) !== undefined);
    return results;
  };

  it('counts an email case-insensitively per address, refills over 15 minutes, and forgets failures on success', () => {
    const limiter = new SignInLimiter();
    expect(fail(limiter, 'A@x.org', '203.0.113.1', 10)).toEqual(Array<boolean>(10).fill(true));
    expect(limiter.begin('a@X.org', '203.0.113.1', t0)).toBeUndefined();
    // 90 s later one attempt has refilled.
    const later = limiter.begin('a@x.org', '203.0.113.1', t0 + 90_000);
    expect(later).toBeDefined();
    later!.succeeded();
    // Success clears this address's record for that email: a full 10 again.
    expect(fail(limiter, 'a@x.org', '203.0.113.1', 11, t0 + 90_000)).toEqual([
      ...Array<boolean>(10).fill(true),
      false,
    ]);
  });

  it('holds an email with a spent budget only for addresses that have failed on it, until the day refills', () => {
    const limiter = new SignInLimiter();
    for (let a = 1; a <= 10; a++) fail(limiter, 'admin@x.org', `192.0.2.${a}`, 10);
    expect(fail(limiter, 'admin@x.org', '192.0.2.99', 3)).toEqual([true, true, false]);
    // A clean address may still try, and its success does not reopen the email for the failing ones.
    limiter.begin('admin@x.org', '198.51.100.1', t0)!.succeeded();
    expect(limiter.begin('admin@x.org', '192.0.2.99', t0)).toBeUndefined();
    // A day later budget and strikes have refilled.
    expect(limiter.begin('admin@x.org', '192.0.2.99', t0 + 86_400_000)).toBeDefined();
  });

  it('counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('203.0.113.5')).toBe('203.0.113.5');
    const limiter = new SignInLimiter();
    // 50 attempts on different emails from addresses of one /64 spend that /64's allowance.
    for (let i = 0; i < 50; i++)
      expect(limiter.begin(`u${i}@x.org`, `2001:db8:1:2::${i.toString(16)}`, t0)).toBeDefined();
    expect(limiter.begin('u-last@x.org', '2001:db8:1:2:ffff::1', t0)).toBeUndefined();
    expect(limiter.begin('u-last@x.org', '2001:db8:1:3::1', t0)).toBeDefined();
  });

  it('stays bounded in memory under a spray of keys and still limits', () => {
    const limiter = new SignInLimiter(SIGN_IN_LIMITS, 1_000);
    for (let i = 0; i < 5_000; i++) limiter.begin(`spray-${i}@x.org`, `10.0.${i >> 8}.${i & 255}`, t0);
    const stores = Object.values(limiter as unknown as Record<string, { buckets: Map<string, unknown> }>);
    expect(stores).toHaveLength(4);
    for (const store of stores) expect(store.buckets.size).toBeLessThanOrEqual(1_000);
    expect(fail(limiter, 'admin@x.org', '192.0.2.1', 11)).toEqual([...Array<boolean>(10).fill(true), false]);
  });
});
