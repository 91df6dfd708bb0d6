import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { answerDialogs, appErrors, captureScreen, seedRace, seedRunner } from './support/web';
import { devices, positions, users } from '../apps/server/src/db/schema';
import { mapShareKml } from '../apps/server/test/mapshare-fixtures';

/**
 * Before the start, the director attaches a runner's own Garmin inReach (MapShare name and password) from the
 * runner's row. The server's MapShare job reads a stand-in for share.garmin.com on 127.0.0.1 (real KML, the password
 * checked), and the tracker check shows the fix sent 12 minutes ago. Then the director detaches it. 1280 and 375 px.
 */

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
async function capture(page: Page, name: string) {
  await page.evaluate(axeSource);
  return captureScreen(page, name);
}

const INREACH_TOKEN = 'e2e-own-tracker';
let server: RunningServer;
let kml: http.Server;
let browser: Browser;
let w: WatchedPage;
let raceId: number;
let runnerId: number;
const fixAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 12 * 60_000);
const seen: { path: string; auth: string | undefined; status: number }[] = [];

beforeAll(async () => {
  kml = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ok =
      url.pathname === '/Feed/Share/AdaTrail' &&
      req.headers.authorization === `Basic ${Buffer.from(':alpine').toString('base64')}`;
    seen.push({ path: url.pathname, auth: req.headers.authorization, status: ok ? 200 : 401 });
    res.statusCode = ok ? 200 : 401;
    res.setHeader('content-type', 'application/vnd.google-earth.kml+xml');
    res.end(
      ok ? mapShareKml('Ada Trail', [{ id: 1, at: fixAt, lat: 46.5581, lon: 7.9112 }]) : 'Unauthorized',
    );
  });
  await new Promise<void>((r) => kml.listen(0, '127.0.0.1', r));
  server = await startServer({
    MAPSHARE_API_URL: `http://127.0.0.1:${(kml.address() as AddressInfo).port}/Feed/Share`,
    INREACH_OUTBOUND_TOKEN: INREACH_TOKEN,
  });
  browser = await launchBrowser();
  w = await newPage(browser);
  answerDialogs(w.page);
  await signIn(w.page, server.url, 'director1');
  const [account] = await server.app.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'director1@racebeacon.example'));
  raceId = await seedRace(server.app, {
    name: 'Tracker Check Trail',
    approved: true,
    directorId: account.id,
    startTime: new Date(Date.now() + 2 * 3600_000),
  });
  runnerId = await seedRunner(server.app, raceId, { firstName: 'Ada', lastName: 'Trail', bibNumber: '12' });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((r) => kml.close(r));
});

/** Nothing in the open dialog sticks out of the 375 px viewport (either side) or out of its own box. */
async function dialogOverflow(page: Page) {
  return page.locator('dialog[open]').evaluate((el) =>
    [el, ...Array.from(el.querySelectorAll('*'))]
      .filter((e) => {
        const box = e.getBoundingClientRect();
        return box.right > window.innerWidth + 0.5 || box.left < -0.5 || e.scrollWidth > e.clientWidth + 1;
      })
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  );
}

