import { createHash, randomBytes } from 'node:crypto';
import { freePort } from './free-port';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { Database } from '../../src/db/client';
import { requireUser } from '../../src/identity/auth-plugin';

/**
 * Drives the embedded OpenID Connect provider over real HTTP the way a browser and the web app would: a cookie
 * jar, redirects followed by hand, PKCE S256, the token endpoint.
 */

export interface Running {
  app: FastifyInstance;
  url: string;
  config: Config;
  close(): Promise<void>;
}

/** The real app with the embedded provider, on 127.0.0.1, plus a probe route that echoes the verified caller. */
export async function startApp(
  database: Database,
  port?: number,
  env: Record<string, string> = {},
): Promise<Running> {
  const p = port ?? (await freePort());
  const url = `http://127.0.0.1:${p}`;
  const config = loadConfig({ PUBLIC_URL: url, PORT: String(p), DEMO: 'off', LOG_LEVEL: 'silent', ...env });
  const app = await buildApp({ config, database, logger: false });
  app.get('/api/test/whoami', async (request) => requireUser(request));
  await app.listen({ port: p, host: '127.0.0.1' });
  return { app, url, config, close: () => app.close() };
}

/** A browser's cookie jar, reduced to what these flows need (one value per cookie name). */
export class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export class Browser {
  jar = new CookieJar();
  constructor(private readonly base: string) {}
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const res = await fetch(new URL(url, this.base), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: this.jar.header(),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    this.jar.store(res);
    return res;
  }
  /** Follows redirects until one leaves the provider (to the app's redirect URI) or a page is shown. */
  async follow(url: string, init: { form?: Record<string, string> } = {}) {
    let res = await this.request(url, init);
    let location = res.headers.get('location');
    while (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, this.base);
      if (!next.pathname.startsWith('/oidc')) return { res, location: next };
      res = await this.request(next.href);
      location = res.headers.get('location');
    }
    return { res, location: null as URL | null, html: await res.text() };
  }
}

export const b64url = (buf: Buffer) => buf.toString('base64url');

export interface Tokens {
  access_token: string;
  id_token: string;
  refresh_token: string;
  refresh_token_expires_in?: number;
  expires_in: number;
  scope: string;
  token_type: string;
}

export class WebClient {
  verifier = b64url(randomBytes(32));
  constructor(
    readonly browser: Browser,
    readonly config: Config,
  ) {}
  redirectUri() {
    return `${this.config.publicUrl}/auth/callback`;
  }
  authorizeUrl(extra: Record<string, string> = {}) {
    const challenge = b64url(createHash('sha256').update(this.verifier).digest());
    const q = new URLSearchParams({
      client_id: this.config.clientId,
      redirect_uri: this.redirectUri(),
      response_type: 'code',
      scope: `openid profile email offline_access ${this.config.apiScope}`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: b64url(randomBytes(8)),
      nonce: b64url(randomBytes(8)),
      ...extra,
    });
    return `/oidc/auth?${q}`;
  }
  async exchange(code: string): Promise<Response> {
    return fetch(`${this.config.publicUrl}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.redirectUri(),
        client_id: this.config.clientId,
        code_verifier: this.verifier,
      }),
    });
  }
  async refresh(refreshToken: string, scope?: string): Promise<Response> {
    return fetch(`${this.config.publicUrl}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: this.config.clientId,
        ...(scope ? { scope } : {}),
      }),
    });
  }
  /** Authorize, sign in with the given form on the sign-in page, exchange the code. */
  async signIn(
    submit: { path: 'login' | 'demo' | 'signup'; form: Record<string, string> },
    extra: Record<string, string> = {},
  ): Promise<Tokens> {
    const page = await this.browser.follow(this.authorizeUrl(extra));
    expect(page.res.status).toBe(200);
    const uid = interactionUid(page.html!);
    const done = await this.browser.follow(`/oidc/interaction/${uid}/${submit.path}`, { form: submit.form });
    expect(done.location?.href.startsWith(this.redirectUri())).toBe(true);
    const code = done.location!.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const res = await this.exchange(code);
    expect(res.status).toBe(200);
    return (await res.json()) as Tokens;
  }
}

export function interactionUid(html: string): string {
  const m = /action="\/oidc\/interaction\/([^/"]+)\//.exec(html);
  if (!m) throw new Error(`no interaction form in page: ${html.slice(0, 300)}`);
  return m[1];
}

export async function whoami(run: Running, token: string) {
  return fetch(`${run.url}/api/test/whoami`, { headers: { authorization: `Bearer ${token}` } });
}

export { freePort };
