import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { TEST_ADMIN_GROUP } from './support/issuer';

describe('bearer token verification (external issuer via discovery + JWKS)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp('pglite');
  });
  afterAll(async () => t?.close());

  it('accepts anonymous requests without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['expired', { oid: 'u1', expiresIn: -120 }],
    ['signed by another key', { oid: 'u1', foreignKey: true }],
    ['wrong audience', { oid: 'u1', aud: 'api://someone-else' }],
    ['wrong issuer', { oid: 'u1', iss: 'https://evil.example' }],
  ])('refuses a token that is %s with 401 and a JSON body', async (_label, claims) => {
    const token = await t.issuer.sign(claims);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('refuses a malformed Authorization header', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { authorization: 'Basic abc' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a token without the API scope with 403', async () => {
    const token = await t.issuer.sign({ oid: 'u1', scp: 'openid profile' });
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('insufficient_scope');
  });

  // Providers send `groups` as a list (Entra, oidc-provider) or as one string (Glewlwyd): one group, or several
  // separated by commas or spaces. Before, a string named no group, so an admin got 403 on every admin call.
  it.each([
    ['a list', ['other', TEST_ADMIN_GROUP], 200],
    ['one string', TEST_ADMIN_GROUP, 200],
    ['a comma-separated string', `other,${TEST_ADMIN_GROUP}`, 200],
    ['a space-separated string', `other ${TEST_ADMIN_GROUP}`, 200],
    ['a string of comma and spaces', ` other , ${TEST_ADMIN_GROUP} `, 200],
    ['a string of other groups', `other ${TEST_ADMIN_GROUP}-not`, 403],
    ['an empty string', '', 403],
  ] as const)('reads the groups claim given as %s (%j): admin call → %i', async (_label, groups, status) => {
    const token = await t.issuer.sign({ oid: 'admin-g', groups: groups as string[] | string });
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/requests',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(status);
    if (status === 403) expect(res.json().error).toBe('forbidden');
  });

  it('accepts a valid token', async () => {
    const token = await t.issuer.director('dir-1');
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
  });
});
