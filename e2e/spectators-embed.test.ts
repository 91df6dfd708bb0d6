import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { users } from '../apps/server/src/db/schema';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { signIn } from './support/auth';
import { launchBrowser, newPage, screenshot } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { appErrors, seedRace } from './support/web';

/**
 * Issue 15 in a real Chromium: the embed page inside an <iframe> of a page from ANOTHER origin (a second local
 * HTTP server) renders the live leaderboard and map, while a normal page refuses to be framed; the race page shows
 * the snippet to copy; the text view; a director's race page without a course logs no console error at all; Race
 * Requests shows a long description in full on demand.
 */

let server: RunningServer;
let host: http.Server;
let hostUrl: string;
let browser: Browser;
let race: SeededRace;
const MIN = 60_000;
const LONG_DESCRIPTION =
  'A hundred kilometres through three valleys. ' +
  'Mandatory kit: jacket, headlamp, two litres of water, survival blanket and a phone with the race number. '.repeat(
    6,
  ) +
  'THE END OF THE DESCRIPTION.';

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const now = Date.now();
  race = await seedLiveRace(server.app.db, {
    runners: 6,
    clockStartMs: now - 60 * MIN,
    expectedIntervalS: 600,
  });
  for (const [k, r] of race.runners.entries()) {
    await postFixes(server.app, race.raceId, r, [{ t: now - 2 * MIN, ...pointAlong(4000 - k * 300) }]);
  }
  // The race's own website: another origin (127.0.0.1 and another port, the app being on localhost).
  host = http.createServer((req, res) => {
    const embed = `${server.url}/embed/race/${race.raceId}?view=leaderboard`;
    const normal = `${server.url}/race/${race.raceId}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      req.url === '/normal'
        ? `<!doctype html><title>club</title><h1>Club site</h1><iframe id="normal" src="${normal}" width="800" height="500"></iframe>`
        : `<!doctype html><title>club</title><h1>Club site</h1><iframe id="embed" src="${embed}" width="${req.url === '/narrow' ? 320 : 1000}" height="700" style="border:0"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => host?.close(r));
  await server?.close();
});

