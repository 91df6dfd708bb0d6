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
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await page.getByTestId(`demo-login-${who}`).click();
  await page.waitForURL(
    (url) => url.origin === origin && !url.pathname.startsWith('/oidc') && !url.pathname.startsWith('/auth/'),
  );
  await page.getByRole('button', { name: 'Logout' }).waitFor();
}

/** Signs out through the app's Logout button and waits until the app shows the signed-out nav on /. */
export async function signOut(page: Page, baseUrl: string): Promise<void> {
  const origin = new URL(baseUrl).origin;
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.waitForURL((url) => url.origin === origin && url.pathname === '/');
  await page.getByRole('button', { name: 'Director Login' }).waitFor();
}
