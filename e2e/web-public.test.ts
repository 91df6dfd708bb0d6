import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { appErrors, captureScreen, navItems, seedRace, seedRunner } from './support/web';

// Product name and contact e-mail are configuration: a non-default pair proves the screens read /api/config.
const PRODUCT = 'TrailBeacon';
const CONTACT = 'hello@trailbeacon.example';

let server: RunningServer;
let browser: Browser;
let approvedId: number;
let unapprovedId: number;
const start = new Date('2026-06-14T07:30:00Z');

beforeAll(async () => {
  server = await startServer({ PRODUCT_NAME: PRODUCT, CONTACT_EMAIL: CONTACT });
  browser = await launchBrowser();
  approvedId = await seedRace(server.app, {
    name: 'Ridge Runner 50K',
    description: 'Fifty kilometres along the ridge, with three aid stations.',
    location: 'Boulder, CO',
    startTime: start,
    hasStarted: true,
  });
  await seedRunner(server.app, approvedId, {
    firstName: 'Ana',
    lastName: 'Lopez',
    bibNumber: '7',
    gender: 'F',
    age: 31,
  });
  await seedRunner(server.app, approvedId, {
    firstName: 'Ben',
    lastName: 'Okafor',
    bibNumber: '12',
    age: 44,
  });
  await seedRace(server.app, { name: 'Lakeside 10K', location: 'Madison, WI', startTime: null });
  unapprovedId = await seedRace(server.app, { name: 'Secret Ultra', approved: false });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('signed-out visitor', () => {
  it('home: welcome panel from the configured product name, four selling points, logo box, signed-out navigation', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(server.url);
    const title = page.locator('#welcome-title');
    await expect(title.textContent()).resolves.toBe(`${PRODUCT}live`);
    await expect(page.locator('.welcome-subtitle').textContent()).resolves.toBe('live');
    await expect(page.locator('.welcome-lead').textContent()).resolves.toBe(
      `Welcome to ${PRODUCT} - the ultimate race tracking solution!`,
    );
    await expect(page.locator('.selling-points li .point-text').allTextContents()).resolves.toEqual([
      'live tracking updates every 2.5 minutes',
      'works remotely with no cell service',
      'real-time race leaderboard',
      'easy setup and configuration',
    ]);
    await page.getByTestId('logo-box').waitFor();
    await expect(navItems(page)).resolves.toEqual(['Home', 'Races', 'Director Login', 'Director SignUp']);
    await expect(page.title()).resolves.toBe(PRODUCT);
    expect(await captureScreen(page, 'home')).toEqual([]);
    expect(appErrors(errors)).toEqual([]);
  });

  it('races: approved races only, as cards with local StartTime or a dash and HasStarted/HasFinished Y/N', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${server.url}/races`);
    const cards = page.getByTestId('race-card');
    await cards.first().waitFor();
    await expect(cards.count()).resolves.toBe(2);
    const ridge = cards.filter({ hasText: 'Ridge Runner 50K' });
    const localStart = await page.evaluate(
      (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
      start.toISOString(),
    );
    const facts = async (card: typeof ridge) =>
      Object.fromEntries(
        await card
          .locator('dl.facts > div')
          .evaluateAll((divs) =>
            divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]),
          ),
      );
    await expect(facts(ridge)).resolves.toEqual({
      Location: 'Boulder, CO',
      StartTime: localStart,
      HasStarted: 'Y',
      HasFinished: 'N',
    });
    await expect(ridge.locator('.race-card-desc').textContent()).resolves.toContain('Fifty kilometres');
    await expect(facts(cards.filter({ hasText: 'Lakeside 10K' }))).resolves.toMatchObject({
      StartTime: '-',
      HasStarted: 'N',
      HasFinished: 'N',
    });
    await expect(page.getByText('Secret Ultra').count()).resolves.toBe(0);
    expect(await captureScreen(page, 'races')).toEqual([]);

    // Clicking anywhere on the card opens the race.
    const desc = (await ridge.locator('.race-card-desc').boundingBox())!;
    await page.mouse.click(desc.x + desc.width / 2, desc.y + desc.height / 2);
    await page.waitForURL(`${server.url}/race/${approvedId}`);
    await expect(page.locator('h1.race-title').textContent()).resolves.toBe('Ridge Runner 50K');
    expect(appErrors(errors)).toEqual([]);
  });

  it('race detail: fields, runners, no course yet, the live slot, and no director controls', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${server.url}/race/${approvedId}`);
    await page.locator('h1.race-title').waitFor();
    await expect(page.getByTestId('race-location').textContent()).resolves.toBe('Boulder, CO');
    await expect(page.getByTestId('race-description').textContent()).resolves.toContain('three aid stations');
    const rows = page.getByTestId('runner-row');
    await expect(rows.locator('th').allTextContents()).resolves.toEqual(['Ana Lopez', 'Ben Okafor']);
    await expect(rows.first().locator('td').allTextContents()).resolves.toEqual(['7', 'F', '31']);
    await expect(page.getByTestId('course-section').textContent()).resolves.toContain(
      'No course has been uploaded yet.',
    );
    await page.locator('.live-panel').getByText('Live tracking updates every 2.5 minutes').waitFor();
    for (const name of ['Edit', 'Delete', 'Start Race', 'End Race', 'Add Runner +', 'Assign device']) {
      await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
    }
    await expect(page.locator('input[type=file]').count()).resolves.toBe(0);
    expect(await captureScreen(page, 'race-detail-public')).toEqual([]);
    expect(appErrors(errors)).toEqual([]);
  });

  it('legal pages: effective date October 1, 2025 and a mailto link to the configured contact, linked from the footer', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(server.url);
    for (const [link, heading, shot] of [
      ['Privacy policy', 'Privacy policy', 'privacy-policy'],
      ['Terms of service', 'Terms of service', 'terms-of-service'],
    ] as const) {
      await page.locator('footer').getByRole('link', { name: link }).click();
      await page.waitForURL(`${server.url}/${shot}`);
      // The URL changes as the lazy route's navigation commits; the page renders just after.
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      await expect(page.locator('h1').textContent()).resolves.toBe(heading);
      await expect(page.locator('.legal-effective').textContent()).resolves.toBe(
        'Effective date: October 1, 2025',
      );
      const mail = page.locator(`a[href="mailto:${CONTACT}"]`);
      await expect(mail.textContent()).resolves.toBe(CONTACT);
      expect(await captureScreen(page, shot)).toEqual([]);
    }
    expect(appErrors(errors)).toEqual([]);
  });

  it('keyboard: a skip link first, then every control shows a visible focus ring', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${server.url}/races`);
    await page.getByTestId('race-card').first().waitFor();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    const ring = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        // A race card draws the ring around the whole card for its (stretched) title link.
        const s = getComputedStyle(el.closest('.race-card') ?? el);
        return { text: el.textContent?.trim(), outline: s.outlineStyle, width: parseFloat(s.outlineWidth) };
      });
    const seen: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      const r = await ring();
      seen.push(r.text ?? '');
      expect(r.outline, r.text).not.toBe('none');
      expect(r.width, r.text).toBeGreaterThanOrEqual(2);
    }
    // Header, navigation, then the race cards' links, in reading order.
    expect(seen.slice(0, 5)).toEqual([PRODUCT, 'Home', 'Races', 'Director Login', 'Director SignUp']);
    expect(seen).toContain('Ridge Runner 50K');
    // Enter on a focused card link opens the race.
    while ((await ring()).text !== 'Ridge Runner 50K') await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/race/${approvedId}`);
    expect(appErrors(errors)).toEqual([]);
  });

  it('guards: a signed-out visitor on a signed-in or admin route is sent to /', async () => {
    const { page, errors } = await newPage(browser);
    for (const route of ['/my-races', '/race-requests', '/add-device', `/race/unapproved/${unapprovedId}`]) {
      await page.goto(`${server.url}${route}`);
      await page.locator('#welcome-title').waitFor();
      expect(new URL(page.url()).pathname, route).toBe('/');
    }
    expect(appErrors(errors)).toEqual([]);
  });

  it("a failed API call logs 'API Fetch Error:' and the screen says the race was not found", async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${server.url}/race/${unapprovedId}`);
    await page.getByText('This race could not be found.').waitFor();
    expect(appErrors(errors)).toHaveLength(1);
    expect(appErrors(errors)[0]).toMatch(/^API Fetch Error:/);
    // The rejection carries the server's body.
    const logged = await page.evaluate(async (id) => {
      const seen: unknown[][] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => seen.push(args);
      try {
        await fetch(`/api/open/races/${id}`).then((r) => r.json());
      } finally {
        console.error = original;
      }
      return seen.length;
    }, unapprovedId);
    expect(logged).toBe(0); // a plain fetch does not log: the message above came from the API client
    expect(await captureScreen(page, 'race-not-found')).toEqual([]);
  });

  it("the router's error screen reads 'Unexpected Application Error!'", async () => {
    const { page, errors } = await newPage(browser);
    // A race whose Name is not a string cannot render: the route's error boundary takes over.
    await page.route('**/api/open/races', (route) =>
      route.fulfill({
        contentType: 'application/json',
        body: JSON.stringify([
          { RaceId: 1, Name: { broken: true }, HasStarted: false, HasFinished: false, Approved: true },
        ]),
      }),
    );
    await page.goto(`${server.url}/races`);
    await page.getByRole('heading', { name: 'Unexpected Application Error!' }).waitFor();
    await expect(page.locator('h1').allTextContents()).resolves.toEqual(['Unexpected Application Error!']);
    // React reports the caught render error on the console; that is the only one allowed here.
    expect(errors.length).toBeGreaterThan(0);
    expect(
      appErrors(errors).every((e) => /Objects are not valid as a React child|Minified React error/.test(e)),
    ).toBe(true);
    expect(await captureScreen(page, 'error-screen')).toEqual([]);
  });

  it('the spinner overlay blocks input while a call is in flight, then lets it through', async () => {
    const { page, errors } = await newPage(browser);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let requested!: () => void;
    const seenRequest = new Promise<void>((r) => (requested = r));
    await page.route('**/api/open/races', async (route) => {
      requested();
      await released;
      await route.continue();
    });
    await page.goto(`${server.url}/races`);
    await seenRequest;
    const overlay = page.getByTestId('spinner-overlay');
    await overlay.waitFor();
    const style = await overlay.evaluate((el) => {
      const s = getComputedStyle(el);
      return { position: s.position, bg: s.backgroundColor };
    });
    expect(style.position).toBe('fixed');
    expect(style.bg).toMatch(/rgba\(.*, 0\.\d+\)/); // reduced opacity
    // A real mouse click on the Home link lands on the overlay, not the link: the page stays on /races.
    const box = (await page.locator('nav[aria-label="Main"] a', { hasText: 'Home' }).boundingBox())!;
    const hit = await page.evaluate(
      ([x, y]) => (document.elementFromPoint(x, y) as HTMLElement).dataset.testid ?? null,
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(hit).toBe('spinner-overlay');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    // Keyboard too: the app shell is inert while busy.
    await expect(page.locator('.app-shell').evaluate((el) => (el as HTMLElement).inert)).resolves.toBe(true);
    expect(new URL(page.url()).pathname).toBe('/races');
    release();
    await overlay.waitFor({ state: 'detached' });
    await page.getByTestId('race-card').first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/races');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(`${server.url}/`);
    expect(appErrors(errors)).toEqual([]);
  });
});
