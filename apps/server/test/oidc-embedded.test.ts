import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { users } from '../src/db/schema';
import { DEMO_ACCOUNTS } from '../src/identity/accounts';
import { verifyPassword } from '../src/identity/passwords';
import { createTestDatabase, dbKinds } from './support/databases';
import {
  Browser,
  freePort,
  interactionUid,
  startApp,
  WebClient,
  whoami,
  type Running,
  type Tokens,
} from './support/oidc-flow';

/**
 * The embedded OpenID Connect provider driven over real HTTP like a browser would: authorize → sign-in page →
 * credentials → code → token (PKCE S256), then the API, refresh, sign-out and a restart.
 */

describe.each(dbKinds)('embedded OpenID Connect provider (%s)', (kind) => {
  let database: Database;
  let run: Running;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    run = await startApp(database);
  });
  afterAll(async () => {
    await run?.close();
    await database?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes discovery under /oidc with the issuer PUBLIC_URL/oidc and S256 PKCE only', async () => {
    const res = await fetch(`${run.url}/oidc/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.issuer).toBe(`${run.url}/oidc`);
    expect(doc.authorization_endpoint).toBe(`${run.url}/oidc/auth`);
    expect(doc.token_endpoint).toBe(`${run.url}/oidc/token`);
    expect(doc.end_session_endpoint).toBe(`${run.url}/oidc/session/end`);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('creates the three demo accounts with salted scrypt hashes, never the plain password', async () => {
    const rows = await database.db.select().from(users);
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    expect(byEmail.get(DEMO_ACCOUNTS.admin.email)).toMatchObject({
      name: 'Avery Admin',
      groups: [run.config.adminGroupId],
      isDemo: true,
    });
    expect(byEmail.get(DEMO_ACCOUNTS.director1.email)).toMatchObject({ name: 'Dana Director', groups: [] });
    expect(byEmail.get(DEMO_ACCOUNTS.director2.email)).toMatchObject({ name: 'Drew Director', groups: [] });
    const hashes = rows.map((r) => r.passwordHash);
    for (const h of hashes) {
      expect(h).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(h).not.toContain('demo');
      await expect(verifyPassword('demo', h)).resolves.toBe(true);
      await expect(verifyPassword('Demo', h)).resolves.toBe(false);
    }
    expect(new Set(hashes).size).toBe(hashes.length); // salted: same password, different hashes
  });

  it('refuses an authorization request without PKCE', async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const url = new URL(client.authorizeUrl(), run.url);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await client.browser.request(url.href);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/i);
  });

  it('shows the sign-in page and refuses wrong credentials with a message', async () => {
    const browser = new Browser(run.url);
    const client = new WebClient(browser, run.config);
    const page = await browser.follow(client.authorizeUrl());
    expect(page.html).toContain('<label for="email">Email</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect(page.html).toMatch(/<button type="submit">Sign in<\/button>/);
    for (const who of ['admin', 'director1', 'director2']) {
      expect(page.html).toContain(`data-testid="demo-login-${who}"`);
    }
    const uid = interactionUid(page.html!);
    const wrong = await browser.follow(`/oidc/interaction/${uid}/login`, {
      form: { email: DEMO_ACCOUNTS.director1.email, password: 'not-the-password' },
    });
    expect(wrong.location).toBeNull();
    expect(wrong.html).toContain('Wrong email or password.');
    // The same interaction still completes with the right password.
    const right = await browser.follow(`/oidc/interaction/${uid}/login`, {
      form: { email: DEMO_ACCOUNTS.director1.email.toUpperCase(), password: 'demo' },
    });
    expect(right.location?.searchParams.get('code')).toBeTruthy();
  });

  it('completes authorization code + PKCE: JWT access token for the API, ID token with oid/name/email/groups', async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const tokens = await client.signIn({
      path: 'login',
      form: { email: DEMO_ACCOUNTS.director1.email, password: 'demo' },
    });
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect(tokens.expires_in).toBeGreaterThan(590);
    expect(tokens.refresh_token).toBeTruthy();
    // Refresh-token lifetime reported like Entra does (14 days here).
    expect(tokens.refresh_token_expires_in).toBeGreaterThan(14 * 24 * 3600 - 60);
    expect(tokens.refresh_token_expires_in).toBeLessThanOrEqual(14 * 24 * 3600);
    const director = (
      await database.db.select().from(users).where(eq(users.email, DEMO_ACCOUNTS.director1.email))
    )[0];

    const at = decodeJwt(tokens.access_token);
    expect(at).toMatchObject({
      iss: `${run.url}/oidc`,
      aud: run.config.audience,
      sub: director.id,
      oid: director.id,
      groups: [],
      client_id: run.config.clientId,
    });
    expect(String(at.scope).split(' ')).toContain(run.config.apiScope);
    expect(at.exp! - at.iat!).toBe(600);

    const id = decodeJwt(tokens.id_token);
    expect(id).toMatchObject({
      iss: `${run.url}/oidc`,
      aud: run.config.clientId,
      sub: director.id,
      oid: director.id,
      name: 'Dana Director',
      email: DEMO_ACCOUNTS.director1.email,
      groups: [],
    });

    const me = await whoami(run, tokens.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: director.id, isAdmin: false, name: 'Dana Director' });
    const health = await fetch(`${run.url}/api/health`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(health.status).toBe(200);
  });

  it("lets the web app's origin call the token endpoint from the browser (CORS), and no other origin", async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const tokens = await client.signIn({ path: 'demo', form: { who: 'director1' } });
    const refresh = (origin: string) =>
      fetch(`${run.url}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: run.config.clientId,
        }),
      });
    const foreign = await refresh('http://evil.example');
    expect(foreign.status).toBe(400);
    expect((await foreign.json()).error_description).toMatch(/origin http:\/\/evil.example not allowed/);
    const own = await refresh(run.url);
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe(run.url);
  });

  it('signs the demo administrator in with one click, in the admin group', async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const tokens = await client.signIn({ path: 'demo', form: { who: 'admin' } });
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      name: 'Avery Admin',
      groups: [run.config.adminGroupId],
    });
    const me = await whoami(run, tokens.access_token);
    expect(await me.json()).toMatchObject({ isAdmin: true, name: 'Avery Admin' });
  });

  it('refuses the access token once expired (10 minutes later)', async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const tokens = await client.signIn({ path: 'demo', form: { who: 'director2' } });
    expect((await whoami(run, tokens.access_token)).status).toBe(200);
    // Move the clock (Date only; timers and I/O stay real) past expiry + the verifier's 30 s tolerance.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 11 * 60 * 1000);
    const res = await whoami(run, tokens.access_token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_token', message: 'The access token has expired.' });
    vi.useRealTimers();
    expect((await whoami(run, tokens.access_token)).status).toBe(200);
  });

  it('refreshes: a new working access token and a rotated refresh token; the used one is refused', async () => {
    const client = new WebClient(new Browser(run.url), run.config);
    const first = await client.signIn({ path: 'demo', form: { who: 'director1' } });
    const res = await client.refresh(first.refresh_token);
    expect(res.status).toBe(200);
    const second = (await res.json()) as Tokens;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(String(decodeJwt(second.access_token).scope).split(' ')).toContain(run.config.apiScope);
    expect(decodeJwt(second.id_token).name).toBe('Dana Director');
    const me = await whoami(run, second.access_token);
    expect(me.status).toBe(200);
    expect((await me.json()).name).toBe('Dana Director');

    // What the web app sends (oidc-client-ts): the granted scope of the token, i.e. the API scope.
    const third = await client.refresh(second.refresh_token, run.config.apiScope);
    expect(third.status).toBe(200);
    const thirdTokens = (await third.json()) as Tokens;
    expect((await whoami(run, thirdTokens.access_token)).status).toBe(200);

    const reused = await client.refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect((await reused.json()).error).toBe('invalid_grant');
  });

  it('sign-out ends the provider session, returns to / and the refresh token is refused afterwards', async () => {
    const browser = new Browser(run.url);
    const client = new WebClient(browser, run.config);
    const tokens = await client.signIn({ path: 'demo', form: { who: 'director1' } });

    const q = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: `${run.url}/`,
      client_id: run.config.clientId,
    });
    const confirm = await browser.request(`/oidc/session/end?${q}`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    // The confirmation form is submitted by script at once and already says "yes".
    expect(html).toContain('<input type="hidden" name="logout" value="yes">');
    expect(html).toContain('.submit()');
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1];
    const done = await browser.request(action, { form: { xsrf, logout: 'yes' } });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${run.url}/`);

    const refused = await client.refresh(tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');

    // The provider session is gone: a silent (prompt=none) request now needs a sign-in.
    const silent = await browser.request(client.authorizeUrl({ prompt: 'none' }));
    const back = new URL(silent.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('login_required');
  });

  it('a sign-out link without the signed-in user’s id_token_hint asks for a click (issue 24.11)', async () => {
    const browser = new Browser(run.url);
    const client = new WebClient(browser, run.config);
    await client.signIn({ path: 'demo', form: { who: 'director1' } });
    const someoneElse = await new WebClient(new Browser(run.url), run.config).signIn({
      path: 'demo',
      form: { who: 'director2' },
    });
    const links = [
      '',
      `?${new URLSearchParams({ client_id: run.config.clientId, post_logout_redirect_uri: `${run.url}/` })}`,
      // Another account's valid id token: it proves nothing about this browser's user.
      `?${new URLSearchParams({ id_token_hint: someoneElse.id_token })}`,
    ];
    let html = '';
    for (const q of links) {
      const page = await browser.request(`/oidc/session/end${q}`);
      expect(page.status, q).toBe(200);
      html = await page.text();
      expect(html, q).not.toContain('<script');
      expect(html, q).toContain('<button type="submit" form="op.logoutForm">Sign out</button>');
    }
    // Nothing was submitted: still signed in.
    const silent = await browser.request(client.authorizeUrl({ prompt: 'none' }));
    expect(new URL(silent.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    // The click signs out.
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1];
    expect((await browser.request(action, { form: { xsrf, logout: 'yes' } })).status).toBe(303);
    const after = await browser.request(client.authorizeUrl({ prompt: 'none' }));
    expect(new URL(after.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('keeps the provider session: a second authorization is silent (prompt=none) without a sign-in page', async () => {
    const browser = new Browser(run.url);
    const client = new WebClient(browser, run.config);
    await client.signIn({ path: 'demo', form: { who: 'director2' } });
    const again = await browser.follow(client.authorizeUrl({ prompt: 'none' }));
    expect(again.location?.searchParams.get('code')).toBeTruthy();
  });

  describe('sign-up (prompt=create)', () => {
    it('shows the registration form, validates it, creates the account and returns signed in', async () => {
      const browser = new Browser(run.url);
      const client = new WebClient(browser, run.config);
      const page = await browser.follow(client.authorizeUrl({ prompt: 'create' }));
      expect(page.html).toContain('<label for="name">Name</label>');
      expect(page.html).toContain('<label for="email">Email</label>');
      expect(page.html).toContain('<label for="password">Password</label>');
      const uid = interactionUid(page.html!);

      const invalid = await browser.follow(`/oidc/interaction/${uid}/signup`, {
        form: { name: ' ', email: 'not-an-email', password: 'short' },
      });
      expect(invalid.location).toBeNull();
      expect(invalid.html).toContain('Enter your name.');
      expect(invalid.html).toContain('Enter a valid email address');
      expect(invalid.html).toContain('The password must be at least 8 characters.');

      const email = `new.director.${kind}@example.org`;
      const ok = await browser.follow(`/oidc/interaction/${uid}/signup`, {
        form: { name: 'Nia New', email, password: 'correct horse' },
      });
      const code = ok.location?.searchParams.get('code');
      expect(code).toBeTruthy();
      const tokens = (await (await client.exchange(code!)).json()) as Tokens;
      expect(tokens.refresh_token).toBeTruthy();
      expect(decodeJwt(tokens.id_token)).toMatchObject({ name: 'Nia New', email, groups: [] });
      const me = await whoami(run, tokens.access_token);
      expect(await me.json()).toMatchObject({ name: 'Nia New', isAdmin: false });
      const [row] = await database.db.select().from(users).where(eq(users.email, email));
      expect(row.passwordHash.startsWith('scrypt$')).toBe(true);
      expect(row.isDemo).toBe(false);

      // The same email again (any letter case) is refused with a message, and nothing is written.
      const second = new Browser(run.url);
      const page2 = await second.follow(new WebClient(second, run.config).authorizeUrl({ prompt: 'create' }));
      const dup = await second.follow(`/oidc/interaction/${interactionUid(page2.html!)}/signup`, {
        form: { name: 'Someone Else', email: email.toUpperCase(), password: 'another password' },
      });
      expect(dup.location).toBeNull();
      expect(dup.html).toContain('An account with this email already exists.');
      const count = await database.db.select().from(users);
      expect(count.filter((u) => u.email.toLowerCase() === email)).toHaveLength(1);
    });

    it('is reachable from the sign-in page link', async () => {
      const browser = new Browser(run.url);
      const page = await browser.follow(new WebClient(browser, run.config).authorizeUrl());
      const uid = interactionUid(page.html!);
      expect(page.html).toContain(`href="/oidc/interaction/${uid}?view=signup"`);
      const form = await browser.follow(`/oidc/interaction/${uid}?view=signup`);
      expect(form.html).toContain('Create your director account');
    });
  });

  it('answers an unknown or expired interaction with a page, not an error', async () => {
    const res = await fetch(`${run.url}/oidc/interaction/does-not-exist`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This sign-in page has expired');
  });
});

describe('restart on the same PGlite data directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rb-oidc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps signing keys, refresh tokens, provider sessions and accounts', async () => {
    const port = await freePort();
    let database = await openDatabase({ dataDir: dir });
    let run = await startApp(database, port);
    const browser = new Browser(run.url);
    const client = new WebClient(browser, run.config);
    const tokens = await client.signIn({ path: 'demo', form: { who: 'director1' } });
    const idsBefore = (await database.db.select().from(users)).map((u) => u.id).sort();
    await run.close();
    await database.close();

    database = await openDatabase({ dataDir: dir });
    run = await startApp(database, port);
    try {
      // Same keys: the old access token still verifies.
      expect((await whoami(run, tokens.access_token)).status).toBe(200);
      // Same accounts (no second seeding, same stable ids).
      expect((await database.db.select().from(users)).map((u) => u.id).sort()).toEqual(idsBefore);
      // Refresh tokens survived.
      const refreshed = await client.refresh(tokens.refresh_token);
      expect(refreshed.status).toBe(200);
      // The browser's provider session survived: a silent authorization yields a code.
      const again = await browser.follow(client.authorizeUrl({ prompt: 'none' }));
      expect(again.location?.searchParams.get('code')).toBeTruthy();
    } finally {
      await run.close();
      await database.close();
    }
  });
});

describe('demo accounts switched off (DEMO_ACCOUNTS=off, the default with DATABASE_URL)', () => {
  it('seeds no demo accounts, shows no demo buttons, and refuses demo sign-ins', async () => {
    const database = await openDatabase({});
    // Seeded once by an earlier start with demo accounts on…
    const first = await startApp(database);
    await first.close();
    // …then restarted with them off: the existing demo accounts stop working.
    const run = await startApp(database, undefined, { DEMO_ACCOUNTS: 'off' });
    try {
      const browser = new Browser(run.url);
      const client = new WebClient(browser, run.config);
      const page = await browser.follow(client.authorizeUrl());
      expect(page.html).toContain('<label for="email">Email</label>');
      expect(page.html).not.toContain('data-testid="demo-login-');
      const uid = interactionUid(page.html!);
      const byButton = await browser.follow(`/oidc/interaction/${uid}/demo`, { form: { who: 'admin' } });
      expect(byButton.location).toBeNull();
      expect(byButton.html).toContain('That demo account is not available.');
      const byPassword = await browser.follow(`/oidc/interaction/${uid}/login`, {
        form: { email: DEMO_ACCOUNTS.admin.email, password: 'demo' },
      });
      expect(byPassword.location).toBeNull();
      expect(byPassword.html).toContain('Wrong email or password.');
    } finally {
      await run.close();
      await database.close();
    }
  });

  it('a fresh database with demo accounts off has none', async () => {
    const database = await openDatabase({});
    const run = await startApp(database, undefined, { DEMO_ACCOUNTS: 'off' });
    try {
      expect(await database.db.select().from(users)).toEqual([]);
    } finally {
      await run.close();
      await database.close();
    }
  });
});

describe('ADMIN_EMAILS (how a real install without demo accounts gets its administrators)', () => {
  it('puts an account with a listed email in the admin group, and nobody else', async () => {
    const database = await openDatabase({});
    const run = await startApp(database, undefined, {
      DEMO_ACCOUNTS: 'off',
      ADMIN_EMAILS: 'Boss@Example.org, second@example.org',
    });
    try {
      async function signUp(name: string, email: string) {
        const browser = new Browser(run.url);
        const client = new WebClient(browser, run.config);
        const page = await browser.follow(client.authorizeUrl({ prompt: 'create' }));
        const ok = await browser.follow(`/oidc/interaction/${interactionUid(page.html!)}/signup`, {
          form: { name, email, password: 'correct horse battery' },
        });
        const code = ok.location?.searchParams.get('code');
        expect(code).toBeTruthy();
        return (await (await client.exchange(code!)).json()) as Tokens;
      }
      const boss = await signUp('Bea Boss', 'boss@example.org');
      expect(decodeJwt(boss.id_token).groups).toEqual([run.config.adminGroupId]);
      expect(decodeJwt(boss.access_token).groups).toEqual([run.config.adminGroupId]);
      expect(await (await whoami(run, boss.access_token)).json()).toMatchObject({ isAdmin: true });
      // Stored groups stay empty: the admin right follows the configuration, so removing the email revokes it.
      const [row] = await database.db.select().from(users).where(eq(users.email, 'boss@example.org'));
      expect(row.groups).toEqual([]);

      const other = await signUp('Otto Other', 'otto@example.org');
      expect(decodeJwt(other.id_token).groups).toEqual([]);
      expect(await (await whoami(run, other.access_token)).json()).toMatchObject({ isAdmin: false });
    } finally {
      await run.close();
      await database.close();
    }
  });
});

describe('password guessing', () => {
  it('holds an email back after 10 wrong passwords (even the right one then waits); other accounts are unaffected', async () => {
    const database = await openDatabase({});
    const run = await startApp(database);
    try {
      const browser = new Browser(run.url);
      const client = new WebClient(browser, run.config);
      const page = await browser.follow(client.authorizeUrl());
      const uid = interactionUid(page.html!);
      const attempt = (email: string, password: string) =>
        browser.follow(`/oidc/interaction/${uid}/login`, { form: { email, password } });
      // A right password gives its attempt back: signing in never counts against a user.
      for (let i = 0; i < 10; i++) {
        const wrong = await attempt(DEMO_ACCOUNTS.director1.email, `guess-${i}`);
        expect(wrong.res.status).toBe(200);
        expect(wrong.html).toContain('Wrong email or password.');
      }
      const held = await attempt(DEMO_ACCOUNTS.director1.email.toUpperCase(), 'demo');
      expect(held.res.status).toBe(429);
      expect(held.location).toBeNull();
      expect(held.html).toContain('Too many sign-in attempts. Wait a few minutes, then try again.');
      const other = await attempt(DEMO_ACCOUNTS.director2.email, 'demo');
      expect(other.location?.searchParams.get('code')).toBeTruthy();
    } finally {
      await run.close();
      await database.close();
    }
  });
});
