import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { appErrors, captureScreen } from './support/web';
import { races, users } from '../apps/server/src/db/schema';
import {
  osmandUrl,
  pointAlong,
  seedLiveRace,
  type SeededRace,
  type SeededRunner,
} from '../apps/server/test/support/live-seed';

/**
 * Race HQ in a real Chromium: the race's director opens the HQ from the race page, an SOS sent by a tracker
 * (Traccar Client's alarm=sos on the OsmAnd protocol) appears live with a flashing banner and the open count in the
 * title, the director acknowledges and resolves it with notes (the HQ log shows both), and neither a visitor nor
 * another director gets in (the screen says so, the API refuses).
 */

const MIN = 60_000;
const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * Screenshots and the accessibility scan at 1280 and 375 px. The app's Content-Security-Policy forbids the inline
 * script tag captureScreen would add for axe-core, so axe is evaluated through the DevTools protocol first (not
 * subject to the page's CSP); the app itself runs under its real CSP throughout.
 */
async function captureHq(page: Page, name: string) {
  await page.evaluate(axeSource);
  return captureScreen(page, name);
}
let server: RunningServer;
let browser: Browser;
let race: SeededRace;

async function ping(runner: SeededRunner, t: number, distanceM: number, extra = '') {
  const res = await fetch(
    osmandUrl(server.url, runner, { t, ...pointAlong(distanceM), batteryPercent: 80 }) + extra,
  );
  if (res.status !== 200) throw new Error(`ping refused: ${res.status} ${await res.text()}`);
}

async function accountId(email: string): Promise<string> {
  const [row] = await server.app.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (!row) throw new Error(`no account ${email}`);
  return row.id;
}

/** The signed-in page's access token (oidc-client-ts keeps the user in session storage). */
const accessToken = (page: Page) =>
  page.evaluate(() => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'));
    return key ? (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token : null;
  });

const apiStatus = async (path: string, token: string | null) =>
  (await fetch(`${server.url}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }))
    .status;

beforeAll(async () => {
  server = await startServer();
  const now = Date.now();
  race = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: now - 40 * MIN });
  // The race belongs to the demo account "Dana Director" (director1).
  await server.app.db
    .update(races)
    .set({ directorId: await accountId('director1@racebeacon.example') })
    .where(eq(races.id, race.raceId));
  // Runners 2 and 3 have a recent track (the map draws their last hour); runner 1 has not sent anything yet.
  const [, b, c] = race.runners;
  for (let m = 12; m >= 1; m--) {
    await ping(b, now - m * MIN, 3000 - m * 150);
    await ping(c, now - m * MIN, 2500 - m * 120);
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const alertCard = (page: Page, kind: string) => page.locator(`li.hq-alert[data-kind="${kind}"]`);

it('shows an SOS arriving live; the director acknowledges and resolves it with notes', async () => {
  const watched: WatchedPage = await newPage(browser);
  const { page } = watched;
  await signIn(page, server.url, 'director1');

  // Count the beeps' oscillators (headless Chromium plays audio into nothing).
  await page.addInitScript(() => {
    const w = window as unknown as { oscillators: number };
    w.oscillators = 0;
    const original = AudioContext.prototype.createOscillator;
    AudioContext.prototype.createOscillator = function (this: AudioContext) {
      w.oscillators++;
      return original.call(this);
    };
  });
  const oscillators = () => page.evaluate(() => (window as unknown as { oscillators: number }).oscillators);

  // From the race page to its HQ.
  await page.goto(`${server.url}/race/${race.raceId}`);
  await page.getByRole('link', { name: 'Race HQ' }).click();
  await page.waitForURL(`**/race/${race.raceId}/hq`);
  await page.getByRole('heading', { name: 'Race HQ', level: 1 }).waitFor();
  await page.locator('.hq-connection[data-status="live"]').waitFor();
  await page.getByText('No open alerts. All quiet.').waitFor();
  expect(await page.title()).toMatch(/^Race HQ – Live Test Race/);
  await page.locator('path.hq-course').waitFor({ state: 'attached' });
  await expect(page.locator('path.hq-trail').count()).resolves.toBe(2);

  // Thresholds loose enough that the seeded runners raise nothing of their own during the test.
  await page.locator('summary', { hasText: 'Alert settings' }).click();
  await page.getByLabel('Lost signal after (× expected interval)').fill('20');
  await page.getByLabel('No movement after (minutes)').fill('720');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  await page.locator('summary', { hasText: 'Alert settings' }).click();

  // Sound on (a click: the gesture browsers want before any audio).
  const sound = page.getByRole('button', { name: 'Sound on' });
  await expect(sound.getAttribute('aria-pressed')).resolves.toBe('false');
  await sound.click();
  await expect(page.getByRole('button', { name: 'Sound on' }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );

  // Turning the sound on plays one beep (three tones), so the director knows what an SOS sounds like.
  expect(await oscillators()).toBe(3);

  // The director adds runner 1's phone and emergency contact (the runner edit API) while the HQ is open.
  const [a] = race.runners;
  const auth = { Authorization: `Bearer ${await accessToken(page)}`, 'Content-Type': 'application/json' };
  const listed = (await (
    await fetch(`${server.url}/api/director/runners/${race.raceId}`, { headers: auth })
  ).json()) as { RunnerId: number }[];
  const edited = await fetch(`${server.url}/api/director/runners/${race.raceId}/${a.runnerId}`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({
      ...listed.find((r) => r.RunnerId === a.runnerId),
      Phone: '+49 170 1234567',
      EmergencyContact: 'Maria (sister) 0171 7654321',
    }),
  });
  expect(edited.status).toBe(200);

  // Runner 1's phone sends its position with Traccar Client's SOS alarm.
  const sentAt = Date.now();
  await ping(a, sentAt, 4200, '&alarm=sos');
  const card = alertCard(page, 'sos');
  await card.waitFor({ timeout: 5_000 });
  const arrivedAfterMs = Date.now() - sentAt;
  expect(arrivedAfterMs).toBeLessThan(5_000);
  await expect(card.getAttribute('data-state')).resolves.toBe('open');
  await expect(card.locator('.hq-alert__who').textContent()).resolves.toBe(`#${a.bib} Runner1 Test1`);
  await expect(card.textContent()).resolves.toContain(`Tracker ${a.bib}`);
  // Who to call, as tel: links (read again for the new alert).
  await expect(
    card.getByRole('link', { name: '+49 170 1234567' }).getAttribute('href', { timeout: 5_000 }),
  ).resolves.toBe('tel:+491701234567');
  await expect(card.getByTestId('emergency-contact').textContent()).resolves.toBe(
    'Maria (sister) 0171 7654321',
  );
  await expect(card.getByRole('link', { name: '0171 7654321' }).getAttribute('href')).resolves.toBe(
    'tel:01717654321',
  );
  // The battery of the ping that carried the SOS, from the live data.
  await card.locator('dd', { hasText: '80%' }).waitFor();
  const banner = page.getByRole('alert').filter({ hasText: 'SOS' });
  await banner.waitFor();
  await expect(banner.textContent()).resolves.toContain(`#${a.bib} Runner1 Test1`);
  await page.waitForFunction(() => document.title.startsWith('(1) Race HQ – Live Test Race'));
  // …and it beeped.
  await page.waitForFunction(() => (window as unknown as { oscillators: number }).oscillators === 6);
  // The alerting runner is highlighted on the map; "Show on map" centres the map on it.
  const pin = page.locator('.hq-alert-marker--sos .hq-alert-marker__pin');
  await pin.waitFor();
  await card.getByRole('button', { name: 'Show on map' }).click();
  await page.waitForFunction(() => {
    const map = document.querySelector('[data-testid="hq-map"]')!.getBoundingClientRect();
    const p = document.querySelector('.hq-alert-marker--sos .hq-alert-marker__pin')!.getBoundingClientRect();
    return (
      Math.abs(p.left + p.width / 2 - (map.left + map.width / 2)) < 3 &&
      Math.abs(p.top + p.height / 2 - (map.top + map.height / 2)) < 3
    );
  });

  expect(await captureHq(page, 'race-hq-sos')).toEqual([]);
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // On a phone the alerts come before the map.
  const [listTop, mapTop] = await Promise.all(
    ['.hq-alerts', '.hq-map-card'].map((s) =>
      page.locator(s).evaluate((el) => el.getBoundingClientRect().top),
    ),
  );
  expect(listTop).toBeLessThan(mapTop);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Acknowledge with a note: no longer open (title and banner follow), still listed.
  await card.getByRole('button', { name: 'Acknowledge' }).click();
  await card.getByLabel(/^Note/).fill('Marshal Kim on the way from Aid 1');
  await card.getByRole('button', { name: 'Confirm acknowledge' }).click();
  await page.locator('li.hq-alert[data-kind="sos"][data-state="acknowledged"]').waitFor();
  await expect(card.textContent()).resolves.toContain('Dana Director');
  await expect(card.textContent()).resolves.toContain('Marshal Kim on the way from Aid 1');
  await page.waitForFunction(() => document.title.startsWith('Race HQ – Live Test Race'));
  await expect(page.getByRole('alert').filter({ hasText: 'SOS' }).count()).resolves.toBe(0);

  // A second acknowledge is refused by the server (409), whoever sends it.
  const token = await accessToken(page);
  const alertId = Number(await card.getAttribute('data-alert-id'));
  const again = await fetch(`${server.url}/api/director/alerts/${alertId}/acknowledge`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ Note: 'again' }),
  });
  expect(again.status).toBe(409);

  // Resolve with a note: it moves to the collapsed Resolved section.
  await card.getByRole('button', { name: 'Resolve' }).click();
  await card.getByLabel(/^Note/).fill('Twisted ankle, walked to Aid 1, out of the race');
  await card.getByRole('button', { name: 'Confirm resolve' }).click();
  await page.locator('ul[aria-label="Open and acknowledged alerts"]').waitFor({ state: 'detached' });
  await page.getByText('No open alerts. All quiet.').waitFor();
  const resolved = page.locator('details.hq-resolved');
  await expect(resolved.getAttribute('open')).resolves.toBeNull();
  await expect(resolved.locator('summary').textContent()).resolves.toContain('1');
  await resolved.locator('summary').click();
  await resolved.locator('li.hq-alert[data-state="resolved"]').waitFor();

  // The HQ log: raised, acknowledged (note), resolved (note), newest first.
  const log = page.locator('.hq-log__entry');
  await page.waitForFunction(() => document.querySelectorAll('.hq-log__entry').length >= 3);
  const lines = await log.allTextContents();
  expect(lines[0]).toContain('Resolved · SOS');
  expect(lines[0]).toContain('by Dana Director');
  expect(lines[0]).toContain('Twisted ankle, walked to Aid 1, out of the race');
  expect(lines[1]).toContain('Acknowledged · SOS');
  expect(lines[1]).toContain('Marshal Kim on the way from Aid 1');
  expect(lines[2]).toContain('Raised · SOS');

  // The settings form open too, so the scan covers it; the saved thresholds are shown.
  await page.locator('summary', { hasText: 'Alert settings' }).click();
  await expect(page.getByLabel('No movement after (minutes)').inputValue()).resolves.toBe('720');
  expect(await captureHq(page, 'race-hq-resolved')).toEqual([]);

  expect(appErrors(watched.errors)).toEqual([]);

  // The stream drops (a proxy restarts, the phone changes network): the HQ says so, reconnects by itself with a
  // fresh request (and token), and the next SOS still arrives without a reload.
  server.app.server.closeAllConnections();
  await page.locator('.hq-connection[data-status="reconnecting"]').waitFor();
  await page.locator('.hq-connection[data-status="live"]').waitFor({ timeout: 15_000 });
  const [, b] = race.runners;
  await ping(b, Date.now(), 2990, '&alarm=sos');
  await page.locator(`li.hq-alert[data-kind="sos"][data-state="open"]`).waitFor({ timeout: 5_000 });
  await expect(alertCard(page, 'sos').first().locator('.hq-alert__who').textContent()).resolves.toBe(
    `#${b.bib} Runner2 Test2`,
  );
  await page.waitForFunction(() => document.title.startsWith('(1) Race HQ'));
  await watched.context.close();
});

