import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { ConfigError, loadConfig } from '../src/config';
import { openDatabase, type Database } from '../src/db/client';
import { Browser, startApp, WebClient, type Running } from './support/oidc-flow';

/**
 * TRUST_PROXY (issue 9 defect 2, issue 14): off by default; a hop count or the proxies' addresses/CIDRs. Fastify's
 * request.ip / protocol / host and the embedded provider's view of the request both follow it.
 */

describe('TRUST_PROXY configuration', () => {
  it('is off by default and for empty, off, false and 0', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    for (const v of ['', ' ', 'off', 'false', 'FALSE', '0'])
      expect(loadConfig({ TRUST_PROXY: v }).TRUST_PROXY).toBe(false);
  });

  it('takes a hop count', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: ' 2 ' }).TRUST_PROXY).toBe(2);
  });

  it('takes a comma-separated list of IPv4/IPv6 addresses, CIDRs and proxy-addr range names', () => {
    expect(
      loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,192.168.1.0/24' }).TRUST_PROXY,
    ).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', '192.168.1.0/24']);
    expect(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal' }).TRUST_PROXY).toEqual([
      'loopback',
      'uniquelocal',
    ]);
  });

  it('refuses true (it would believe any client), pointing to a hop count or addresses', () => {
    for (const v of ['true', 'on', 'TRUE']) {
      expect(() => loadConfig({ TRUST_PROXY: v })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: v })).toThrow(
        /TRUST_PROXY: .*number of proxies.*addresses\/CIDRs/,
      );
    }
  });

  it.each([
    'proxy.example.org',
    '10.0.0.0/33',
    'fd00::/129',
    '0.0.0.0/0',
    '::/0',
    '1.2.3',
    '-1',
    '1.5',
    '99',
    '127.0.0.1,,nope',
    '10.0.0.0/8/1',
    '10.0.0.0/255.0.0.0',
    'fe80::1%eth0',
  ])('refuses %j with a ConfigError naming TRUST_PROXY', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });
});

describe('the client address, scheme and host Fastify derives', () => {
  let database: Database;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    database = await openDatabase({});
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  async function appWith(trustProxy?: string) {
    const config = loadConfig({
      DEMO: 'off',
      DEMO_ACCOUNTS: 'off',
      LOG_LEVEL: 'silent',
      ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
    });
    const app = await buildApp({ config, database, logger: false });
    app.get('/api/test/client', async (request) => ({
      ip: request.ip,
      protocol: request.protocol,
      host: request.host,
    }));
    apps.push(app);
    return async (remoteAddress: string, headers: Record<string, string> = {}) => {
      const res = await app.inject({
        url: '/api/test/client',
        remoteAddress,
        headers: { host: 'app.internal:3000', ...headers },
      });
      expect(res.statusCode).toBe(200);
      return res.json() as { ip: string; protocol: string; host: string };
    };
  }
  const forwarded = {
    'x-forwarded-for': '6.6.6.6, 203.0.113.5, 10.0.0.7',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'races.example.org',
  };

  it('off (default): the TCP peer, whatever X-Forwarded-* says', async () => {
    const client = await appWith();
    expect(await client('198.51.100.1', forwarded)).toEqual({
      ip: '198.51.100.1',
      protocol: 'http',
      host: 'app.internal:3000',
    });
  });

  it('a hop count: that many addresses from the right are proxies', async () => {
    expect(await (await appWith('1'))('10.0.0.2', forwarded)).toEqual({
      ip: '10.0.0.7',
      protocol: 'https',
      host: 'races.example.org',
    });
    expect((await (await appWith('2'))('10.0.0.2', forwarded)).ip).toBe('203.0.113.5');
  });

  it('addresses/CIDRs: X-Forwarded-* only from a listed proxy, back to the first untrusted hop', async () => {
    const client = await appWith('10.0.0.0/8,::1');
    // Through the proxy 10.0.0.2, which got it from 10.0.0.7 (also trusted), which got it from 203.0.113.5.
    expect(await client('10.0.0.2', forwarded)).toEqual({
      ip: '203.0.113.5',
      protocol: 'https',
      host: 'races.example.org',
    });
    expect((await client('::1', forwarded)).ip).toBe('203.0.113.5');
    // A client that reaches the server directly cannot name another address, scheme or host.
    expect(await client('198.51.100.1', forwarded)).toEqual({
      ip: '198.51.100.1',
      protocol: 'http',
      host: 'app.internal:3000',
    });
  });
});

describe("the embedded provider's view of the request follows TRUST_PROXY", () => {
  let database: Database;
  let run: Running | undefined;
  beforeAll(async () => {
    database = await openDatabase({});
  });
  afterAll(async () => {
    await database.close();
  });

  /** The cookies /oidc/auth sets when the request says it came in over https. */
  async function authCookies(env: Record<string, string>) {
    run = await startApp(database, undefined, env);
    try {
      const client = new WebClient(new Browser(run.url), run.config);
      const res = await fetch(new URL(client.authorizeUrl(), run.url), {
        redirect: 'manual',
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      });
      expect(res.status).toBe(303);
      const cookies = res.headers.getSetCookie();
      expect(cookies.some((c) => c.startsWith('_interaction='))).toBe(true);
      return cookies;
    } finally {
      await run.close();
    }
  }

  it('off: a client saying X-Forwarded-Proto: https does not make the provider think so (no Secure cookies)', async () => {
    const cookies = await authCookies({});
    for (const c of cookies) expect(c).not.toMatch(/;\s*secure/i);
  });

  it("discovery endpoints: a client's X-Forwarded-Host/-Proto count only from a trusted proxy", async () => {
    const discovery = async (env: Record<string, string>, remoteAddress: string) => {
      const config = loadConfig({
        PUBLIC_URL: 'https://races.example.org',
        DEMO: 'off',
        LOG_LEVEL: 'silent',
        ...env,
      });
      const app = await buildApp({ config, database, logger: false });
      try {
        const res = await app.inject({
          url: '/oidc/.well-known/openid-configuration',
          remoteAddress,
          headers: {
            host: 'races.example.org',
            'x-forwarded-proto': 'https',
            'x-forwarded-host': 'evil.example',
          },
        });
        expect(res.statusCode).toBe(200);
        return res.json<{ issuer: string; authorization_endpoint: string }>();
      } finally {
        await app.close();
      }
    };
    // Off: the request's own Host and scheme (plain http here), never the client's forwarded ones.
    const off = await discovery({}, '203.0.113.9');
    expect(off.issuer).toBe('https://races.example.org/oidc');
    expect(off.authorization_endpoint).toBe('http://races.example.org/oidc/auth');
    // A listed proxy is believed; a direct client of the same server is not.
    expect((await discovery({ TRUST_PROXY: '10.0.0.0/8' }, '10.1.1.1')).authorization_endpoint).toBe(
      'https://evil.example/oidc/auth',
    );
    expect((await discovery({ TRUST_PROXY: '10.0.0.0/8' }, '203.0.113.9')).authorization_endpoint).toBe(
      'http://races.example.org/oidc/auth',
    );
  });

  it('behind a trusted proxy (TRUST_PROXY=127.0.0.1): X-Forwarded-Proto: https gives Secure cookies', async () => {
    const cookies = await authCookies({ TRUST_PROXY: '127.0.0.1' });
    for (const c of cookies) expect(c).toMatch(/;\s*secure/i);
  });
});
