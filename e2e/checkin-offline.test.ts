import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { LeaderboardRow } from '@racebeacon/domain';
import { hashToken } from '../apps/server/src/checkins/service';
import { checkinEntries, checkinLinks, checkpoints } from '../apps/server/src/db/schema-race-ops';
import { pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { answerDialogs, appErrors, seriousA11yViolations } from './support/web';

/**
 * The aid-station volunteer's page on a phone (375 px) in the browser's offline mode: three entries made offline
 * show "waiting to send" and survive a reload without network (service worker + IndexedDB); back online, each is
 * sent and stored exactly once, and the runners (no GPS fix at all) move to the checkpoint on the public leaderboard.
 */

const MIN = 60_000;
const TOKEN = 'e2eCheckinToken_0123456789abcdef'; // 32 characters of base64url, like a real one
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
let w: WatchedPage;

beforeAll(async () => {
  server = await startServer();
  race = await seedLiveRace(server.app.db, { runners: 4, clockStartMs: Date.now() - 60 * MIN });
  const [aid] = await server.app.db
    .insert(checkpoints)
    .values({
      raceId: race.raceId,
      seq: 1,
      kind: 'waypoint',
      name: 'Aid 1',
      distanceM: 5000,
      ...pointAlong(5000),
    })
    .returning({ id: checkpoints.id });
  // The link as the director's POST creates it: only the token's hash is stored.
  await server.app.db
    .insert(checkinLinks)
    .values({ raceId: race.raceId, checkpointId: aid.id, tokenHash: hashToken(TOKEN), label: 'e2e' });
  browser = await launchBrowser();
  w = await newPage(browser, { width: 375, height: 812 });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const storedEntries = () =>
  server.app.db.select().from(checkinEntries).where(eq(checkinEntries.raceId, race.raceId));

async function noHorizontalOverflow() {
  const { scrollWidth, innerWidth } = await w.page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

it('queues three entries offline, keeps them over a reload, and sends each exactly once when back online', async () => {
  const { page, context } = w;
  const dialogs = answerDialogs(page);
  const accepted: string[] = [];
  page.on('response', (res) => {
    if (res.request().method() === 'POST' && res.url().includes('/api/checkin/') && res.status() === 201)
      accepted.push(res.request().postDataJSON().EntryId as string);
  });

  await page.goto(`${server.url}/checkin/${TOKEN}`);
  await page.getByRole('heading', { name: 'Aid 1' }).waitFor();
  await expect(page.getByText('Live Test Race · km 5.0').isVisible()).resolves.toBe(true);
  // The service worker has kept the app shell (what a reload without network needs).
  await page.waitForFunction(async () => {
    const cache = await caches.open('racebeacon-checkin-v1');
    return !!(await cache.match('/checkin/__shell__')) && (await cache.keys()).length >= 3;
  });
  await screenshot(page, 'checkin-online-375');

  await context.setOffline(true);
  await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor();
  const bib = page.getByLabel('Bib number');
  // Typing a name offers the runner to pick (the page data came with the page).
  await bib.fill('Runner2');
  await page.getByRole('button', { name: '#2 Runner2 Test2' }).click();
  await expect(bib.inputValue()).resolves.toBe('2');
  await page.getByRole('button', { name: 'In', exact: true }).click();
  await bib.fill('1');
  await expect(page.getByText('Runner1 Test1').first().isVisible()).resolves.toBe(true);
  await page.getByRole('button', { name: 'In', exact: true }).click();
  await bib.fill('3');
  await page.getByRole('button', { name: 'DNF', exact: true }).click();
  expect(dialogs.last()).toEqual({
    type: 'confirm',
    message: 'Record bib 3 as DNF (did not finish) at this checkpoint?',
  });
  const waiting = page.locator('.checkin-entry').filter({ hasText: 'waiting to send' });
  await expect.poll(() => waiting.count()).toBe(3);
  expect(await page.locator('.checkin-entry-bib').allTextContents()).toEqual(['#3', '#1', '#2']);
  await noHorizontalOverflow();
  await screenshot(page, 'checkin-offline-375');
  expect(await storedEntries()).toEqual([]);

  // A reload with no network: the shell comes from the service worker, the entries from IndexedDB.
  await page.reload();
  await page.getByRole('heading', { name: 'Aid 1' }).waitFor();
  await expect.poll(() => waiting.count()).toBe(3);
  await screenshot(page, 'checkin-offline-reloaded-375');

  await context.setOffline(false);
  const sent = page.locator('.checkin-entry').filter({ hasText: 'sent' });
  await expect.poll(() => sent.count(), { timeout: 15_000 }).toBe(3);
  await page.getByRole('status').filter({ hasText: 'Online' }).waitFor();

  // Stored exactly once each, with the ids made on the phone; each answered once.
  const rows = await storedEntries();
  expect(rows.map((r) => [r.bibNumber, r.kind]).sort()).toEqual([
    ['1', 'in'],
    ['2', 'in'],
    ['3', 'dnf'],
  ]);
  expect(new Set(rows.map((r) => r.entryId)).size).toBe(3);
  expect([...accepted].sort()).toEqual(rows.map((r) => r.entryId).sort());
  // Nothing is sent again once everything is sent.
  await page.waitForTimeout(2500);
  expect(accepted).toHaveLength(3);
  expect(await storedEntries()).toHaveLength(3);

  // Through the public API: runners 1 and 2 had no GPS fix and are now at the checkpoint, 3 is out (DNF).
  const board = (await (
    await fetch(`${server.url}/api/open/races/${race.raceId}/leaderboard`)
  ).json()) as LeaderboardRow[];
  const byBib = new Map(board.map((r) => [r.BibNumber, r]));
  expect(byBib.get('1')?.DistanceKm).toBeCloseTo(5, 1);
  expect(byBib.get('2')?.DistanceKm).toBeCloseTo(5, 1);
  expect(byBib.get('3')?.Status).toBe('dnf');
  const [dnfRow] = await server.app.db
    .select()
    .from(checkinEntries)
    .where(and(eq(checkinEntries.raceId, race.raceId), eq(checkinEntries.bibNumber, '3')));
  expect(dnfRow.answer).toMatchObject({ Status: 'DNF', CheckpointName: 'Aid 1' });

  await noHorizontalOverflow();
  await screenshot(page, 'checkin-sent-375');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, 'checkin-sent-1280');
  expect(appErrors(w.errors).filter((e) => !e.includes('API Fetch Error'))).toEqual([]);
}, 60_000);
