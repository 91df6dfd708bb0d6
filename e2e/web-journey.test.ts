import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { signIn, signOut } from './support/auth';
import { gpxTrack } from './support/gpx';
import { answerDialogs, appErrors, captureScreen, navItems, seedRace } from './support/web';

/**
 * The whole life of a race through the real UI, signing in through the real sign-in page: a director creates it,
 * the admin approves it and hands it a device, the director sets it up and runs it, a visitor follows it.
 */
let server: RunningServer;
let browser: Browser;
let director: WatchedPage;
let admin: WatchedPage;
let directorDialogs: ReturnType<typeof answerDialogs>;
let adminDialogs: ReturnType<typeof answerDialogs>;
let raceId: number;
let startedRaceName: string;
const a11y: string[] = [];

const RACE = {
  Name: 'Canyon Crest 25K',
  Description: 'A fast 25K on canyon trails. Two aid stations, one big climb.',
  Location: 'Moab, UT',
  StartTime: '2027-03-20T09:15',
};

/** Waits until no API call is in flight (the global spinner overlay is gone). */
async function settle(page: Page) {
  await page.getByTestId('spinner-overlay').waitFor({ state: 'detached' });
}

async function shoot(page: Page, name: string) {
  await settle(page);
  // The live view is a lazy chunk: wait for it so the picture shows the real screen (a live race says how often
  // it updates; a finished one shows final results).
  if (await page.locator('.live-panel').count())
    await page
      .locator('.live-panel')
      .getByText(/Live tracking updates every 2\.5 minutes|Final results/)
      .first()
      .waitFor();
  for (const v of await captureScreen(page, name))
    a11y.push(`${name}: ${v.id} ${v.help} ${v.nodes.join(', ')}`);
}

function navLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
}

