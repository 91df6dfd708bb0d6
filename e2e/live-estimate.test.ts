import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import {
  osmandUrl,
  pointAlong,
  seedLiveRace,
  type SeededRace,
  type SeededRunner,
} from '../apps/server/test/support/live-seed';

/**
 * A silent runner in a real Chromium (issue 16): runner A's tracker stopped reporting 25 minutes ago at 2.7 km, B
 * keeps reporting. The map shows A's last fix and, apart from it, a hollow "est." marker with its range along the
 * course; the leaderboard labels the estimate "estimated" and shows ETA ranges. At 1280 and 375 px.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
let t0: number;

async function ping(runner: SeededRunner, minute: number, distanceM: number) {
  const fix = { t: t0 + Math.round(minute * MIN), ...pointAlong(distanceM), batteryPercent: 80 };
  const res = await fetch(osmandUrl(server.url, runner, fix));
  if (res.status !== 200) throw new Error(`ping refused: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  server = await startServer();
  t0 = Date.now() - 40 * MIN;
  race = await seedLiveRace(server.app.db, { runners: 2, clockStartMs: t0, expectedIntervalS: 150 });
  const [a, b] = race.runners;
  for (let m = 2.5; m <= 15; m += 2.5) await ping(a, m, 180 * m);
  for (let m = 2.5; m <= 39; m += 2.5) await ping(b, m, 150 * m);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it.each([1280, 375])('a silent runner shows a hollow estimated marker, labelled, at %i px', async (width) => {
  const [a, b] = race.runners;
  const { page, errors, context } = await newPage(browser, { width });
  await page.goto(`${server.url}/race/${race.raceId}`);
  const estimate = page.locator(`.live-estimate__pin[data-runner-id="${a.runnerId}"]`);
  await estimate.waitFor();
  await expect(estimate.textContent()).resolves.toBe(`${a.bib} est.`);
  // The real fix stays where it was; the runner still reporting has no estimate.
  await expect(page.locator(`.live-runner__pin[data-runner-id="${a.runnerId}"]`).count()).resolves.toBe(1);
  await expect(page.locator(`.live-estimate__pin[data-runner-id="${b.runnerId}"]`).count()).resolves.toBe(0);
  // Ahead of the last fix (north, up the screen), with a range drawn along the course.
  const fixBox = (await page.locator(`.live-runner__pin[data-runner-id="${a.runnerId}"]`).boundingBox())!;
  const estBox = (await estimate.boundingBox())!;
  expect(estBox.y).toBeLessThan(fixBox.y);
  await expect(page.locator('path.live-estimate-range').count()).resolves.toBe(1);
  // The leaderboard says "estimated", on the silent runner's row only.
  const row = page.locator(`tr.live-row[data-runner-id="${a.runnerId}"] [data-testid="live-estimate"]`);
  await expect(row.textContent()).resolves.toMatch(/^estimated \d+\.\d km/);
  await expect(
    page.locator(`tr.live-row[data-runner-id="${b.runnerId}"] [data-testid="live-estimate"]`).count(),
  ).resolves.toBe(0);
  // Nothing wider than the screen at 375 px.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, `live-estimate-${width}`);
  expect(errors).toEqual([]);
  await context.close();
});

it('the runner page shows the ETA range and the estimate', async () => {
  const [a] = race.runners;
  const { page, errors, context } = await newPage(browser, { width: 1280 });
  await page.goto(`${server.url}/race/${race.raceId}/runner/${a.bib}`);
  const estimate = page.getByTestId('runner-estimate');
  await estimate.waitFor();
  await expect(estimate.textContent()).resolves.toMatch(/^estimated \d+\.\d km/);
  // ETA finish with its range: "06:30 AM (06:26 AM–06:35 AM)" in the page's locale.
  await expect(page.locator('dt', { hasText: 'ETA finish' }).locator('+ dd').textContent()).resolves.toMatch(
    /\(.+–.+\)/,
  );
  await screenshot(page, 'live-estimate-runner-page-1280');
  expect(errors).toEqual([]);
  await context.close();
});
