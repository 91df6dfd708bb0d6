import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

let server: RunningServer;
let browser: Browser;
beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('serves the web app and deep links in a real Chromium', async () => {
  const { page, errors } = await newPage(browser);
  await page.goto(`${server.url}/races`);
  // A deep link renders its own screen inside the app shell (the header carries the product name).
  await expect(page.locator('h1').first().textContent()).resolves.toBe('Races');
  await expect(page.locator('header .brand').textContent()).resolves.toContain('RaceBeacon');
  expect(errors).toEqual([]);
});
