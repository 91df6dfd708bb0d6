import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import type { Database } from '../src/db/client';
import { requireUser } from '../src/identity/auth-plugin';
import { createTestDatabase } from './support/databases';
import { startTestIssuer, type TestIssuer } from './support/issuer';
import { Browser, startApp, WebClient, type Running } from './support/oidc-flow';

/**
 * The external-provider path. A real OpenID Connect provider (another RaceBeacon process's embedded provider,
 * on its own port: a different issuer) stands in for Entra External ID / Keycloak. The app under test has
 * OIDC_ISSUER set, mounts no provider of its own, and verifies the other issuer's tokens through discovery + JWKS.
 */
describe('external OIDC issuer (embedded provider off)', () => {
  let idpDb: Database;
  let idp: Running;
  let apiDb: Database;
  let api: FastifyInstance;
  let stranger: TestIssuer;

  beforeAll(async () => {
    idpDb = await createTestDatabase('pglite');
    idp = await startApp(idpDb);
    stranger = await startTestIssuer();
    apiDb = await createTestDatabase('pglite');
    const config = loadConfig({
      OIDC_ISSUER: idp.config.issuer,
      OIDC_AUDIENCE: idp.config.audience,
      OIDC_CLIENT_ID: 'racebeacon-web',
      OIDC_API_SCOPE: idp.config.apiScope,
      ADMIN_GROUP_ID: idp.config.adminGroupId,
      PUBLIC_URL: 'http://localhost:3000',
      DEMO: 'off',
      LOG_LEVEL: 'silent',
    });
    api = await buildApp({ config, database: apiDb, logger: false });
    api.get('/api/test/whoami', async (request) => requireUser(request));
    await api.ready();
  });
  afterAll(async () => {
    await api?.close();
    await apiDb?.close();
    await idp?.close();
    await idpDb?.close();
    await stranger?.close();
  });

  const whoami = (token: string) =>
    api.inject({ method: 'GET', url: '/api/test/whoami', headers: { authorization: `Bearer ${token}` } });

  it('does not mount the embedded provider', async () => {
    expect(api.config.embeddedIdp).toBe(false);
    expect(api.oidcProvider).toBeUndefined();
    for (const url of ['/oidc/.well-known/openid-configuration', '/oidc/auth', '/oidc/interaction/x']) {
      const res = await api.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
    }
  });

  it('hands the external settings to the web app through /api/config', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/config' });
    expect(res.json().auth).toEqual({
      authority: idp.config.issuer,
      clientId: 'racebeacon-web',
      scope: idp.config.apiScope,
      adminGroupId: idp.config.adminGroupId,
      redirectUri: 'http://localhost:3000/auth/callback',
      postLogoutRedirectUri: 'http://localhost:3000/',
    });
  });

  it("accepts the other issuer's director and admin tokens, verified through its discovery document and JWKS", async () => {
    const director = await new WebClient(new Browser(idp.url), idp.config).signIn({
      path: 'demo',
      form: { who: 'director2' },
    });
    expect(decodeJwt(director.access_token).iss).toBe(idp.config.issuer);
    const me = await whoami(director.access_token);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: decodeJwt(director.access_token).oid, isAdmin: false });

    const admin = await new WebClient(new Browser(idp.url), idp.config).signIn({
      path: 'demo',
      form: { who: 'admin' },
    });
    expect((await whoami(admin.access_token)).json()).toMatchObject({ isAdmin: true, name: 'Avery Admin' });
  });

  it('refuses tokens of any other issuer, even one with a valid discovery document and JWKS', async () => {
    const foreign = await stranger.sign({
      oid: 'u-1',
      aud: idp.config.audience,
      scp: idp.config.apiScope,
    });
    const res = await whoami(foreign);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_token');
  });
});
