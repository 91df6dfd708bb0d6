import { createHash } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase, type Database } from '../src/db/client';
import { contentSecurityPolicy, discoveryOrigins, tileSource } from '../src/platform/security-headers';
import { createTestApp, type TestContext } from './support/app';
import { seedLiveRace } from './support/live-seed';

/**
 * Security headers on every answer (issue 14, "Safe defaults"): a Content-Security-Policy that lets in the tile
 * server and nothing else external, frame-ancestors 'none', nosniff, Referrer-Policy, HSTS only under an https
 * PUBLIC_URL; the embedded provider's cookies and discovery document.
 */

/** The directives of a CSP header, by name. */
function directives(csp: string | undefined): Map<string, string[]> {
  expect(csp, 'content-security-policy header').toBeTypeOf('string');
  return new Map(
    csp!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

/** Every source of the policy that names another origin (not a keyword, hash or scheme like data:). */
function externalSources(csp: string): string[] {
  const out = new Set<string>();
  for (const values of directives(csp).values()) {
    for (const v of values) if (/^(https?:)?\/\//.test(v) || /^[*a-z0-9-]+\.[a-z]/i.test(v)) out.add(v);
  }
  return [...out];
}

interface Started {
  app: FastifyInstance;
  database: Database;
  close(): Promise<void>;
}

async function start(env: Record<string, string>, logLines?: string[]): Promise<Started> {
  const database = await openDatabase({});
  const config = loadConfig({ LOG_LEVEL: 'silent', DEMO: 'off', ...env });
  const app = await buildApp({
    config,
    database,
    logger: logLines
      ? { level: 'warn', stream: { write: (line: string) => void logLines.push(line) } }
      : false,
  });
  await app.ready();
  return {
    app,
    database,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

const PAGES = [
  ['the web app', '/'],
  ['a client-side route', '/races/1'],
  ['an API answer', '/api/config'],
  ['an API error', '/api/open/races/999999'],
  ['the OIDC discovery document', '/oidc/.well-known/openid-configuration'],
  ['an OIDC page (error page of a bad authorization request)', '/oidc/auth?client_id=nobody'],
] as const;

describe('tile server origin for the CSP', () => {
  it.each([
    ['https://tile.openstreetmap.org/{z}/{x}/{y}.png', 'https://tile.openstreetmap.org'],
    ['https://{s}.tile.example.org/{z}/{x}/{y}.png', 'https://*.tile.example.org'],
    ['https://tiles-{s}.example.org/{z}/{x}/{y}.png?key=abc', 'https://*.example.org'],
    ['http://127.0.0.1:8080/tiles/{z}/{x}/{y}{r}.png', 'http://127.0.0.1:8080'],
    ['/tiles/{z}/{x}/{y}.png', null],
  ])('%s → %s', (url, source) => {
    expect(tileSource(url)).toBe(source);
  });

  it.each(['ftp://tiles.example.org/{z}.png', 'tiles/{z}/{x}/{y}.png', '//tiles.example.org/{z}.png'])(
    'refuses %s',
    (url) => {
      expect(() => tileSource(url)).toThrow(/TILE_URL/);
    },
  );

  it('an external issuer adds its endpoints from discovery (Entra names a tenant-id host)', () => {
    const doc = {
      issuer: 'https://guid.ciamlogin.com/guid/v2.0',
      authorization_endpoint: 'https://contoso.ciamlogin.com/guid/oauth2/v2.0/authorize',
      token_endpoint: 'https://contoso.ciamlogin.com/guid/oauth2/v2.0/token',
      end_session_endpoint: 'https://contoso.ciamlogin.com/guid/oauth2/v2.0/logout',
      jwks_uri: 'https://keys.example.com/jwks',
      userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo',
    };
    expect(discoveryOrigins(doc).sort()).toEqual([
      'https://contoso.ciamlogin.com',
      'https://graph.microsoft.com',
    ]);
  });

  it('frame-ancestors takes the sources a route asks for', () => {
    const csp = contentSecurityPolicy({
      tile: null,
      issuerOrigins: [],
      publicOrigin: 'http://localhost:3000',
      frameAncestors: ['https://club.example.org'],
    });
    expect(directives(csp).get('frame-ancestors')).toEqual(['https://club.example.org']);
  });
});

describe('security headers, embedded provider, http PUBLIC_URL', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({ PUBLIC_URL: 'http://localhost:3000' });
  });
  afterAll(async () => s?.close());

  it.each(PAGES)('%s (%s) carries them', async (_what, url) => {
    const res = await s.app.inject({ method: 'GET', url });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
  });

  it('the CSP allows the tile server and no other external origin by default', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/' });
    const raw = res.headers['content-security-policy'] as string;
    const csp = directives(raw);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'https://tile.openstreetmap.org']);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-src')).toEqual(["'self'"]);
    // form-action names PUBLIC_URL's origin (the sign-in form's redirect back to the app): that is us, not external.
    expect(externalSources(raw).sort()).toEqual(['http://localhost:3000', 'https://tile.openstreetmap.org']);
    expect(raw).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('the sign-in pages’ inline stylesheet and the sign-out script are allowed by hash, nothing else inline', async () => {
    const auth = await s.app.inject({
      method: 'GET',
      url:
        '/oidc/auth?client_id=racebeacon-web&response_type=code&scope=openid&redirect_uri=' +
        encodeURIComponent('http://localhost:3000/auth/callback') +
        '&code_challenge=' +
        'x'.repeat(43) +
        '&code_challenge_method=S256',
    });
    expect(auth.statusCode).toBe(303);
    const page = await s.app.inject({
      method: 'GET',
      url: auth.headers.location as string,
      headers: { cookie: cookieHeader(auth.headers['set-cookie']) },
    });
    expect(page.statusCode).toBe(200);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)![1];
    const hash = `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
    expect(directives(page.headers['content-security-policy'] as string).get('style-src')).toContain(hash);
    expect(page.body).not.toMatch(/<script|style="/);
  });

  it('an undecodable URL is a 400 in our shape with the security headers (issue 24.10)', async () => {
    for (const url of ['/api/open/races/%E0%A4%A', '/api/open/races/%ZZ', '/races/%E0%A4%A']) {
      const res = await s.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({ error: 'invalid_url', message: expect.any(String) as string });
      expect(res.body).not.toMatch(/FST_|statusCode/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(directives(res.headers['content-security-policy'] as string).get('frame-ancestors')).toEqual([
        "'none'",
      ]);
    }
  });

  it('a request HTTP cannot read is a 400 in our shape with the security headers, and the connection closes', async () => {
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (s.app.server.address() as AddressInfo).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () =>
        socket.write('GET / HTTP/1.1\r\nHost x\r\n\r\n'),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (text += c));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(answer).toMatch(/\r\ncontent-security-policy: [^\r]*frame-ancestors 'none'/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'bad_request',
      message: expect.any(String) as string,
    });
  });

  it('the course map page allows its stylesheet by hash, nothing inline else, and is never framed (issue 24.9)', async () => {
    const race = await seedLiveRace(s.database.db, { runners: 1 });
    const res = await s.app.inject({ method: 'GET', url: `/courses/${race.raceId}/map` });
    expect(res.statusCode).toBe(200);
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)![1];
    const hash = `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('style-src')).toEqual([hash]);
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).not.toMatch(/<script|style="/);
  });

  it('the API docs (Swagger UI injects <style> elements) allow inline styles, never inline scripts', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/docs/' });
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('the web app’s silent-renew page may be framed by the app itself, nothing else', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/auth/silent-renew?code=x&state=y' });
    expect(directives(res.headers['content-security-policy'] as string).get('frame-ancestors')).toEqual([
      "'self'",
    ]);
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    // ...and the next answer on the same server is back to 'none'
    const next = await s.app.inject({ method: 'GET', url: '/auth/callback' });
    expect(directives(next.headers['content-security-policy'] as string).get('frame-ancestors')).toEqual([
      "'none'",
    ]);
  });

  it('a route can open frame-ancestors for itself', async () => {
    // a fresh app: routes can only be added before it is ready
    const database = await openDatabase({});
    const config = loadConfig({ LOG_LEVEL: 'silent', DEMO: 'off' });
    const other = await buildApp({ config, database, logger: false });
    other.get(
      '/embed-test',
      { config: { securityHeaders: { frameAncestors: ['https://club.example.org'] } } },
      () => ({
        ok: true,
      }),
    );
    await other.ready();
    try {
      const res = await other.inject({ method: 'GET', url: '/embed-test' });
      expect(directives(res.headers['content-security-policy'] as string).get('frame-ancestors')).toEqual([
        'https://club.example.org',
      ]);
      expect(res.headers['x-frame-options']).toBeUndefined();
    } finally {
      await other.close();
      await database.close();
    }
  });

  it('the discovery document offers the authorization code flow only', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/oidc/.well-known/openid-configuration' })).json();
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.response_modes_supported).toEqual(['query']);
    expect(doc.grant_types_supported.sort()).toEqual(['authorization_code', 'refresh_token']);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
  });

  it.each([
    ['response_type=id_token', 'response_type=id_token&nonce=n'],
    ['response_type=code id_token', 'response_type=code%20id_token&nonce=n'],
    ['response_mode=form_post', 'response_type=code&response_mode=form_post'],
    ['response_mode=fragment', 'response_type=code&response_mode=fragment'],
  ])('an authorization request with %s is refused', async (_what, params) => {
    const res = await s.app.inject({
      method: 'GET',
      url:
        `/oidc/auth?client_id=racebeacon-web&${params}&scope=openid&redirect_uri=` +
        encodeURIComponent('http://localhost:3000/auth/callback') +
        `&code_challenge=${'x'.repeat(43)}&code_challenge_method=S256`,
    });
    // An error page or the error sent back to the client (in whatever mode it asked for): no code, no sign-in.
    const location = String(res.headers.location ?? '');
    expect(location).not.toMatch(/\/interaction\//);
    expect(`${location} ${res.body}`).toMatch(/error/);
    expect(`${location} ${res.body}`).not.toMatch(/[?&#]code=|name="code"/);
  });

  it('OIDC cookies are HttpOnly and SameSite, not Secure over http', async () => {
    const res = await s.app.inject({
      method: 'GET',
      url:
        '/oidc/auth?client_id=racebeacon-web&response_type=code&scope=openid&redirect_uri=' +
        encodeURIComponent('http://localhost:3000/auth/callback') +
        `&code_challenge=${'x'.repeat(43)}&code_challenge_method=S256`,
    });
    const cookies = [res.headers['set-cookie']].flat().filter(Boolean) as string[];
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c.toLowerCase()).toContain('httponly');
      expect(c.toLowerCase()).toContain('samesite=lax');
      expect(c.toLowerCase()).not.toContain('secure');
    }
  });
});

