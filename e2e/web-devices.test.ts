import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { devices, spotFeeds } from '../apps/server/src/db/schema';
import { signIn } from './support/auth';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { answerDialogs, captureScreen } from './support/web';

/** The admin's tracking set-up on the Devices screen: source, hardware id, tracking key, SPOT feeds. */
let server: RunningServer;
let browser: Browser;
let admin: WatchedPage;
let dialogs: ReturnType<typeof answerDialogs>;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  admin = await newPage(browser);
  dialogs = answerDialogs(admin.page);
  await signIn(admin.page, server.url, 'admin');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('an admin sets a device up as a SPOT messenger, sees and rotates its tracking key', async () => {
  const { page } = admin;
  await page.goto(`${server.url}/add-device`);
  await page.getByRole('button', { name: 'Add Device +' }).click();
  await page.getByLabel('Name').fill('SPOT 7');
  await page.getByRole('button', { name: 'Save' }).click();
  const row = page.getByTestId('device-row').filter({ hasText: 'SPOT 7' });
  await row.waitFor();
  const [stored] = await server.app.db.select().from(devices).where(eq(devices.name, 'SPOT 7'));

  await row.getByRole('button', { name: 'Tracking' }).click();
  const dialog = page.getByRole('dialog', { name: 'Tracking: SPOT 7' });
  await dialog.waitFor();
  await expect(dialog.getByLabel('Tracking key').inputValue()).resolves.toBe(stored.trackingKey);
  await dialog.getByLabel('Source').selectOption('spot');
  await dialog.getByLabel('Hardware id').fill(' 0-2468013 ');
  expect(await captureScreen(page, 'devices-tracking-dialog')).toEqual([]);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
  await expect.poll(async () => (await row.textContent()) ?? '').toContain('SPOT');
  const [saved] = await server.app.db.select().from(devices).where(eq(devices.id, stored.id));
  expect({ source: saved.source, hardwareId: saved.hardwareId }).toEqual({
    source: 'spot',
    hardwareId: '0-2468013',
  });

  // Rotating the key asks first, then shows the new key; the old one no longer works.
  await row.getByRole('button', { name: 'Tracking' }).click();
  await dialog.getByRole('button', { name: 'Rotate key' }).click();
  await expect.poll(async () => dialog.getByLabel('Tracking key').inputValue()).not.toBe(stored.trackingKey);
  expect(dialogs.last()).toMatchObject({ type: 'confirm' });
  const [rotated] = await server.app.db.select().from(devices).where(eq(devices.id, stored.id));
  await expect(dialog.getByLabel('Tracking key').inputValue()).resolves.toBe(rotated.trackingKey);
  const old = await fetch(
    `${server.url}/api/ingest/osmand?id=${stored.trackingKey}&lat=46&lon=7&timestamp=1`,
  );
  expect(old.status).toBe(400);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(admin.errors).toEqual([]);
});

it('an admin adds and deletes a SPOT feed (the password is never shown again)', async () => {
  const { page } = admin;
  await page.goto(`${server.url}/add-device`);
  await page.getByLabel('Feed id').fill('0abcDEFghiJKLmnoPQRstu');
  await page.getByLabel('Feed password (optional)').fill('s3cret');
  await page.getByRole('button', { name: 'Add feed' }).click();
  const feed = page.getByTestId('spot-feed-row').filter({ hasText: '0abcDEFghiJKLmnoPQRstu' });
  await feed.waitFor();
  await expect(feed.locator('td[data-label="Password"]').textContent()).resolves.toBe('Yes');
  await expect(page.content()).resolves.not.toContain('s3cret');
  expect(await server.app.db.select().from(spotFeeds)).toHaveLength(1);

  await feed.getByRole('button', { name: 'Delete SPOT feed 0abcDEFghiJKLmnoPQRstu' }).click();
  await feed.waitFor({ state: 'detached' });
  expect(dialogs.last()).toEqual({
    type: 'confirm',
    message: 'Are you sure you want to delete the SPOT feed 0abcDEFghiJKLmnoPQRstu?',
  });
  expect(await server.app.db.select().from(spotFeeds)).toEqual([]);
  expect(admin.errors).toEqual([]);
});

it('an admin approves a runner’s own tracker waiting for proof of possession (issue 24)', async () => {
  const { page } = admin;
  const [claim] = await server.app.db
    .insert(devices)
    .values({
      name: 'Claimed LoRa',
      source: 'lorawan',
      trackingKey: `rt-0-${Date.now()}`,
      claimHardwareId: 'A1B2C3D4E5F60718',
      claimCode: 'RB23456A',
    })
    .returning();
  await page.goto(`${server.url}/add-device`);
  const row = page.getByTestId('device-row').filter({ hasText: 'Claimed LoRa' });
  await expect(row.getByTestId('device-claim-pending').textContent()).resolves.toContain('A1B2C3D4E5F60718');
  await row.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(async () => row.getByTestId('device-claim-pending').count()).toBe(0);
  expect(dialogs.last()).toMatchObject({
    type: 'confirm',
    message: expect.stringContaining('A1B2C3D4E5F60718'),
  });
  const [approved] = await server.app.db.select().from(devices).where(eq(devices.id, claim.id));
  expect([approved.hardwareId, approved.claimHardwareId]).toEqual(['A1B2C3D4E5F60718', null]);
  expect(admin.errors).toEqual([]);
});
