import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';

/**
 * Token renewal in a real Chromium against the embedded provider: an expired access token is renewed with the
 * refresh token; without a refresh token through the hidden frame (/auth/silent-renew); with neither a refresh
 * token nor a provider session, the user is sent to the sign-in page.
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

/** Ages the cached access token (and optionally drops the refresh token) in session storage. */
async function expireCachedToken(page: Page, dropRefreshToken: boolean) {
  await page.evaluate((drop) => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
    const user = JSON.parse(sessionStorage.getItem(key)!) as Record<string, unknown>;
    user.expires_at = Math.floor(Date.now() / 1000) - 5;
    if (drop) delete user.refresh_token;
    sessionStorage.setItem(key, JSON.stringify(user));
  }, dropRefreshToken);
}

const cachedAccessToken = (page: Page) =>
  page.evaluate(() => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'));
    return key ? (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token : null;
  });

/** Records the provider and API traffic of one page action. */
async function traffic(page: Page, action: () => Promise<unknown>) {
  const seen: string[] = [];
  const onRequest = (r: import('playwright-core').Request) => {
    const url = new URL(r.url());
    if (url.pathname === '/oidc/token') {
      seen.push(`token:${new URLSearchParams(r.postData() ?? '').get('grant_type')}`);
    } else if (url.pathname === '/oidc/auth') {
      seen.push(`authorize:${url.searchParams.get('prompt') ?? 'login'}`);
    } else if (url.pathname === '/auth/silent-renew') {
      seen.push('silent-renew');
    }
  };
  page.on('request', onRequest);
  const [api] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/director/races'),
    action(),
  ]);
  page.off('request', onRequest);
  return { seen, api };
}

async function withPage(name: string, fn: (w: WatchedPage) => Promise<void>) {
  const w = await newPage(browser);
  try {
    await fn(w);
  } catch (err) {
    await screenshot(w.page, `auth-renewal-${name}-failure`).catch(() => undefined);
    throw err;
  } finally {
    await w.context.close();
  }
}

it('renews an expired access token with the refresh token, then through the hidden frame without one', async () => {
  await withPage('silent', async ({ page, errors }) => {
    await signIn(page, server.url, 'director1');
    // Let the page's own first call finish, so that only the calls after each reload are counted.
    await traffic(page, () => page.getByRole('link', { name: 'My Races' }).click());
    const first = await cachedAccessToken(page);

    // 1. Refresh token.
    await expireCachedToken(page, false);
    const viaRefresh = await traffic(page, () => page.reload());
    expect(viaRefresh.seen).toEqual(['token:refresh_token']);
    expect(viaRefresh.api.status()).toBe(200);
    const second = await cachedAccessToken(page);
    expect(second).not.toBe(first);
    expect(viaRefresh.api.request().headers().authorization).toBe(`Bearer ${second}`);

    // 2. No refresh token: the hidden frame on the provider session (prompt=none), then the code exchange.
    await expireCachedToken(page, true);
    const viaFrame = await traffic(page, () => page.reload());
    expect(viaFrame.seen).toEqual(['authorize:none', 'silent-renew', 'token:authorization_code']);
    expect(viaFrame.api.status()).toBe(200);
    const third = await cachedAccessToken(page);
    expect(third).not.toBe(second);
    expect(viaFrame.api.request().headers().authorization).toBe(`Bearer ${third}`);
    expect(new URL(page.url()).pathname).toBe('/my-races');
    expect(errors).toEqual([]);
  });
});

it('sends the user to the sign-in page when neither a refresh token nor a provider session is left', async () => {
  await withPage('interactive', async ({ page, context, errors, console: lines }) => {
    await signIn(page, server.url, 'director2');
    await traffic(page, () => page.getByRole('link', { name: 'My Races' }).click());
    await expireCachedToken(page, true);
    await context.clearCookies(); // the provider session is gone too
    await page.reload();
    await page.getByTestId('demo-login-director2').click();
    // Back where the user was, signed in again.
    await page.getByRole('button', { name: 'Logout' }).waitFor();
    expect(page.url()).toBe(`${server.url}/my-races`);
    expect(lines.some((l) => l.includes('interaction_required'))).toBe(true);
    expect(errors).toEqual([]);
  });
});