it('keeps visitors and other directors out (the screen says so, the API refuses)', async () => {
  const hq = `/race/${race.raceId}/hq`;
  const alertsPath = `/api/director/races/${race.raceId}/alerts`;

  // A visitor: sent to the home page; the API wants a token.
  const visitor = await newPage(browser);
  await visitor.page.goto(`${server.url}${hq}`);
  await visitor.page.waitForURL(`${server.url}/`);
  await visitor.page.getByRole('button', { name: 'Director Login' }).waitFor();
  expect(await apiStatus(alertsPath, null)).toBe(401);
  expect(await apiStatus(`${alertsPath}/stream`, null)).toBe(401);
  await visitor.context.close();

  // Another director: the screen says no access, the race page has no HQ link, the API answers 404.
  const other = await newPage(browser);
  await signIn(other.page, server.url, 'director2');
  await other.page.goto(`${server.url}${hq}`);
  await other.page.getByText('You cannot open this Race HQ.').waitFor();
  await other.page
    .getByRole('alert')
    .filter({ hasText: 'Only the race’s director or an administrator' })
    .waitFor();
  const token = await accessToken(other.page);
  for (const path of [
    alertsPath,
    `${alertsPath}/stream`,
    `${alertsPath}/log`,
    `/api/director/races/${race.raceId}/alert-settings`,
  ])
    expect([403, 404], path).toContain(await apiStatus(path, token));
  await other.page.goto(`${server.url}/race/${race.raceId}`);
  await other.page.getByRole('heading', { name: 'Live Test Race' }).waitFor();
  await expect(other.page.getByRole('link', { name: 'Race HQ' }).count()).resolves.toBe(0);
  await other.context.close();

  // An admin gets in.
  const admin = await newPage(browser);
  await signIn(admin.page, server.url, 'admin');
  await admin.page.goto(`${server.url}${hq}`);
  await admin.page.locator('.hq-connection[data-status="live"]').waitFor();
  await admin.context.close();
});