it('attaches a MapShare tracker from the runner row and the tracker check shows its last fix', async () => {
  const { page } = w;
  await page.goto(`${server.url}/race/${raceId}`);
  const row = page.getByTestId('runner-row').filter({ hasText: 'Ada Trail' });
  await row.getByRole('button', { name: 'Own tracker' }).click();
  const dialog = page.locator('dialog[open]');
  await dialog.getByLabel('Tracker').selectOption('mapshare');
  await dialog.getByLabel('MapShare name (share.garmin.com/name)').fill('AdaTrail');
  await dialog.getByLabel('MapShare password (if the page has one)').fill('alpine');
  expect(await capture(page, 'runner-tracker-attach')).toEqual([]);
  await page.setViewportSize({ width: 375, height: 812 });
  expect(await dialogOverflow(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.setViewportSize({ width: 1280, height: 900 });
  await dialog.getByRole('button', { name: 'Attach tracker' }).click();
  await dialog.getByTestId('tracker-check').waitFor();

  // Attaching wakes the MapShare job: the feed is read with the password, the fix stored for the runner.
  const [device] = await server.app.db.select().from(devices).where(eq(devices.assignedRunnerId, runnerId));
  expect([device.source, device.hardwareId, device.raceId]).toEqual(['mapshare', 'AdaTrail', raceId]);
  await expect
    .poll(
      async () =>
        (await server.app.db.select().from(positions).where(eq(positions.deviceId, device.id))).length,
    )
    .toBe(1);
  expect(seen[0]).toEqual({
    path: '/Feed/Share/AdaTrail',
    auth: expect.stringMatching(/^Basic /),
    status: 200,
  });

  // The device's last fix is written off the acknowledgement path, within a second (ingest/device-state.ts): on a
  // loaded machine the check can come first, so it is asked again for longer than vitest's default second.
  await expect
    .poll(
      async () => {
        await dialog.getByRole('button', { name: 'Check again' }).click();
        return dialog.getByTestId('tracker-age').textContent();
      },
      { timeout: 15_000, interval: 500 },
    )
    .toMatch(/^last fix 1[23] min ago$/);
  await expect(dialog.getByTestId('tracker-check').textContent()).resolves.toMatch(/AdaTrail/);
  expect(await dialog.getByTestId('tracker-feed-error').count()).toBe(0);
  expect(await capture(page, 'runner-tracker-check')).toEqual([]);
  await page.setViewportSize({ width: 375, height: 812 });
  expect(await dialogOverflow(page)).toEqual([]);
  expect(await capture(page, 'runner-tracker-check-375')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });

  // The row now shows the tracker; detaching keeps the runner's fix (the device stays, off the runner).
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(row.getByTestId('runner-device').textContent()).resolves.toBe('Ada Trail');
  await row.getByRole('button', { name: 'Tracker check' }).click();
  await page.locator('dialog[open]').getByRole('button', { name: 'Detach' }).click();
  await page.locator('dialog[open]').getByRole('button', { name: 'Attach tracker' }).waitFor();
  const [after] = await server.app.db.select().from(devices).where(eq(devices.id, device.id));
  expect(after.assignedRunnerId).toBeNull();
  expect(appErrors(w.errors)).toEqual([]);
});

it('an inReach attached by IMEI stays pending with a code to text from the device; the text proves it', async () => {
  const { page } = w;
  const beaId = await seedRunner(server.app, raceId, {
    firstName: 'Bea',
    lastName: 'Claim',
    bibNumber: '13',
  });
  const imei = '300434069990013';
  await page.goto(`${server.url}/race/${raceId}`);
  const row = page.getByTestId('runner-row').filter({ hasText: 'Bea Claim' });
  await row.getByRole('button', { name: 'Own tracker' }).click();
  const dialog = page.locator('dialog[open]');
  await dialog.getByLabel('Tracker').selectOption('inreach');
  await dialog.getByLabel('IMEI (15 digits)').fill(imei);
  await dialog.getByRole('button', { name: 'Attach tracker' }).click();
  const pending = dialog.getByTestId('tracker-pending');
  await pending.waitFor();
  const code = (await dialog.getByTestId('tracker-claim-code').textContent()) ?? '';
  expect(code).toMatch(/^RB[2-9A-HJ-NP-Z]{6}$/);
  await expect(pending.textContent()).resolves.toMatch(/no position from it is received or shown/);
  const [device] = await server.app.db.select().from(devices).where(eq(devices.assignedRunnerId, beaId));
  expect([device.hardwareId, device.claimHardwareId]).toEqual([null, imei]);
  await page.setViewportSize({ width: 375, height: 812 });
  expect(await dialogOverflow(page)).toEqual([]);
  expect(await capture(page, 'runner-tracker-pending-375')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });

  // The runner types the code on the inReach: Garmin's IPC Outbound delivers the free-text message.
  const res = await fetch(`${server.url}/api/ingest/inreach`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-outbound-auth-token': INREACH_TOKEN },
    body: JSON.stringify({
      Version: '2.0',
      Events: [{ imei, messageCode: 3, freeText: `Bea here ${code}`, timeStamp: Date.now() - 30_000 }],
    }),
  });
  expect(res.status).toBe(200);
  await dialog.getByRole('button', { name: 'Check again' }).click();
  await expect.poll(async () => dialog.getByTestId('tracker-pending').count(), { timeout: 10_000 }).toBe(0);
  await expect(dialog.getByTestId('tracker-check').textContent()).resolves.toContain(imei);
  const [proven] = await server.app.db.select().from(devices).where(eq(devices.id, device.id));
  expect([proven.hardwareId, proven.claimHardwareId]).toEqual([imei, null]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  expect(appErrors(w.errors)).toEqual([]);
});

it('the dialog in French after the footer switch (its texts a lazy catalogue of their own), fitting 375 px', async () => {
  const { page } = w;
  await page.goto(`${server.url}/race/${raceId}`);
  await page.getByTestId('language-switch').selectOption('fr');
  const row = page.getByTestId('runner-row').filter({ hasText: 'Ada Trail' });
  await row.getByRole('button', { name: 'Balise du coureur' }).click();
  const dialog = page.locator('dialog[open]');
  // The dialog says "Vérification…" while it reads the runner's tracker: wait for its texts, don't read them at once.
  await expect
    .poll(() => dialog.locator('h2').first().textContent(), { timeout: 15_000 })
    .toBe('Balise : Ada Trail');
  await expect
    .poll(() => dialog.locator('p.muted').first().textContent(), { timeout: 15_000 })
    .toBe(
      'Associez la balise que le coureur apporte. Elle ne sert que pour cette course. Vérifiez-la ici avant le départ.',
    );
  await expect(dialog.getByLabel('Balise').locator('option').allTextContents()).resolves.toContain(
    'Téléphone : Traccar Client / OsmAnd',
  );
  await dialog.getByLabel('Balise').selectOption('spot');
  await dialog.getByLabel('Identifiant du flux SPOT (de la page partagée du coureur)').waitFor();
  await dialog.getByLabel('Mot de passe du flux (s’il y en a un)').waitFor();
  await dialog.getByRole('button', { name: 'Associer la balise' }).waitFor();
  await page.setViewportSize({ width: 375, height: 812 });
  expect(await dialogOverflow(page)).toEqual([]);
  expect(await capture(page, 'runner-tracker-attach-fr-375')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await dialog.getByRole('button', { name: 'Fermer' }).click();
  await page.getByTestId('language-switch').selectOption('en');
  await row.getByRole('button', { name: 'Own tracker' }).waitFor();
  expect(appErrors(w.errors)).toEqual([]);
});