function row(page: Page, text: string) {
  return page.getByTestId('runner-row').filter({ hasText: text });
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  // A race that has already started: it must never be offered when assigning a device to a race.
  startedRaceName = 'Already Running Relay';
  await seedRace(server.app, { name: startedRaceName, hasStarted: true, directorId: 'someone-else' });
  director = await newPage(browser);
  admin = await newPage(browser);
  directorDialogs = answerDialogs(director.page);
  adminDialogs = answerDialogs(admin.page);
  await signIn(director.page, server.url, 'director1');
  await signIn(admin.page, server.url, 'admin');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the life of a race', () => {
  it('navigation shows what each signed-in role may use', async () => {
    await director.page.goto(server.url);
    await director.page.locator('#welcome-title').waitFor();
    await expect(navItems(director.page)).resolves.toEqual(['Home', 'Races', 'My Races', 'Logout']);
    await admin.page.goto(server.url);
    await admin.page.locator('#welcome-title').waitFor();
    await expect(navItems(admin.page)).resolves.toEqual([
      'Home',
      'Races',
      'My Races',
      'Race Requests',
      'Devices',
      'Logout',
    ]);
  });

  it('a director on an admin route is sent to /', async () => {
    for (const route of ['/race-requests', '/add-device']) {
      await director.page.goto(`${server.url}${route}`);
      await director.page.locator('#welcome-title').waitFor();
      expect(new URL(director.page.url()).pathname, route).toBe('/');
    }
  });

  it('director creates a race: it appears in My Races, not approved', async () => {
    const { page } = director;
    await navLink(page, 'My Races').click();
    await page.waitForURL(`${server.url}/my-races`);
    await page.getByText('You have no races yet.').waitFor();
    const toggle = page.getByRole('button', { name: 'Add Race +' });
    await toggle.click();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    const form = page.getByRole('form', { name: 'New race' });
    await expect(form.getByLabel('StartTime').getAttribute('type')).resolves.toBe('datetime-local');
    await expect(form.getByLabel('Name').getAttribute('required')).resolves.toBe('');
    await shoot(page, 'my-races-create-form');
    // 'Cancel' hides the form again.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(form.count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Add Race +' }).click();
    // Name is required: the browser refuses to submit an empty form (no request is made).
    let posted = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/director/races')) posted++;
    });
    await form.getByRole('button', { name: 'Create Race' }).click();
    await expect(
      form.getByLabel('Name').evaluate((el: HTMLInputElement) => el.validity.valueMissing),
    ).resolves.toBe(true);
    expect(posted).toBe(0);

    await form.getByLabel('Name').fill(RACE.Name);
    await form.getByLabel('Description').fill(RACE.Description);
    await form.getByLabel('Location').fill(RACE.Location);
    await form.getByLabel('StartTime').fill(RACE.StartTime);
    await form.getByRole('button', { name: 'Create Race' }).click();
    const card = page.getByTestId('race-card').filter({ hasText: RACE.Name });
    await card.waitFor();
    expect(posted).toBe(1);
    await expect(form.count()).resolves.toBe(0);
    const facts = Object.fromEntries(
      await card
        .locator('dl.facts > div')
        .evaluateAll((divs) =>
          divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]),
        ),
    );
    expect(facts).toMatchObject({ Location: RACE.Location, Started: 'N', Finished: 'N', Approved: 'N' });
    await shoot(page, 'my-races');

    // An unapproved race opens through the director endpoints.
    await card.getByRole('link').click();
    await page.waitForURL(/\/race\/unapproved\/\d+$/);
    raceId = Number(page.url().split('/').pop());
    await page.locator('h1.race-title').waitFor();
    await expect(page.getByRole('note').textContent()).resolves.toContain(
      "waiting for an administrator's approval",
    );
    // …and says what can be done meanwhile, and why there is no device column yet.
    await expect(page.getByRole('note').textContent()).resolves.toContain(
      'tracking devices are handed to runners once it is approved',
    );
    // No start and no device assignment before approval; the live panel is not shown either.
    await expect(page.getByRole('button', { name: 'Start Race' }).count()).resolves.toBe(0);
    await expect(page.getByRole('columnheader', { name: 'Device' }).count()).resolves.toBe(0);
    await expect(page.locator('.live-panel').count()).resolves.toBe(0);
    await shoot(page, 'race-unapproved');

    // Upload without a file: the spec's alert, and nothing is sent.
    await page.getByRole('button', { name: 'Upload course' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({ type: 'alert', message: 'Please select a GPX file first.' });
    await expect(page.getByLabel('GPX file').getAttribute('accept')).resolves.toBe('.gpx');
    await expect(page.getByTestId('course-section').textContent()).resolves.toContain(
      'No course has been uploaded yet.',
    );
  });

  it('admin approves it in Race Requests (declining the confirmation first changes nothing)', async () => {
    const { page } = admin;
    await navLink(page, 'Race Requests').click();
    await page.waitForURL(`${server.url}/race-requests`);
    const card = page.getByTestId('request-card').filter({ hasText: RACE.Name });
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain(RACE.Location);
    await expect(card.textContent()).resolves.toContain(RACE.Description);
    // From GET /api/admin/requests/{raceId}: how far the director got before approval.
    await expect(card.getByTestId('request-runners').textContent()).resolves.toBe('0');
    await expect(card.getByTestId('request-course').textContent()).resolves.toBe('Not uploaded yet');
    await shoot(page, 'race-requests');

    adminDialogs.declineNext();
    let approveCalls = 0;
    page.on('request', (r) => {
      if (r.url().includes('/api/admin/requests/approve/')) approveCalls++;
    });
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => adminDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to approve this race?',
      });
    await settle(page);
    expect(approveCalls).toBe(0);
    await expect(card.count()).resolves.toBe(1);

    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No pending requests.').waitFor();
    expect(approveCalls).toBe(1);
    await shoot(page, 'race-requests-empty');
  });

  it('admin adds a device (empty name alerts, name is trimmed) and assigns it to the race', async () => {
    const { page } = admin;
    await navLink(page, 'Devices').click();
    await page.waitForURL(`${server.url}/add-device`);
    await page.getByText('No devices yet.').waitFor();
    await page.getByRole('button', { name: 'Add Device +' }).click();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    const name = page.getByLabel('Name');
    await name.fill('   ');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => adminDialogs.last()).toEqual({ type: 'alert', message: 'Please enter a name' });
    await expect(page.getByTestId('device-row').count()).resolves.toBe(0);

    const sent: unknown[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/admin/devices')) sent.push(r.postDataJSON());
    });
    await name.fill('  Tracker Alpha  ');
    await page.getByRole('button', { name: 'Save' }).click();
    const alpha = page.getByTestId('device-row').filter({ hasText: 'Tracker Alpha' });
    await alpha.waitFor();
    expect(sent).toEqual([{ Name: 'Tracker Alpha' }]);
    await expect(alpha.locator('th').textContent()).resolves.toBe('Tracker Alpha');
    // A second device, to be deleted later.
    await page.getByRole('button', { name: 'Add Device +' }).click();
    await page.getByLabel('Name').fill('Tracker Bravo');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('device-row').filter({ hasText: 'Tracker Bravo' }).waitFor();

    await alpha.getByRole('button', { name: 'Assign to race' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Race').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Confirm' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    const offered = await dialog.locator('select option').allTextContents();
    expect(offered).toContain(RACE.Name);
    expect(offered).not.toContain(startedRaceName);
    await shoot(page, 'devices-assign-dialog');
    await dialog.getByLabel('Race').selectOption({ label: RACE.Name });
    await expect(confirm.isDisabled()).resolves.toBe(false);
    await confirm.click();
    await expect.poll(() => alpha.locator('td[data-label="Race"]').textContent()).toBe(RACE.Name);
    await shoot(page, 'devices');
  });

  it('director uploads the course, adds runners, edits one and cancels an edit', async () => {
    const { page } = director;
    await navLink(page, 'My Races').click();
    const card = page.getByTestId('race-card').filter({ hasText: RACE.Name });
    await expect.poll(() => card.locator('dd').allTextContents()).toContain('Y'); // Approved: Y
    await card.getByRole('link').click();
    await page.waitForURL(`${server.url}/race/${raceId}`);
    await page.locator('h1.race-title').waitFor();
    await expect(page.getByRole('note').count()).resolves.toBe(0);

    await page.getByLabel('GPX file').setInputFiles({
      name: 'canyon.gpx',
      mimeType: 'application/gpx+xml',
      buffer: gpxTrack({ name: 'Canyon loop' }),
    });
    await page.getByRole('button', { name: 'Upload course' }).click();
    const course = page.getByTestId('course-section');
    await page.getByTestId('course-length').waitFor();
    await expect(page.getByTestId('course-length').textContent()).resolves.toBe('4.99 km');
    await expect(page.getByTestId('course-climb').textContent()).resolves.toBe('150 m');
    const mapLink = course.getByRole('link', { name: /View course map/ });
    const href = (await mapLink.getAttribute('href'))!;
    expect(href).toBeTruthy();
    const mapResponse = await page.request.get(new URL(href, server.url).toString());
    expect(mapResponse.ok()).toBe(true);

    // Add two runners; Gender defaults to M.
    for (const r of [
      { first: 'Maya', last: 'Chen', bib: '101', gender: 'F', age: '29' },
      { first: 'Tom', last: 'Reyes', bib: '102', gender: null, age: '41' },
    ]) {
      await page.getByRole('button', { name: 'Add Runner +' }).click();
      const form = page.getByRole('form', { name: 'New runner' });
      await expect(form.getByLabel('Gender').inputValue()).resolves.toBe('M');
      await expect(form.getByLabel('Gender').locator('option').allTextContents()).resolves.toEqual([
        'M',
        'F',
      ]);
      await form.getByLabel('FirstName').fill(r.first);
      await form.getByLabel('LastName').fill(r.last);
      await form.getByLabel('BibNumber').fill(r.bib);
      if (r.gender) await form.getByLabel('Gender').selectOption(r.gender);
      await form.getByLabel('Age').fill(r.age);
      await form.getByRole('button', { name: 'Add Runner' }).click();
      await row(page, `${r.first} ${r.last}`).waitFor();
    }
    await expect(row(page, 'Tom Reyes').locator('td[data-label="Gender"]').textContent()).resolves.toBe('M');
    await expect(row(page, 'Maya Chen').locator('td[data-label="Gender"]').textContent()).resolves.toBe('F');

    // Edit, then Cancel: the original values come back and nothing is sent.
    let puts = 0;
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/api/director/runners/')) puts++;
    });
    await row(page, 'Tom Reyes').getByRole('button', { name: 'Edit' }).click();
    let edit = page.getByRole('form', { name: 'Edit Tom Reyes' });
    await edit.getByLabel('FirstName').fill('Tommy');
    await edit.getByLabel('Age').fill('99');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await expect(row(page, 'Tom Reyes').locator('td[data-label="Age"]').textContent()).resolves.toBe('41');
    expect(puts).toBe(0);
    // Reopening the editor shows the stored values, not the abandoned ones.
    await row(page, 'Tom Reyes').getByRole('button', { name: 'Edit' }).click();
    edit = page.getByRole('form', { name: 'Edit Tom Reyes' });
    await expect(edit.getByLabel('FirstName').inputValue()).resolves.toBe('Tom');
    await expect(edit.getByLabel('Age').inputValue()).resolves.toBe('41');
    await edit.getByLabel('LastName').fill('Reyes-Vidal');
    await edit.getByLabel('Gender').selectOption('F');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row(page, 'Tom Reyes-Vidal').waitFor();
    expect(puts).toBe(1);
    await expect(row(page, 'Tom Reyes-Vidal').locator('td[data-label="Gender"]').textContent()).resolves.toBe(
      'F',
    );
    await shoot(page, 'race-detail-owner');
  });

  it('director edits the race: the StartTime editor shows the first 16 characters, Cancel restores, Save stores', async () => {
    const { page } = director;
    await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
    const form = page.getByRole('form', { name: 'Edit race' });
    await expect(form.getByLabel('StartTime').inputValue()).resolves.toBe(RACE.StartTime);
    await expect(form.getByLabel('Name').inputValue()).resolves.toBe(RACE.Name);
    await form.getByLabel('Name').fill('Something else');
    await form.getByLabel('Location').fill('Nowhere');
    await shoot(page, 'race-detail-edit');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.locator('h1.race-title').textContent()).resolves.toBe(RACE.Name);
    await expect(page.getByTestId('race-location').textContent()).resolves.toBe(RACE.Location);

    await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
    await expect(form.getByLabel('Name').inputValue()).resolves.toBe(RACE.Name);
    await form.getByLabel('Location').fill('Moab, Utah');
    await form.getByLabel('StartTime').fill('2027-03-20T08:45');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('race-location').textContent()).toBe('Moab, Utah');
    const expected = await page.evaluate(() =>
      new Date('2027-03-20T08:45').toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
    );
    await expect(page.getByTestId('race-start').textContent()).resolves.toBe(expected);
    // The zone those times are in is said next to them.
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await expect(page.getByTestId('time-zone-note').textContent()).resolves.toBe(
      `Times are shown in your time zone (${zone}).`,
    );
  });

  it('director assigns the device to a runner and unassigns it', async () => {
    const { page } = director;
    const maya = row(page, 'Maya Chen');
    await maya.getByRole('button', { name: 'Assign device' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Device').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Confirm' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    // Only the device assigned to this race is available (Tracker Bravo is not).
    await expect(dialog.locator('select option').allTextContents()).resolves.toEqual([
      'Choose…',
      'Tracker Alpha',
    ]);
    await shoot(page, 'runner-assign-dialog');
    await dialog.getByLabel('Device').selectOption({ label: 'Tracker Alpha' });
    await expect(confirm.isDisabled()).resolves.toBe(false);
    await confirm.click();
    await maya.getByRole('button', { name: 'Unassign' }).waitFor();
    // The runner's device is shown by its name (DeviceName in the director's runners), not by its id.
    await expect(maya.getByTestId('runner-device').textContent()).resolves.toBe('Tracker Alpha');

    // The admin sees who holds it.
    await admin.page.reload();
    const alpha = admin.page.getByTestId('device-row').filter({ hasText: 'Tracker Alpha' });
    await expect.poll(() => alpha.locator('td[data-label="Runner"]').textContent()).toBe('Maya Chen');

    await maya.getByRole('button', { name: 'Unassign' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to unassign this device?',
      });
    await maya.getByRole('button', { name: 'Assign device' }).waitFor();
  });

  it('director starts and ends the race, and deletes a runner', async () => {
    const { page } = director;
    await page.getByRole('button', { name: 'Start Race' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to start this race?',
      });
    await page.getByRole('button', { name: 'End Race' }).waitFor();
    await expect(page.getByRole('button', { name: 'Start Race' }).count()).resolves.toBe(0);
    await expect(page.locator('.race-hero .pill').textContent()).resolves.toBe('Live');

    await row(page, 'Tom Reyes-Vidal').getByRole('button', { name: 'Delete' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to delete this runner?',
      });
    await expect.poll(() => row(page, 'Tom Reyes-Vidal').count()).toBe(0);

    await page.getByRole('button', { name: 'End Race' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to end this race?',
      });
    await expect.poll(() => page.locator('.race-hero .pill').textContent()).toBe('Finished');
    await expect(page.getByRole('button', { name: 'End Race' }).count()).resolves.toBe(0);
    await shoot(page, 'race-detail-finished-owner');
  });

  it('a signed-out visitor sees the race in Races and opens its detail, course and runners', async () => {
    const visitor = await newPage(browser);
    const { page } = visitor;
    await page.goto(`${server.url}/races`);
    const card = page.getByTestId('race-card').filter({ hasText: RACE.Name });
    await card.waitFor();
    const facts = Object.fromEntries(
      await card
        .locator('dl.facts > div')
        .evaluateAll((divs) =>
          divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]),
        ),
    );
    expect(facts).toMatchObject({ Location: 'Moab, Utah', HasStarted: 'Y', HasFinished: 'Y' });
    await card.getByRole('link').click();
    await page.waitForURL(`${server.url}/race/${raceId}`);
    await page.getByTestId('course-length').waitFor();
    await expect(page.getByTestId('course-length').textContent()).resolves.toBe('4.99 km');
    await expect(page.getByTestId('runner-row').locator('th').allTextContents()).resolves.toEqual([
      'Maya Chen',
    ]);
    // The tab title names the race: this is the page people share.
    await expect(page.title()).resolves.toBe(`${RACE.Name} · RaceBeacon`);
    await expect(page.getByRole('button', { name: 'Edit' }).count()).resolves.toBe(0);
    await expect(page.getByRole('columnheader', { name: 'Device' }).count()).resolves.toBe(0);
    await shoot(page, 'race-detail-finished-public');
    expect(appErrors(visitor.errors)).toEqual([]);
  });

  it("another director sees the race but none of its owner's controls", async () => {
    const other = await newPage(browser);
    const { page } = other;
    await signIn(page, server.url, 'director2');
    await page.goto(`${server.url}/race/${raceId}`);
    await page.getByTestId('course-length').waitFor();
    await expect(page.locator('h1.race-title').textContent()).resolves.toBe(RACE.Name);
    for (const name of ['Edit', 'Delete', 'Start Race', 'End Race', 'Add Runner +', 'Delete course']) {
      await expect(page.getByRole('button', { name, exact: true }).count(), name).resolves.toBe(0);
    }
    await expect(page.getByRole('columnheader', { name: 'Device' }).count()).resolves.toBe(0);
    // Their own My Races does not list it.
    await navLink(page, 'My Races').click();
    await page.getByText('You have no races yet.').waitFor();
    expect(appErrors(other.errors)).toEqual([]);
  });

  it('director deletes the course, and a whole race; admin unassigns and deletes devices', async () => {
    const { page } = director;
    await page.getByRole('button', { name: 'Delete course' }).click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to delete this course?',
      });
    await page.getByText('No course has been uploaded yet.').waitFor();

    await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    await expect
      .poll(() => directorDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to delete this race?',
      });
    await page.waitForURL(`${server.url}/my-races`);
    await page.getByText('You have no races yet.').waitFor();

    const adminPage = admin.page;
    await adminPage.reload();
    const alpha = adminPage.getByTestId('device-row').filter({ hasText: 'Tracker Alpha' });
    await alpha.waitFor();
    // The race is gone, so Tracker Alpha is free again; give it to no race and delete Bravo.
    const bravo = adminPage.getByTestId('device-row').filter({ hasText: 'Tracker Bravo' });
    await bravo.getByRole('button', { name: 'Delete' }).click();
    await expect
      .poll(() => adminDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to delete this device?',
      });
    await expect.poll(() => bravo.count()).toBe(0);
  });

  it('admin unassigns a device from a race', async () => {
    const { page } = admin;
    const raceName = 'Unassign Test Race';
    await seedRace(server.app, { name: raceName });
    await page.reload();
    const alpha = page.getByTestId('device-row').filter({ hasText: 'Tracker Alpha' });
    await alpha.getByRole('button', { name: 'Assign to race' }).click();
    await page.getByRole('dialog').getByLabel('Race').selectOption({ label: raceName });
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => alpha.locator('td[data-label="Race"]').textContent()).toBe(raceName);
    await alpha.getByRole('button', { name: 'Unassign' }).click();
    await expect
      .poll(() => adminDialogs.last())
      .toEqual({
        type: 'confirm',
        message: 'Are you sure you want to unassign this device?',
      });
    await expect.poll(() => alpha.locator('td[data-label="Race"]').textContent()).toBe('-');
  });

  it('logout returns to the signed-out navigation', async () => {
    const { page } = director;
    await signOut(page, server.url);
    await expect.poll(() => navItems(page)).toEqual(['Home', 'Races', 'Director Login', 'Director SignUp']);
  });

  it('no unexpected console errors and no serious or critical accessibility violations', () => {
    expect(appErrors(director.errors)).toEqual([]);
    expect(appErrors(admin.errors)).toEqual([]);
    expect(a11y).toEqual([]);
  });
});
