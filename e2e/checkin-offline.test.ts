import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { CheckinLink, LeaderboardRow } from '@racebeacon/domain';
import { races } from '../apps/server/src/db/schema';
import { users } from '../apps/server/src/db/schema-identity';
import { checkinEntries, checkpoints } from '../apps/server/src/db/schema-race-ops';
import { pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { signIn } from './support/auth';
import { ARTIFACTS, launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { answerDialogs, appErrors, seriousA11yViolations } from './support/web';

/**
 * The director creates a check-in link on the race page; the aid-station volunteer opens it on a phone (375 px) and
 * works in the browser's offline mode: three entries made offline show "waiting to send" and survive a reload
 * without network (service worker + IndexedDB); back online, each is sent and stored exactly once, and the runners
 * (no GPS fix at all) move to the checkpoint on the public leaderboard. Revoking the link closes the page.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
let w: WatchedPage;
let director: WatchedPage;
let linkUrl: string;

/** The signed-in page's access token (oidc-client-ts keeps the user in session storage). */
const accessToken = (page: Page) =>
  page.evaluate(() => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'));
    return key ? (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token : null;
  });

beforeAll(async () => {
  server = await startServer();
  race = await seedLiveRace(server.app.db, { runners: 4, clockStartMs: Date.now() - 60 * MIN });
  // The race belongs to the demo account "Dana Director" (director1).
  const [account] = await server.app.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'director1@racebeacon.example'));
  await server.app.db.update(races).set({ directorId: account.id }).where(eq(races.id, race.raceId));
  await server.app.db
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
  browser = await launchBrowser();
  director = await newPage(browser);
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

it('the director creates a check-in link on the race page; its address is shown once', async () => {
  const { page } = director;
  await signIn(page, server.url, 'director1');
  await page.goto(`${server.url}/race/${race.raceId}`);
  const section = page.locator('section', {
    has: page.getByRole('heading', { name: 'Aid-station check-in links' }),
  });
  await section.waitFor();
  await section.getByLabel('Checkpoint').selectOption({ label: 'Aid 1 (km 5.0)' });
  await section.getByLabel('Label (optional)').fill('Table 1');
  await section.getByRole('button', { name: 'Create link' }).click();
  linkUrl = await section.getByRole('textbox', { name: 'New check-in link address' }).inputValue();
  expect(linkUrl).toMatch(new RegExp(`^${server.url}/checkin/[A-Za-z0-9_-]{32}$`));
  // The list is read again after the link is made: wait for the new row (fails on timeout if it never shows).
  await section.getByText('Aid 1 · Table 1').waitFor();
  await section.screenshot({ path: path.join(ARTIFACTS, 'checkin-director-links-1280.png') });
  await page.setViewportSize({ width: 375, height: 812 });
  const box = await section.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  await section.screenshot({ path: path.join(ARTIFACTS, 'checkin-director-links-375.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('queues three entries offline, keeps them over a reload, and sends each exactly once when back online', async () => {
  const { page, context } = w;
  const dialogs = answerDialogs(page);
  const accepted: string[] = [];
  page.on('response', (res) => {
    if (res.request().method() === 'POST' && res.url().includes('/api/checkin/') && res.status() === 201)
      accepted.push(res.request().postDataJSON().EntryId as string);
  });

  await page.goto(linkUrl);
  await page.getByRole('heading', { name: 'Aid 1' }).waitFor();
  await page.getByText('Live Test Race · km 5.0').waitFor();
  // The service worker has kept the app shell (what a reload without network needs) and says so on the page.
  await page.getByText('Ready offline: this page opens again without network.').waitFor();
  const kept = await page.evaluate(async () => {
    const cache = await caches.open('racebeacon-checkin-v1');
    return (await cache.keys()).map((r) => new URL(r.url).pathname);
  });
  expect(kept).toContain('/checkin/__shell__');
  expect(kept).toContain('/api/config');
  expect(kept.filter((p) => p.startsWith('/assets/')).length).toBeGreaterThanOrEqual(2);
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
  await page.getByText('Runner1 Test1').first().waitFor();
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

  // The director's API counts what the link brought.
  const token = await accessToken(director.page);
  const links = (await (
    await fetch(`${server.url}/api/director/races/${race.raceId}/checkin-links`, {
      headers: { Authorization: `Bearer ${token}` },
    })
  ).json()) as CheckinLink[];
  expect(links.map((l) => [l.CheckpointName, l.Label, l.Entries, l.RevokedAt])).toEqual([
    ['Aid 1', 'Table 1', 3, null],
  ]);
}, 60_000);

it('a revoked link no longer opens the volunteer page', async () => {
  const { page } = director;
  await w.context.setOffline(false);
  page.once('dialog', (d) => void d.accept());
  const section = page.locator('section', {
    has: page.getByRole('heading', { name: 'Aid-station check-in links' }),
  });
  await section.getByRole('button', { name: 'Revoke' }).click();
  await section.getByText(/revoked/).waitFor();
  await w.page.setViewportSize({ width: 375, height: 812 });
  await w.page.reload();
  await w.page.getByRole('heading', { name: 'Check-in link not valid' }).waitFor();
  await screenshot(w.page, 'checkin-revoked-375');
});
