import http from 'node:http';
import { expect } from 'vitest';
import type { BucketSpec } from '../../src/lib/token-buckets';
import { Browser, interactionUid, WebClient, whoami, type Running } from './oidc-flow';

/**
 * A visitor of the embedded sign-in page over real HTTP, for the attempt-limit tests: its requests leave from a
 * chosen loopback address (127.0.0.x), optionally naming a client in X-Forwarded-For.
 */

export const TOO_MANY = 'Too many sign-in attempts. Wait a few minutes, then try again.';
export const WRONG = 'Wrong email or password.';

export interface Answer {
  status: number;
  location: string | null;
  body: string;
  retryAfter?: string;
}

/** A browser (own cookie jar) whose requests leave from a chosen loopback address, optionally via a "proxy" header. */
export class Visitor {
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
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location ?? null,
              body: text,
              retryAfter: res.headers['retry-after'],
            }),
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
export async function wrongAttempts(
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
export async function expectSignedIn(
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

/**
 * After the per-address bucket was spent (from `since` on): wrong attempts on new emails until one is refused (429).
 * The bucket refills while attempts run (each one a real scrypt check, slow on a busy machine), so as many as have
 * refilled since `since` may still go through, and no more. Returns how many did.
 */
export async function attemptsUntilRefused(
  visitor: Visitor,
  since: number,
  spec: BucketSpec,
  from?: string,
): Promise<number> {
  for (let extra = 0; ; extra++) {
    const res = await visitor.login(`nobody-next-${extra}@example.org`, 'guess', {
      from,
      forwardedFor: `203.0.113.${(extra % 200) + 1}`,
    });
    if (res.status === 429) {
      expect(res.body).toContain(TOO_MANY);
      return extra;
    }
    expect(res.body).toContain(WRONG);
    expect(extra + 1).toBeLessThanOrEqual(Math.floor(((Date.now() - since) / 1000) * spec.perSecond));
  }
}
