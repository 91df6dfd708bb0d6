import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ARTIFACTS = path.resolve(import.meta.dirname, '../../artifacts');

/** Debian's Chromium, headless, no downloads, no background traffic (the machine has no internet). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** console.error messages and uncaught page errors seen so far; a test should expect this to be empty. */
  errors: string[];
  /** every console message (type: text). */
  console: string[];
}

/**
 * A new page whose console errors are collected. Map tiles cannot load here: tile requests are answered with an
 * empty 204 so they do not show up as network errors.
 */
export async function newPage(
  browser: Browser,
  opts: { width?: number; height?: number } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
  });
  await context.route(/tile\.openstreetmap\.org|\{s\}\.tile/, (route) =>
    route.fulfill({ status: 204, body: '' }),
  );
  const page = await context.newPage();
  const errors: string[] = [];
  const consoleLines: string[] = [];
  page.on('console', (msg) => {
    consoleLines.push(`${msg.type()}: ${msg.text()}`);
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return { page, context, errors, console: consoleLines };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
