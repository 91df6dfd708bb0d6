import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { appErrors } from './support/web';
import { positions, races, users } from '../apps/server/src/db/schema';
import {
  pointAlong,
  seedLiveRace,
  type SeededRace,
  type SeededRunner,
} from '../apps/server/test/support/live-seed';

/**
 * Privacy of runners in a real Chromium (issue 15): the race's director hides a runner's live position from the
 * runner's row, then sets a 10-minute public delay in the race editor. A visitor's race page keeps the hidden runner
 * on the leaderboard without a dot on the map while the director's HQ map and own race page (its stream opened with
 * a stream ticket) show every runner; with the delay, a fix a minute old is not on the visitor's page while the
 * director's race page and HQ have it. A stream refused once (an expired ticket) is reopened with a fresh ticket.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
let now: number;

/**
 * A fix the tracker sent at time t (stored as ingestion does, received 5 s later): the public delay counts from when
 * a fix arrived, as replay does, so the history is stored with its real arrival times.
 */
async function ping(runner: SeededRunner, t: number, distanceM: number) {
  await server.app.db.insert(positions).values({
    deviceId: runner.deviceId,
    raceId: race.raceId,
    runnerId: runner.runnerId,
    fixTime: new Date(t),
    receivedAt: new Date(t + 5000),
    ...pointAlong(distanceM),
    batteryPercent: 80,
    source: 'osmand',
  });
}

beforeAll(async () => {
  // No alert sweep: a runner with an alert is drawn as the alert on the HQ map, not as a runner dot.
  server = await startServer({ ALERT_SWEEP_SECONDS: '0' });
  now = Date.now();
  race = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: now - 45 * MIN });
  const [owner] = await server.app.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'director1@racebeacon.example'));
  await server.app.db.update(races).set({ directorId: owner.id }).where(eq(races.id, race.raceId));
  const [a, b, c] = race.runners;
  // Runner 1: 2.4 km half an hour ago, 6.8 km a minute ago (the fix the delay must hold back).
  await ping(a, now - 40 * MIN, 1000);
  await ping(a, now - 30 * MIN, 2400);
  await ping(a, now - 1 * MIN, 6800);
  await ping(b, now - 30 * MIN, 2000);
  await ping(b, now - 2 * MIN, 5000);
  await ping(c, now - 30 * MIN, 1800);
  await ping(c, now - 3 * MIN, 4500);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pin = (page: Page, runnerId: number) => page.locator(`.live-runner__pin[data-runner-id="${runnerId}"]`);
const liveRow = (page: Page, runnerId: number) => page.locator(`tr.live-row[data-runner-id="${runnerId}"]`);
const runnerRow = (page: Page, name: string) => page.getByTestId('runner-row').filter({ hasText: name });

/** A visitor (not signed in) on the race page, once the map shows its runners. */
async function visitor(): Promise<WatchedPage> {
  const w = await newPage(browser);
  await w.page.goto(`${server.url}/race/${race.raceId}`);
  await liveRow(w.page, race.runners[2].runnerId).waitFor();
  return w;
}

