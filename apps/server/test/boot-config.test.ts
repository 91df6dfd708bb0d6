import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

describe('configuration validated at boot', () => {
  it('defaults give the embedded quick start', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.PRODUCT_NAME).toBe('RaceBeacon');
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.embeddedIdp).toBe(true);
    expect(c.issuer).toBe('http://localhost:3000/oidc');
    expect(c.demo).toBe(true);
  });

  it('a PostgreSQL URL turns the demo off unless asked for', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).demo).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', DEMO: 'on' }).demo).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ CONTACT_EMAIL: 'nope' }, 'CONTACT_EMAIL'],
    [{ OIDC_ISSUER: 'https://login.example.com/tenant/v2.0' }, 'OIDC_AUDIENCE'],
    [{ DEMO: 'maybe' }, 'DEMO'],
  ])('refuses %o with a message naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(name));
  });

  it('keeps an external issuer exactly as given', () => {
    const c = loadConfig({
      OIDC_ISSUER: 'https://tenant.example.auth0.com/',
      OIDC_AUDIENCE: 'api://x',
      OIDC_CLIENT_ID: 'spa',
      OIDC_API_SCOPE: 'api://x/races.manage',
      ADMIN_GROUP_ID: 'g1',
    });
    expect(c.embeddedIdp).toBe(false);
    expect(c.issuer).toBe('https://tenant.example.auth0.com/');
  });
});

describe('demo accounts', () => {
  it('are on with the embedded database and off with DATABASE_URL unless asked for', () => {
    expect(loadConfig({}).demoAccounts).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).demoAccounts).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', DEMO_ACCOUNTS: 'on' }).demoAccounts).toBe(true);
    expect(loadConfig({ DEMO_ACCOUNTS: 'off' }).demoAccounts).toBe(false);
  });
});

describe('ADMIN_EMAILS', () => {
  it('is a comma-separated list of emails', () => {
    expect(loadConfig({ ADMIN_EMAILS: ' a@x.org, b@y.org ,' }).ADMIN_EMAILS).toEqual(['a@x.org', 'b@y.org']);
    expect(loadConfig({}).ADMIN_EMAILS).toEqual([]);
    expect(() => loadConfig({ ADMIN_EMAILS: 'a@x.org, nope' })).toThrow(/ADMIN_EMAILS/);
  });
});