describe('security headers under an https PUBLIC_URL behind a proxy', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({
      PUBLIC_URL: 'https://races.example.org',
      TRUST_PROXY: '127.0.0.1',
      TILE_URL: 'https://{s}.tiles.example.net/{z}/{x}/{y}.png',
    });
  });
  afterAll(async () => s?.close());

  it.each(PAGES)('%s (%s) carries HSTS', async (_what, url) => {
    const res = await s.app.inject({
      method: 'GET',
      url,
      headers: { 'x-forwarded-proto': 'https', host: 'races.example.org' },
    });
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'https://*.tiles.example.net']);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('OIDC cookies are HttpOnly, SameSite and Secure', async () => {
    const res = await s.app.inject({
      method: 'GET',
      url:
        '/oidc/auth?client_id=racebeacon-web&response_type=code&scope=openid&redirect_uri=' +
        encodeURIComponent('https://races.example.org/auth/callback') +
        `&code_challenge=${'x'.repeat(43)}&code_challenge_method=S256`,
      headers: { 'x-forwarded-proto': 'https', host: 'races.example.org' },
    });
    expect(res.statusCode).toBe(303);
    const cookies = [res.headers['set-cookie']].flat().filter(Boolean) as string[];
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      const lower = c.toLowerCase();
      expect(lower).toContain('httponly');
      expect(lower).toContain('samesite=lax');
      expect(lower).toMatch(/;\s*secure/);
    }
  });
});

describe('security headers with an external OIDC issuer', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp('pglite', { PUBLIC_URL: 'http://localhost:3000' });
  });
  afterAll(async () => t?.close());

  it('the web app may call and frame the issuer, and nothing else external', async () => {
    const issuerOrigin = new URL(t.issuer.url).origin;
    const res = await t.app.inject({ method: 'GET', url: '/api/config' });
    const raw = res.headers['content-security-policy'] as string;
    const csp = directives(raw);
    expect(csp.get('connect-src')).toEqual(["'self'", issuerOrigin]);
    expect(csp.get('frame-src')).toEqual(["'self'", issuerOrigin]);
    expect(externalSources(raw).sort()).toEqual(
      ['http://localhost:3000', 'https://tile.openstreetmap.org', issuerOrigin].sort(),
    );
  });
});

function cookieHeader(setCookie: string | string[] | undefined): string {
  return [setCookie]
    .flat()
    .filter((c): c is string => !!c)
    .map((c) => c.split(';')[0])
    .join('; ');
}
