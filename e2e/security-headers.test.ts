import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

/**
 * The Content-Security-Policy (issue 14) in a real Chromium: the live map with Leaflet and the demo race, the
 * embedded sign-in page, the API docs and the course map page run without a single CSP violation.
 */

let server: RunningServer;
let browser: Browser;
let raceId: number;
beforeAll(async () => {
  server = await startServer({ DEMO: 'on' });
  browser = await launchBrowser();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const races = (await (await fetch(`${server.url}/api/open/races`)).json()) as { RaceId: number }[];
    if (races.length) {
      raceId = races[0].RaceId;
      break;
    }
    if (Date.now() > deadline) throw new Error('no demo race');
    await new Promise((r) => setTimeout(r, 250));
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Collects securitypolicyviolation events of every document the page loads. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

it('the live race page (Leaflet map, tiles, leaderboard) runs under the CSP', async () => {
  const { page, errors } = await newPage(browser);
  const violations = await watchViolations(page);
  const res = await page.goto(`${server.url}/race/${raceId}`);
  expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await page.locator('.leaflet-container').waitFor();
  await page.locator('.leaflet-marker-icon').first().waitFor();
  // Leaflet placed its panes and markers (inline positioning through element.style).
  const transform = await page
    .locator('.leaflet-marker-icon')
    .first()
    .evaluate((el) => (el as HTMLElement).style.transform);
  expect(transform).toMatch(/translate3d/);
  expect(await violations()).toEqual([]);
  expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
});

it('the embedded sign-in page keeps its styles and its forms work under the CSP', async () => {
  const { page, errors } = await newPage(browser);
  const violations = await watchViolations(page);
  await page.goto(server.url);
  await page.getByRole('button', { name: 'Director Login' }).click();
  await page.getByTestId('demo-login-director1').waitFor();
  // The inline stylesheet applied (allowed by its hash): the header is the brand's dark blue.
  const bg = await page.locator('header').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(bg).toBe('rgb(11, 58, 91)');
  expect(await violations()).toEqual([]);
  await page.getByTestId('demo-login-director1').click();
  await page.getByRole('button', { name: 'Logout' }).waitFor();
  expect(await violations()).toEqual([]);
  // Sign-out: the provider's auto-submitted form (its script allowed by hash) brings us back signed out.
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith('/oidc'), { waitUntil: 'commit' }),
    page.getByRole('button', { name: 'Logout' }).click(),
  ]);
  await page.getByRole('button', { name: 'Director Login' }).waitFor();
  expect(await violations()).toEqual([]);
  expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
});

it('the course map page and the API docs run under the CSP', async () => {
  const { page } = await newPage(browser);
  const violations = await watchViolations(page);
  const course = (await (await fetch(`${server.url}/api/open/course/${raceId}`)).json()) as {
    MapUrl: string;
  };
  await page.goto(course.MapUrl);
  const bg = await page.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(bg).toBe('rgb(246, 247, 249)');
  expect(await violations()).toEqual([]);
  await page.goto(`${server.url}/api/docs`);
  await page.locator('.swagger-ui .info').waitFor();
  expect(await violations()).toEqual([]);
});