it('a hidden runner has no public dot but stays on the leaderboard; the director’s HQ map shows it', async () => {
  const [a, b, c] = race.runners;
  const director = await newPage(browser);
  const { page } = director;
  await signIn(page, `${server.url}/race/${race.raceId}`, 'director1');
  await page.goto(`${server.url}/race/${race.raceId}`);

  // The director hides runner 3's live position from the runner's row.
  await runnerRow(page, 'Runner3 Test3').getByRole('button', { name: 'Edit' }).click();
  const form = page.getByRole('form', { name: 'Edit Runner3 Test3' });
  await form.getByLabel('Hide live position').check();
  await screenshot(page, 'privacy-runner-form');
  await form.getByRole('button', { name: 'Save' }).click();
  await runnerRow(page, 'Runner3 Test3').getByTestId('runner-position-hidden').waitFor();

  // A visitor: runners 1 and 2 on the map, runner 3 only on the leaderboard.
  const v = await visitor();
  await pin(v.page, a.runnerId).waitFor();
  await pin(v.page, b.runnerId).waitFor();
  await expect.poll(() => pin(v.page, c.runnerId).count()).toBe(0);
  await expect(liveRow(v.page, c.runnerId).textContent()).resolves.toContain('Runner3');
  await screenshot(v.page, 'privacy-hidden-runner-visitor');

  // The director's own race page (the stream opened with a stream ticket) draws runner 3's dot too.
  const tickets: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/director/races/${race.raceId}/live-ticket`)) tickets.push(r.method());
  });
  await page.goto(`${server.url}/race/${race.raceId}`);
  await pin(page, c.runnerId).waitFor({ timeout: 20_000 });
  await pin(page, a.runnerId).waitFor();
  expect(tickets).toEqual(['POST']);
  await screenshot(page, 'privacy-hidden-runner-director-page');

  // The director's HQ map draws all three runners.
  await page.goto(`${server.url}/race/${race.raceId}/hq`);
  await page.getByRole('heading', { name: 'Race HQ', level: 1 }).waitFor();
  await expect.poll(() => page.locator('path.hq-runner').count(), { timeout: 20_000 }).toBe(3);
  await screenshot(page, 'privacy-hidden-runner-hq');

  expect(appErrors(director.errors)).toEqual([]);
  expect(appErrors(v.errors)).toEqual([]);
  await v.page.close();
  await page.close();
});

it('the delay holds: with a 10-minute delay a fix 1 minute old is not public; the director’s HQ has it', async () => {
  const [a] = race.runners;
  const director = await newPage(browser);
  const { page } = director;
  await signIn(page, `${server.url}/race/${race.raceId}`, 'director1');
  await page.goto(`${server.url}/race/${race.raceId}`);

  // Before: the public sees runner 1 live at 6.8 km.
  const before = await visitor();
  await expect.poll(() => liveRow(before.page, a.runnerId).textContent()).toContain('6.8');
  await before.page.close();

  // The director sets a 10-minute public delay in the race editor.
  await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
  const form = page.getByRole('form', { name: 'Edit race' });
  await form.getByLabel('Public delay (minutes)').fill('10');
  await screenshot(page, 'privacy-race-editor');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.waitFor({ state: 'detached' });

  // A visitor sees the race as it was 10 minutes ago: runner 1 at 2.4 km, the fix of a minute ago held back.
  const v = await visitor();
  await expect.poll(() => liveRow(v.page, a.runnerId).textContent(), { timeout: 20_000 }).toContain('2.4');
  await expect(liveRow(v.page, a.runnerId).textContent()).resolves.not.toContain('6.8');
  await pin(v.page, a.runnerId).waitFor();
  const leaderboard = await v.page.evaluate(
    async (url) => (await fetch(url)).json(),
    `/api/open/races/${race.raceId}/leaderboard`,
  );
  const row = (leaderboard as { RunnerId: number; DistanceKm: number; LastPingTime: string }[]).find(
    (r) => r.RunnerId === a.runnerId,
  )!;
  expect(row.DistanceKm).toBeCloseTo(2.4, 1);
  expect(Date.parse(row.LastPingTime)).toBeLessThanOrEqual(now - 10 * MIN);
  await screenshot(v.page, 'privacy-delay-visitor');

  // The director's race page, opened now, is live: runner 1 at 6.8 km. Its first stream is refused as an expired
  // ticket would be (401): the page asks for a fresh ticket and opens the stream again.
  let refused = 0;
  await page.route(`**/api/open/races/${race.raceId}/live?*`, async (route) => {
    if (refused++ === 0 && route.request().url().includes('ticket='))
      return route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'ticket_expired', message: 'The stream ticket has expired.' }),
      });
    return route.continue();
  });
  const ticketCalls: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/director/races/${race.raceId}/live-ticket`)) ticketCalls.push(r.method());
  });
  await page.goto(`${server.url}/race/${race.raceId}`);
  await expect.poll(() => liveRow(page, a.runnerId).textContent(), { timeout: 20_000 }).toContain('6.8');
  expect(ticketCalls).toEqual(['POST', 'POST']);
  expect(refused).toBe(2);
  await page.unroute(`**/api/open/races/${race.raceId}/live?*`);
  await screenshot(page, 'privacy-delay-director-page');

  // The privacy policy says it, from the race's own settings.
  await v.page.goto(`${server.url}/privacy-policy`);
  const policy = v.page.getByTestId('privacy-races').locator('tr').filter({ hasText: 'Live Test Race' });
  await policy.waitFor();
  await expect(policy.locator('td').allTextContents()).resolves.toEqual([
    '10 min',
    'public',
    'kept until the race is deleted',
  ]);

  // The director's HQ (signed in) reads the race live: runner 1's newest fix is there.
  await page.goto(`${server.url}/race/${race.raceId}/hq`);
  await page.getByRole('heading', { name: 'Race HQ', level: 1 }).waitFor();
  await expect.poll(() => page.locator('path.hq-runner').count(), { timeout: 20_000 }).toBe(3);
  const live = await page.evaluate(
    async ({ url }) => {
      const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
      const token = (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token;
      return (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).json();
    },
    { url: `/api/open/races/${race.raceId}/positions` },
  );
  const latest = (live as { RunnerId: number; Latest: [number, number, number] | null }[]).find(
    (p) => p.RunnerId === a.runnerId,
  )!.Latest;
  expect(latest?.[0]).toBe(now - 1 * MIN);

  expect(appErrors(director.errors)).toEqual([]);
  expect(appErrors(v.errors)).toEqual([]);
  await v.page.close();
  await page.close();
});