describe('embed', () => {
  it('renders the live leaderboard inside an iframe of another origin, with the link to the full race page', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${hostUrl}/`);
    const frame = page.frameLocator('#embed');
    await frame.getByRole('heading', { name: 'Live Test Race' }).waitFor();
    await frame.locator('.live-board tbody tr').first().waitFor();
    expect(await frame.locator('.live-board tbody tr').count()).toBe(6);
    const link = frame.getByRole('link', { name: 'Open the full race page' });
    expect(await link.getAttribute('href')).toBe(`${server.url}/race/${race.raceId}`);
    expect(await link.getAttribute('target')).toBe('_blank');
    // No site navigation in the embed.
    expect(await frame.locator('nav[aria-label="Main"]').count()).toBe(0);
    await screenshot(page, 'embed-leaderboard-in-iframe');
    expect(appErrors(errors)).toEqual([]);
  });

  it('a framed embed that navigates to another page of the app shows only a link to open it in a new tab', async () => {
    const { page } = await newPage(browser);
    await page.goto(`${hostUrl}/`);
    const frame = page.frameLocator('#embed');
    await frame.locator('.live-board tbody tr').first().waitFor();
    const inner = page.frames().find((f) => f.url().includes('/embed/'))!;
    // A client-side navigation inside the frame (as a link in the leaderboard would do).
    await inner.evaluate((path) => {
      history.pushState({}, '', path);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/race/${race.raceId}`);
    await frame.getByText('This page cannot be shown inside another website.').waitFor();
    expect(await frame.getByRole('link', { name: 'Open it in a new tab' }).getAttribute('target')).toBe(
      '_blank',
    );
    expect(await frame.locator('nav[aria-label="Main"]').count()).toBe(0);
  });

  it('shows the map view and a runner view', async () => {
    const { page, errors } = await newPage(browser, { width: 1200 });
    await page.goto(`${server.url}/embed/race/${race.raceId}?view=map`);
    await page.locator('.leaflet-container').waitFor();
    await page.locator('.leaflet-marker-icon').first().waitFor();
    await page.goto(`${server.url}/embed/race/${race.raceId}?view=runner&bib=${race.runners[0].bib}`);
    const card = page.getByRole('region', { name: 'Runner', exact: true });
    await card.waitFor();
    await expect(card.locator('h2').textContent()).resolves.toContain(`#${race.runners[0].bib}`);
    await expect(card.textContent()).resolves.toContain('4.00 km');
    expect(appErrors(errors)).toEqual([]);
  });

  for (const width of [320, 1200]) {
    it(`fits ${width} px without horizontal scrolling`, async () => {
      const { page } = await newPage(browser, { width, height: 800 });
      for (const view of ['map', 'leaderboard', `runner&bib=${race.runners[1].bib}`]) {
        await page.goto(`${server.url}/embed/race/${race.raceId}?view=${view}`);
        await page.getByRole('link', { name: 'Open the full race page' }).waitFor();
        await page.waitForTimeout(300);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${view} at ${width}`).toBeLessThanOrEqual(0);
      }
      await screenshot(page, `embed-runner-${width}`);
    });
  }

  it('a normal page refuses to be framed by another site', async () => {
    const { page } = await newPage(browser);
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors/.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${hostUrl}/normal`);
    // Chromium logs the refusal when it blocks the frame: wait for it (fails on timeout if it never comes).
    await expect.poll(() => refused.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // Chromium replaces a refused frame with its error page: none of the app is there.
    expect(await frame!.locator('#root').count()).toBe(0);
    expect(refused.join('\n')).toMatch(/frame-ancestors 'none'/);
  });

  it('the public race page shows the snippet to copy and links the text view', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${server.url}/race/${race.raceId}`);
    await page.getByText('Share: put this race on your website').click();
    const code = await page.getByTestId('embed-snippet').inputValue();
    expect(code).toBe(
      `<iframe src="${server.url}/embed/race/${race.raceId}?view=map" title="Live Test Race – live map" ` +
        `width="100%" height="600" style="border:0;max-width:1200px" loading="lazy"></iframe>`,
    );
    await page.getByLabel('Show').selectOption('leaderboard');
    expect(await page.getByTestId('embed-snippet').inputValue()).toContain('?view=leaderboard');
    await page.getByRole('link', { name: 'Text-only view' }).click();
    await page.getByRole('heading', { name: 'Live Test Race' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(6);
    await page.getByLabel('Find a runner by bib or name').fill(race.runners[2].bib);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((u) => u.searchParams.get('q') === race.runners[2].bib);
    expect(await page.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
    expect(appErrors(errors)).toEqual([]);
  });
});

describe('seen by a new user', () => {
  it('the director’s race page without a course logs no console error (no 404 asked for)', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, server.url, 'director1');
    const [account] = await server.app.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, 'director1@racebeacon.example'));
    const approved = await seedRace(server.app, { name: 'Courseless Trail', directorId: account.id });
    const pending = await seedRace(server.app, {
      name: 'Courseless Pending',
      directorId: account.id,
      approved: false,
    });
    for (const url of [`/race/${approved}`, `/race/unapproved/${pending}`]) {
      await page.goto(`${server.url}${url}`);
      await page.getByText('No course has been uploaded yet.').waitFor();
      await page.waitForTimeout(500);
    }
    // Every console error, the browser's "Failed to load resource" included.
    expect(errors).toEqual([]);
    // The director's page of a public race shows the snippet too.
    await page.goto(`${server.url}/race/${approved}`);
    await page.getByText('Share: put this race on your website').waitFor();
  });

  it('Race Requests shows the whole description on demand', async () => {
    const { page, errors } = await newPage(browser, { width: 375, height: 800 });
    await seedRace(server.app, { name: 'Three Valleys 100', approved: false, description: LONG_DESCRIPTION });
    await signIn(page, server.url, 'admin');
    await page.goto(`${server.url}/race-requests`);
    const card = page.getByTestId('request-card').filter({ hasText: 'Three Valleys 100' });
    const desc = card.getByTestId('request-description');
    await desc.waitFor();
    const clampedHeight = await desc.evaluate((el) => el.clientHeight);
    const button = card.getByRole('button', { name: 'Read the full description' });
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await button.click();
    const less = card.getByRole('button', { name: 'Show less' });
    expect(await less.getAttribute('aria-expanded')).toBe('true');
    const full = await desc.evaluate((el) => ({ h: el.clientHeight, sh: el.scrollHeight }));
    expect(full.h).toBeGreaterThan(clampedHeight * 3);
    expect(full.sh).toBeLessThanOrEqual(full.h + 1);
    await expect(desc.textContent()).resolves.toContain('THE END OF THE DESCRIPTION.');
    await screenshot(page, 'race-requests-description-375');
    expect(appErrors(errors)).toEqual([]);
  });
});
