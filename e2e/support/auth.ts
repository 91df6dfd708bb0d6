import type { Page } from 'playwright-core';

export type DemoAccount = 'admin' | 'director1' | 'director2';

export const DEMO_NAMES: Record<DemoAccount, string> = {
  admin: 'Avery Admin',
  director1: 'Dana Director',
  director2: 'Drew Director',
};

/**
 * Signs in through the real flow: the app's "Director Login" → the embedded provider's sign-in page → the
 * one-click demo account → back in the app, signed in (the nav shows Logout). Starts at the app's home page
 * unless the page is already showing the app; sign-in returns to the page it started from.
 */
export async function signIn(page: Page, baseUrl: string, who: DemoAccount): Promise<void> {
  const origin = new URL(baseUrl).origin;
  if (!page.url().startsWith(origin)) await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Director Login' }).click();
  // The provider's page, then back in the app: the Logout button only exists there, once signed in (the app
  // renders after the callback has been processed and the URL restored).
  await page.getByTestId(`demo-login-${who}`).click();
  await page.getByRole('button', { name: 'Logout' }).waitFor();
  const url = new URL(page.url());
  if (url.origin !== origin || url.pathname.startsWith('/auth/'))
    throw new Error(`signIn ended on ${page.url()}`);
}

/** Signs out through the app's Logout button and waits until the app shows the signed-out nav on /. */
export async function signOut(page: Page, baseUrl: string): Promise<void> {
  const origin = new URL(baseUrl).origin;
  // Logout leaves the app for the provider's end-session page and comes back to /. The app may show the
  // signed-out nav for a moment before it leaves, so wait for the round trip, not just for the button.
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith('/oidc'), { waitUntil: 'commit' }),
    page.getByRole('button', { name: 'Logout' }).click(),
  ]);
  await page.waitForURL((u) => u.origin === origin && u.pathname === '/');
  await page.getByRole('button', { name: 'Director Login' }).waitFor();
  const url = new URL(page.url());
  if (url.origin !== origin || url.pathname !== '/') throw new Error(`signOut ended on ${page.url()}`);
}
