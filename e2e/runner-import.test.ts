import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { appErrors, captureScreen, seedRace } from './support/web';
import { runners, users } from '../apps/server/src/db/schema';

/**
 * The director imports runners from a CSV file on the race page: the preview (a dry run) shows the bad line and its
 * number and imports nothing; the fixed file previews three new runners, the import adds them to the table. The
 * export downloads the same columns; the public race page links the results CSV. Screenshots at 1280 and 375 px.
 */

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
/** axe through the DevTools protocol first: the app's CSP forbids the inline script captureScreen would add. */
async function capture(page: Page, name: string) {
  await page.evaluate(axeSource);
  return captureScreen(page, name);
}

/**
 * At 375 px: the import card ends inside the viewport and nothing in it is wider than its box (the runner rows
 * below belong to other screens' tests).
 */
async function importFits375(page: Page) {
  await page.setViewportSize({ width: 375, height: 812 });
  const found = await page.getByTestId('runner-import').evaluate((el) => {
    const right = el.getBoundingClientRect().right;
    const overflowing = [el, ...Array.from(el.querySelectorAll('*'))]
      .filter(
        (e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 || e.scrollWidth > e.clientWidth + 1,
      )
      .filter((e) => !e.classList.contains('runner-import-table-wrap'))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return { right: right <= window.innerWidth ? right : -right, overflowing };
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

let server: RunningServer;
let browser: Browser;
let w: WatchedPage;
let raceId: number;
const dir = mkdtempSync(path.join(tmpdir(), 'rb-import-'));

const header = 'Bib;First name;Last name;Sex;Age;Emergency contact\r\n';
const bad =
  `\uFEFF${header}` +
  '101;Ada;Lovelace;F;36;"Charles, +44 20 7946 0000"\r\n' +
  '102;Alan;Turing;M;300;\r\n' +
  '103;"Grace ""Amazing""";Hopper;female;;\r\n';
const fixed = bad.replace('102;Alan;Turing;M;300;', '102;Alan;Turing;M;41;');

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  w = await newPage(browser);
  await signIn(w.page, server.url, 'director1');
  const [account] = await server.app.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'director1@racebeacon.example'));
  raceId = await seedRace(server.app, { name: 'Import Trail', approved: true, directorId: account.id });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('imports a CSV: the preview names the bad line, the fixed file imports, runners appear', async () => {
  const { page } = w;
  await page.goto(`${server.url}/race/${raceId}`);
  const importer = page.getByTestId('runner-import');
  await importer.getByText('Import runners (CSV)').click();

  const file = path.join(dir, 'runners.csv');
  writeFileSync(file, bad);
  await importer.getByLabel('CSV file').setInputFiles(file);
  const errors = importer.getByTestId('import-error');
  await errors.first().waitFor();
  await expect(errors.allTextContents()).resolves.toEqual([expect.stringMatching(/^Line 3: Age/)]);
  await expect(importer.getByTestId('import-errors').textContent()).resolves.toMatch(
    /Nothing will be imported/,
  );
  // Two good lines, but nothing is imported while a line has an error (unless skipped).
  await expect(importer.getByRole('button', { name: 'Import 2 runners' }).isDisabled()).resolves.toBe(true);
  expect(await capture(page, 'runner-import-error')).toEqual([]);
  expect(await server.app.db.select().from(runners).where(eq(runners.raceId, raceId))).toEqual([]);

  // The same file, fixed: three new runners in the preview, then the import.
  writeFileSync(file, fixed);
  await importer.getByLabel('CSV file').setInputFiles(file);
  // (the bad file's preview had a plan too: wait for the new one)
  await expect.poll(() => importer.getByTestId('import-plan').textContent()).toMatch(/^3 new runners/);
  await expect(importer.getByTestId('import-error').count()).resolves.toBe(0);
  await expect(importer.getByTestId('import-row').allTextContents()).resolves.toEqual([
    '2101Ada LovelaceNew',
    '3102Alan TuringNew',
    '4103Grace "Amazing" HopperNew',
  ]);
  expect(await capture(page, 'runner-import-preview')).toEqual([]);
  // The preview (file name, plan, table, buttons) fits a phone.
  expect(await importFits375(page)).toEqual({ right: expect.any(Number), overflowing: [] });
  await importer.getByRole('button', { name: 'Import 3 runners' }).click();
  await importer.getByTestId('import-summary').waitFor();
  await expect(importer.getByTestId('import-summary').textContent()).resolves.toMatch(
    /Imported: 3 new runners/,
  );
  const rows = page.getByTestId('runner-row');
  await expect.poll(() => rows.count()).toBe(3);
  await expect(rows.allTextContents()).resolves.toEqual([
    expect.stringContaining('Ada Lovelace'),
    expect.stringContaining('Alan Turing'),
    expect.stringContaining('Grace "Amazing" Hopper'),
  ]);
  expect(await capture(page, 'runner-import-done')).toEqual([]);

  expect(await importFits375(page)).toEqual({ right: expect.any(Number), overflowing: [] });

  const stored = await server.app.db
    .select({ bib: runners.bibNumber, age: runners.age, contact: runners.emergencyContact })
    .from(runners)
    .where(eq(runners.raceId, raceId))
    .orderBy(runners.bibNumber);
  expect(stored).toEqual([
    { bib: '101', age: 36, contact: 'Charles, +44 20 7946 0000' },
    { bib: '102', age: 41, contact: null },
    { bib: '103', age: null, contact: null },
  ]);
  expect(appErrors(w.errors)).toEqual([]);
});

it('downloads the runners export and links the public results CSV', async () => {
  const { page } = w;
  const importer = page.getByTestId('runner-import');
  if (!(await importer.getByLabel('CSV file').isVisible()))
    await importer.getByText('Import runners (CSV)').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    importer.getByRole('button', { name: 'Export runners (CSV)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('runners-import-trail.csv');
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text).toContain('BibNumber,FirstName,LastName,Gender,Age,EmergencyContact,Phone\r\n');
  expect(text).toContain('101,Ada,Lovelace,F,36,"Charles, +44 20 7946 0000",\r\n');

  const link = page.getByRole('link', { name: 'Results (CSV)' });
  await expect(link.getAttribute('href')).resolves.toBe(`/api/open/races/${raceId}/results.csv`);
  const res = await fetch(`${server.url}/api/open/races/${raceId}/results.csv`);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('Rank,BibNumber,FirstName,LastName');
});
