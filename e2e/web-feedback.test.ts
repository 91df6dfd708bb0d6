import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn } from './support/auth';
import { answerDialogs, appErrors, captureScreen } from './support/web';

/**
 * When a director's action is refused by the server (an invalid GPX file, a duplicate bib…), the API client logs
 * 'API Fetch Error:' as the spec says, and the form that caused it says why, so nothing happens silently. The admin
 * sees how far a race request got (runners, course with a working map link) before approving it.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../packages/domain/test/fixtures');
const RACE = 'Feedback Fell Race';

let server: RunningServer;
let browser: Browser;
let director: WatchedPage;
let admin: WatchedPage;
const a11y: string[] = [];

async function settle(page: Page) {
  await page.getByTestId('spinner-overlay').waitFor({ state: 'detached' });
}

async function shoot(page: Page, name: string) {
  await settle(page);
  for (const v of await captureScreen(page, name))
    a11y.push(`${name}: ${v.id} ${v.help} ${v.nodes.join(', ')}`);
}

const fetchErrors = (w: WatchedPage) => appErrors(w.errors).filter((e) => e.startsWith('API Fetch Error:'));

async function addRunner(page: Page, first: string, last: string, bib: string) {
  await page.getByRole('button', { name: 'Add Runner +' }).click();
  const form = page.getByRole('form', { name: 'New runner' });
  await form.getByLabel('FirstName').fill(first);
  await form.getByLabel('LastName').fill(last);
  await form.getByLabel('BibNumber').fill(bib);
  await form.getByRole('button', { name: 'Add Runner' }).click();
  return form;
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  director = await newPage(browser);
  admin = await newPage(browser);
  answerDialogs(director.page);
  answerDialogs(admin.page);
  await signIn(director.page, server.url, 'director1');
  await signIn(admin.page, server.url, 'admin');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a refused action says why', () => {
  it('director creates a race, then an invalid GPX file is refused with the server’s reason', async () => {
    const { page } = director;
    await page.goto(`${server.url}/my-races`);
    await page.getByRole('button', { name: 'Add Race +' }).click();
    await page.getByLabel('Name').fill(RACE);
    await page.getByLabel('Location').fill('Keswick');
    await page.getByRole('button', { name: 'Create Race' }).click();
    // The form closes; a note says what happened and leads to the new race.
    const note = page.getByTestId('race-created');
    await note.waitFor();
    await expect(note.textContent()).resolves.toContain(
      `${RACE} was created and is waiting for an administrator's approval.`,
    );
    await expect(note.getByRole('link', { name: 'Open it' }).getAttribute('href')).resolves.toMatch(
      /^\/race\/unapproved\/\d+$/,
    );
    await shoot(page, 'feedback-race-created');
    await page.getByTestId('race-card').filter({ hasText: RACE }).getByRole('link').click();
    await page.locator('h1.race-title').waitFor();
    await expect(page.getByTestId('form-error').count()).resolves.toBe(0);
    // Empty sections tell the director what to do next.
    await expect(page.getByTestId('course-section').textContent()).resolves.toContain(
      'Choose the GPX file of the course and upload it',
    );
    await expect(page.getByTestId('runners-section').textContent()).resolves.toContain(
      "No runners registered yet. Use 'Add Runner +' to register the first one.",
    );

    const before = fetchErrors(director).length;
    await page.getByLabel('GPX file').setInputFiles(path.join(FIXTURES, 'not-xml.gpx'));
    await page.getByRole('button', { name: 'Upload course' }).click();
    const course = page.getByTestId('course-section');
    const message = course.getByTestId('form-error');
    await message.waitFor();
    await expect(message.textContent()).resolves.toMatch(/not well-formed XML/);
    await expect(message.getAttribute('role')).resolves.toBe('alert');
    await expect(course.textContent()).resolves.toContain('No course has been uploaded yet.');
    // The spec's console log is still there.
    expect(fetchErrors(director).length).toBe(before + 1);
    expect(fetchErrors(director).at(-1)).toContain('invalid_gpx');
    await shoot(page, 'feedback-bad-gpx');

    // A good file clears the message.
    await page.getByLabel('GPX file').setInputFiles(path.join(FIXTURES, 'gpx11-two-segments.gpx'));
    await page.getByRole('button', { name: 'Upload course' }).click();
    await page.getByTestId('course-length').waitFor();
    await expect(course.getByTestId('form-error').count()).resolves.toBe(0);

    // A corrected file replaces the course in place (no delete first): the new length shows, the old map key dies.
    const firstLength = await page.getByTestId('course-length').textContent();
    const oldMap = await course.getByRole('link', { name: /View course map/ }).getAttribute('href');
    await course
      .getByLabel('GPX file of a corrected course')
      .setInputFiles(path.join(FIXTURES, 'gpx10-track.gpx'));
    await course.getByRole('button', { name: 'Replace course' }).click();
    await expect.poll(() => page.getByTestId('course-length').textContent()).not.toBe(firstLength);
    expect((await page.request.get(new URL(oldMap!, server.url).toString())).status()).toBe(404);
    await expect(course.getByTestId('form-error').count()).resolves.toBe(0);
    await shoot(page, 'feedback-course-replace');
    // Back to the course the rest of this file expects.
    await course
      .getByLabel('GPX file of a corrected course')
      .setInputFiles(path.join(FIXTURES, 'gpx11-two-segments.gpx'));
    await course.getByRole('button', { name: 'Replace course' }).click();
    await expect.poll(() => page.getByTestId('course-length').textContent()).toBe(firstLength);
  });

  it('a duplicate bib keeps the runner form open with the reason; fixing the bib adds the runner', async () => {
    const { page } = director;
    await addRunner(page, 'Ann', 'Lee', '7');
    await page.getByTestId('runner-row').filter({ hasText: 'Ann Lee' }).waitFor();

    const before = fetchErrors(director).length;
    const form = await addRunner(page, 'Bob', 'Ray', '7');
    const message = form.getByTestId('form-error');
    await message.waitFor();
    await expect(message.textContent()).resolves.toBe('Bib number 7 is already taken in this race.');
    expect(fetchErrors(director).length).toBe(before + 1);
    expect(fetchErrors(director).at(-1)).toContain('duplicate_bib');
    // Nothing was lost: the form still holds what was typed.
    await expect(form.getByLabel('FirstName').inputValue()).resolves.toBe('Bob');
    await expect(page.getByTestId('runner-row').count()).resolves.toBe(1);
    await shoot(page, 'feedback-duplicate-bib');

    await form.getByLabel('BibNumber').fill('8');
    await form.getByRole('button', { name: 'Add Runner' }).click();
    await page.getByTestId('runner-row').filter({ hasText: 'Bob Ray' }).waitFor();
    await expect(page.getByTestId('form-error').count()).resolves.toBe(0);

    // Editing into a taken bib: same message in the edit form, the row keeps its stored bib.
    await page
      .getByTestId('runner-row')
      .filter({ hasText: 'Bob Ray' })
      .getByRole('button', { name: 'Edit' })
      .click();
    const edit = page.getByRole('form', { name: 'Edit Bob Ray' });
    await edit.getByLabel('BibNumber').fill('7');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => edit.getByTestId('form-error').textContent())
      .toBe('Bib number 7 is already taken in this race.');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await expect(
      page
        .getByTestId('runner-row')
        .filter({ hasText: 'Bob Ray' })
        .locator('td[data-label="Bib"]')
        .textContent(),
    ).resolves.toBe('8');
  });

  it('the admin sees the request’s runners and course, opens its map, and approves it', async () => {
    const { page } = admin;
    await page.goto(`${server.url}/race-requests`);
    const card = page.getByTestId('request-card').filter({ hasText: RACE });
    await card.waitFor();
    await expect(card.getByTestId('request-runners').textContent()).resolves.toBe('2');
    await expect(card.getByTestId('request-course').textContent()).resolves.toMatch(
      /^\d+(\.\d+)? km, \d+ m climb$/,
    );
    const href = await card.getByRole('link', { name: /View course map/ }).getAttribute('href');
    expect(href).toContain('?key=');
    const map = await page.request.get(new URL(href!, server.url).toString());
    expect(map.status()).toBe(200);
    await shoot(page, 'feedback-race-requests');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No pending requests.').waitFor();
  });

  it('a visitor on a phone sees one line per runner, and the owner finds the way back to My Races', async () => {
    const visitor = await newPage(browser, { width: 375, height: 812 });
    const { page } = visitor;
    await page.goto(`${server.url}/races`);
    await page.getByTestId('race-card').filter({ hasText: RACE }).getByRole('link').click();
    const rows = page.getByTestId('runner-row');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(2);
    // A plain table row (not a stacked card per runner), and the page does not scroll sideways.
    await expect(rows.first().evaluate((el) => getComputedStyle(el).display)).resolves.toBe('table-row');
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBe(375);
    await expect(
      page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').textContent(),
    ).resolves.toBe('Races');
    await settle(page);
    await page.locator('.live-panel').getByText('Live tracking updates every 2.5 minutes').first().waitFor();
    for (const v of await captureScreen(page, 'feedback-visitor-runners'))
      a11y.push(`visitor: ${v.id} ${v.help} ${v.nodes.join(', ')}`);
    expect(appErrors(visitor.errors)).toEqual([]);
    await visitor.context.close();

    // The owner's breadcrumb leads back to My Races, where they came from.
    await director.page.reload();
    await director.page.locator('h1.race-title').waitFor();
    const crumb = director.page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link');
    await expect(crumb.textContent()).resolves.toBe('My Races');
    await expect(crumb.getAttribute('href')).resolves.toBe('/my-races');
  });

  it('no unexpected console errors beyond the two refused calls, no serious accessibility violations', () => {
    expect(appErrors(director.errors).filter((e) => !e.startsWith('API Fetch Error:'))).toEqual([]);
    expect(fetchErrors(director)).toHaveLength(3);
    expect(appErrors(admin.errors)).toEqual([]);
    expect(a11y).toEqual([]);
  });
});
