import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Request } from 'playwright-core';
import { launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { DEMO_NAMES, signIn, signOut } from './support/auth';
import { seriousA11yViolations } from './support/web';

/**
 * Sign-in in a real Chromium against the embedded OpenID Connect provider, through the app's own nav:
 * Director Login → the provider's sign-in page → a demo account → signed in; API calls carry the token;
 * a reload keeps the session; Logout ends it.
 */
let server: RunningServer;
let browser: Browser;
beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const navNames = async (page: Page) =>
  (await nav(page).locator('a, button').allTextContents()).map((s) => s.trim()).filter(Boolean);

/** Waits for an API response and returns it with the request that caused it. */
async function apiCall(page: Page, path: string, action: () => Promise<unknown>) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() === 'GET'),
    action(),
  ]);
  return { response, request: response.request() as Request };
}

async function withPage(name: string, fn: (w: WatchedPage) => Promise<void>) {
  const w = await newPage(browser);
  try {
    await fn(w);
  } catch (err) {
    await screenshot(w.page, `auth-${name}-failure`).catch(() => undefined);
    throw err;
  } finally {
    await w.context.close();
  }
}

describe('embedded provider in Chromium', () => {
  it('demo director: Director Login → sign-in page → signed in; token reaches the API; reload keeps it; Logout ends it', async () => {
    await withPage('director', async ({ page, errors }) => {
      await page.goto(server.url);
      await nav(page).getByRole('button', { name: 'Director Login' }).waitFor(); // rendered after /api/config
      expect(await navNames(page)).toEqual(['Home', 'Races', 'Director Login', 'Director SignUp']);

      await page.getByRole('button', { name: 'Director Login' }).click();
      await page.getByRole('heading', { name: 'Sign in to RaceBeacon' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Sign in to RaceBeacon',
      );
      expect(await page.getByLabel('Email').count()).toBe(1);
      expect(await page.getByLabel('Password').count()).toBe(1);
      await page.getByTestId('demo-login-director1').click();

      await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
      expect(page.url()).toBe(`${server.url}/`);
      expect(await navNames(page)).toEqual(['Home', 'Races', 'My Races', 'Logout']);
      await page.getByText(DEMO_NAMES.director1).first().waitFor();

      // Tokens live in session storage (not local storage).
      const stored = await page.evaluate(() => ({
        session: Object.keys(sessionStorage).filter((k) => k.startsWith('oidc.user:')).length,
        local: Object.keys(localStorage).filter((k) => k.startsWith('oidc.')).length,
      }));
      expect(stored).toEqual({ session: 1, local: 0 });

      // A director call carries the bearer token and succeeds.
      const { response, request } = await apiCall(page, '/api/director/races', () =>
        nav(page).getByRole('link', { name: 'My Races' }).click(),
      );
      expect(response.status()).toBe(200);
      expect(request.headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      expect(Array.isArray(await response.json())).toBe(true);

      // Reload keeps the session, on the guarded page itself.
      const again = await apiCall(page, '/api/director/races', () => page.reload());
      expect(again.response.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe('/my-races');
      expect(await navNames(page)).toContain('Logout');

      // Logout: back on / signed out, tokens gone, the provider session ended (sign-in page shown again).
      await signOut(page, server.url);
      expect(await navNames(page)).toEqual(['Home', 'Races', 'Director Login', 'Director SignUp']);
      const left = await page.evaluate(() =>
        Object.keys(sessionStorage).filter((k) => k.startsWith('oidc.user:')),
      );
      expect(left).toEqual([]);
      await page.getByRole('button', { name: 'Director Login' }).click();
      await page.getByRole('heading', { name: 'Sign in to RaceBeacon' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      await page.getByTestId('demo-login-director1').waitFor();

      expect(errors).toEqual([]);
    });
  });

  it('demo admin: signed in with Race Requests and Devices; an admin call succeeds', async () => {
    await withPage('admin', async ({ page, errors }) => {
      await signIn(page, server.url, 'admin');
      expect(await navNames(page)).toEqual([
        'Home',
        'Races',
        'My Races',
        'Race Requests',
        'Devices',
        'Logout',
      ]);
      const { response, request } = await apiCall(page, '/api/admin/requests', () =>
        nav(page).getByRole('link', { name: 'Race Requests' }).click(),
      );
      expect(response.status()).toBe(200);
      expect(request.headers().authorization).toMatch(/^Bearer /);
      await page.reload();
      await nav(page).getByRole('link', { name: 'Devices' }).waitFor();
      await signOut(page, server.url);
      expect(await navNames(page)).not.toContain('Race Requests');
      expect(errors).toEqual([]);
    });
  });

  it('a second director is someone else (different object id reaches the API)', async () => {
    await withPage('director2', async ({ page, errors }) => {
      await signIn(page, server.url, 'director2');
      await page.getByText(DEMO_NAMES.director2).first().waitFor();
      const token = await page.evaluate(async () => {
        const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
        return (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token;
      });
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
        oid: string;
        name: string;
      };
      expect(payload.name).toBe(DEMO_NAMES.director2);
      expect(payload.oid).toMatch(/^[0-9a-f-]{36}$/);
      expect(errors).toEqual([]);
    });
  });
});

describe('a failed sign-in in Chromium', () => {
  it('the provider refuses (access_denied): its reason on the page; a wrong nonce is refused and shown; Try again signs in; logout sends a state and drops it on return', async () => {
    await withPage('sign-in-failure', async ({ page, errors }) => {
      const authorize = /\/oidc\/auth\?/;
      await page.goto(`${server.url}/races`);
      await nav(page).getByRole('button', { name: 'Director Login' }).waitFor();

      // The provider answers the authorization request with an error, as one does when the user refuses.
      await page.route(authorize, (route) => {
        const asked = new URL(route.request().url());
        const back = new URL(asked.searchParams.get('redirect_uri')!);
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user refused the request');
        back.searchParams.set('state', asked.searchParams.get('state')!);
        return route.fulfill({ status: 302, headers: { location: back.href } });
      });
      await nav(page).getByRole('button', { name: 'Director Login' }).click();
      const problem = page.getByTestId('sign-in-problem');
      await problem.waitFor();
      expect(await problem.getAttribute('data-kind')).toBe('provider');
      expect(await problem.getByRole('heading').textContent()).toBe('Sign-in failed');
      expect(await problem.locator('p').first().textContent()).toBe(
        'The sign-in provider refused the sign-in: The user refused the request (access_denied)',
      );
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/races'); // where it started
      expect(await navNames(page)).toContain('Director Login');
      await page.unroute(authorize);

      // A wrong nonce: the request's nonce swapped on its way, so the provider's ID token carries another one.
      const sent: string[] = [];
      await page.route(authorize, (route) => {
        const asked = new URL(route.request().url());
        if (asked.searchParams.get('nonce') === 'not-this-sign-in') return route.continue();
        sent.push(asked.searchParams.get('nonce') ?? '');
        asked.searchParams.set('nonce', 'not-this-sign-in');
        return route.fulfill({ status: 302, headers: { location: asked.href } });
      });
      await problem.getByRole('button', { name: 'Try again' }).click();
      await page.getByTestId('demo-login-director1').click();
      await page.locator('[data-testid="sign-in-problem"][data-kind="nonce"]').waitFor();
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^[\w-]{43}$/); // the app sends a nonce of its own
      expect(await problem.locator('p').first().textContent()).toBe(
        'The answer of the sign-in provider was refused: it does not belong to this sign-in (the nonce does not match).',
      );
      expect(await navNames(page)).toContain('Director Login'); // not signed in
      await page.unroute(authorize);

      // Try again: signed in (the provider session may skip its page), back on the page it started from.
      await problem.getByRole('button', { name: 'Try again' }).click();
      const demo = page.getByTestId('demo-login-director1');
      const logout = nav(page).getByRole('button', { name: 'Logout' });
      await demo.or(logout).first().waitFor();
      if (await demo.isVisible()) await demo.click();
      await logout.waitFor();
      expect(new URL(page.url()).pathname).toBe('/races');
      expect(await page.getByTestId('sign-in-problem').count()).toBe(0);

      // Logout sends the ID token hint, the return address and a state; the way back carries the state, which
      // the app checks and drops from the address.
      const documents: string[] = [];
      page.on('request', (r) => {
        if (r.isNavigationRequest()) documents.push(r.url());
      });
      await signOut(page, server.url);
      const endSession = new URL(documents.find((u) => new URL(u).pathname === '/oidc/session/end')!);
      expect(endSession.searchParams.get('id_token_hint')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${server.url}/`);
      const state = endSession.searchParams.get('state');
      expect(state).toMatch(/^\w{32}$/);
      expect(documents).toContain(`${server.url}/?state=${state}`);
      await page.waitForURL(`${server.url}/`);
      expect(errors).toEqual([]);
    });
  });
});

describe('Director SignUp in Chromium', () => {
  it('creates an account and lands signed in; the same email again is refused with a message', async () => {
    const email = `new.director.${Date.now()}@example.org`;
    await withPage('signup', async ({ page, errors }) => {
      await page.goto(server.url);
      await page.getByRole('button', { name: 'Director SignUp' }).click();
      await page.getByRole('heading', { name: 'Create your director account' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Create your director account',
      );

      // Validation messages first.
      await page.getByLabel('Name').fill('Nia New');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('The password must be at least 8 characters.').waitFor();

      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
      expect(page.url()).toBe(`${server.url}/`);
      expect(await navNames(page)).toEqual(['Home', 'Races', 'My Races', 'Logout']);
      await page.getByText('Nia New').first().waitFor();
      const { response } = await apiCall(page, '/api/director/races', () =>
        nav(page).getByRole('link', { name: 'My Races' }).click(),
      );
      expect(response.status()).toBe(200);
      await signOut(page, server.url);

      await page.getByRole('button', { name: 'Director SignUp' }).click();
      await page.getByRole('heading', { name: 'Create your director account' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      await page.getByLabel('Name').fill('Someone Else');
      await page.getByLabel('Email').fill(email.toUpperCase());
      await page.getByLabel('Password').fill('another long password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('An account with this email already exists.').waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      expect(errors).toEqual([]);
    });
  });

  it('the sign-in and sign-up pages work at 375 px without serious accessibility problems; a wrong password gets a message', async () => {
    const w = await newPage(browser, { width: 375, height: 740 });
    try {
      await w.page.goto(server.url);
      await w.page.getByRole('button', { name: 'Director Login' }).click();
      await w.page.getByRole('heading', { name: 'Sign in to RaceBeacon' }).waitFor();
      expect(new URL(w.page.url()).pathname).toMatch(/^\/oidc\/interaction\//);
      const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await seriousA11yViolations(w.page)).toEqual([]);
      await w.page.getByRole('link', { name: 'Create an account' }).click();
      await w.page.getByLabel('Name').waitFor();
      expect(
        await w.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousA11yViolations(w.page)).toEqual([]);
      await w.page.getByRole('link', { name: 'Sign in' }).click();
      await w.page.getByLabel('Email').fill('director1@racebeacon.example');
      await w.page.getByLabel('Password').fill('wrong');
      await w.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await w.page.getByText('Wrong email or password.').waitFor();
      await w.page.getByLabel('Password').fill('demo');
      await w.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await w.page.getByRole('button', { name: 'Logout' }).waitFor();
      expect(w.errors).toEqual([]);
    } finally {
      await w.context.close();
    }
  });
});
