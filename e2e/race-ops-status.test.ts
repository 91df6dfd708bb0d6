import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { appErrors, captureScreen } from './support/web';
import { races, users } from '../apps/server/src/db/schema';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';

/**
 * Race operations in a real Chromium: the race's director marks a runner DNF with a reason from the runner's row on
 * the race page, and a spectator's public leaderboard (another browser context, already open) shows DNF without a
 * reload; the checkpoints with their cutoffs are listed, the director sets one, and a runner's splits are one click
 * away on the leaderboard.
 */

const MIN = 60_000;
const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** Screenshots at 1280 and 375 px with the accessibility scan (axe evaluated first: the app's CSP forbids its tag). */
async function capture(page: Page, name: string) {
  await page.evaluate(axeSource);
  return captureScreen(page, name);
}
let server: RunningServer;
let browser: Browser;
let race: SeededRace;

beforeAll(async () => {
  server = await startServer();
  const now = Date.now();
  race = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: now - 40 * MIN });
  const [owner] = await server.app.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'director1@racebeacon.example'));
  await server.app.db.update(races).set({ directorId: owner.id }).where(eq(races.id, race.raceId));
  // Each runner on the course: runner 1 past Aid 1 (5 km), runners 2 and 3 before it.
  const ping = async (k: number, t: number, d: number) => {
    const res = await fetch(osmandUrl(server.url, race.runners[k], { t, ...pointAlong(d) }));
    if (res.status !== 200) throw new Error(`ping refused: ${res.status}`);
  };
  for (let m = 28; m >= 1; m -= 3) {
    await ping(0, now - m * MIN, 6000 - m * 150);
    await ping(1, now - m * MIN, 4000 - m * 120);
    await ping(2, now - m * MIN, 3500 - m * 100);
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('a DNF set from the director’s race page shows on the public leaderboard without a reload', async () => {
  // The spectator: the public race page, leaderboard live.
  const spectator = await newPage(browser);
  await spectator.page.goto(`${server.url}/race/${race.raceId}`);
  const row = (runnerId: number) => spectator.page.locator(`tr.live-row[data-runner-id="${runnerId}"]`);
  const target = race.runners[1];
  await row(target.runnerId).waitFor();
  expect(await row(target.runnerId).getAttribute('data-status')).toBe('racing');
  // The last checkpoint passed and its splits, one click away.
  const leader = row(race.runners[0].runnerId);
  await expect(leader.getByTestId('last-checkpoint').textContent()).resolves.toMatch(/^Aid 1 · /);
  await leader.getByRole('button', { name: 'Splits' }).click();
  const splits = leader.getByTestId('runner-splits');
  await splits.waitFor();
  await expect(splits.locator('tbody tr').count()).resolves.toBe(2);
  await expect(splits.locator('tbody tr').nth(1).locator('th').textContent()).resolves.toBe('Aid 1');

  // The director, in another browser context: the race page, the runner's row, Status → DNF with a reason.
  const director = await newPage(browser);
  await signIn(director.page, server.url, 'director1');
  await director.page.goto(`${server.url}/race/${race.raceId}`);
  await director.page.getByRole('button', { name: `Status of Runner2 Test2` }).click();
  await director.page.getByLabel('Status', { exact: true }).selectOption('DNF');
  await director.page.getByLabel('Reason').fill('Twisted ankle at km 4');
  await director.page.getByRole('button', { name: 'Set DNF' }).click();
  await director.page.getByTestId('runner-status').filter({ hasText: 'DNF' }).waitFor();

  // The spectator's leaderboard follows over the live stream: no reload.
  await spectator.page.waitForSelector(
    `tr.live-row[data-runner-id="${target.runnerId}"][data-status="dnf"]`,
    {
      timeout: 10_000,
    },
  );
  await expect(row(target.runnerId).locator('.live-status').textContent()).resolves.toBe('DNF');
  await expect(row(target.runnerId).locator('.live-row__rank').textContent()).resolves.toBe('–');
  // Ranked after the runners still on the course.
  const order = await spectator.page
    .locator('tr.live-row')
    .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-runner-id'))));
  expect(order.at(-1)).toBe(target.runnerId);

  // Checkpoints with cutoffs: the director sets one on Aid 1.
  const checkpoints = director.page.getByTestId('checkpoints-section');
  await expect(checkpoints.getByTestId('checkpoint-row').count()).resolves.toBe(3);
  const aid = checkpoints.getByTestId('checkpoint-row').nth(1);
  await aid.getByRole('button', { name: 'Set cutoff' }).click();
  await aid.getByLabel('Cutoff at Aid 1').fill('2030-06-01T14:30');
  await aid.getByRole('button', { name: 'Save' }).click();
  await aid.getByRole('button', { name: 'Change' }).waitFor();
  const api = await (await fetch(`${server.url}/api/open/races/${race.raceId}/checkpoints`)).json();
  expect(api[1].CutoffTime).toBe(new Date('2030-06-01T14:30').toISOString());

  expect(await capture(spectator.page, 'race-ops-leaderboard-dnf')).toEqual([]);
  expect(await capture(director.page, 'race-ops-director')).toEqual([]);
  expect(appErrors(spectator.errors)).toEqual([]);
  expect(appErrors(director.errors)).toEqual([]);
});
