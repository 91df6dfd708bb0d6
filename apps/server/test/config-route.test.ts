import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createTestDatabase, type TestDatabase } from './support/databases';
import type { FastifyInstance } from 'fastify';

describe('GET /api/config (embedded provider)', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  beforeAll(async () => {
    db = await createTestDatabase('pglite');
    const config = loadConfig({
      PUBLIC_URL: 'https://races.example.org/',
      PRODUCT_NAME: 'TrailBeacon',
      CONTACT_EMAIL: 'help@races.example.org',
      TILE_URL: 'https://tiles.example.org/{z}/{x}/{y}.png',
      TILE_ATTRIBUTION: '© Example tiles',
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      // As behind a TLS-terminating proxy on this host: its X-Forwarded-Proto is believed (inject comes from 127.0.0.1).
      TRUST_PROXY: 'loopback',
    });
    app = await buildApp({ config, database: db, logger: false });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('answers anonymously with product, auth and map settings derived from the environment', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/config' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      productName: 'TrailBeacon',
      contactEmail: 'help@races.example.org',
      auth: {
        authority: 'https://races.example.org/oidc',
        clientId: 'racebeacon-web',
        scope: 'api://racebeacon/races.manage',
        adminGroupId: 'racebeacon-admins',
        redirectUri: 'https://races.example.org/auth/callback',
        postLogoutRedirectUri: 'https://races.example.org/',
      },
      map: { tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: '© Example tiles' },
    });
  });

  it('the authority is the embedded provider, whose discovery document names the same issuer', async () => {
    const cfg = (await app.inject({ method: 'GET', url: '/api/config' })).json();
    const res = await app.inject({
      method: 'GET',
      url: '/oidc/.well-known/openid-configuration',
      headers: { host: 'races.example.org', 'x-forwarded-proto': 'https' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().issuer).toBe(cfg.auth.authority);
    expect(res.json().authorization_endpoint).toBe('https://races.example.org/oidc/auth');
  });
});
