import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot, type WatchedPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { seriousA11yViolations } from './support/web';
import {
  osmandUrl,
  pointAlong,
  seedLiveRace,
  type SeededRace,
  type SeededRunner,
} from '../apps/server/test/support/live-seed';

/**
 * The live race in a real Chromium: a simulated race fed through the real OsmAnd ingest endpoint, the map with the
 * course and moving runner markers, the leaderboard reordering when one runner passes another, following a runner,
 * and a second tab receiving the same updates.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
let t0: number;

/** Distance of each simulated runner at minute m after the clock start. B leads, then slows at an aid station. */
const paceA = (m: number) => 180 * m; // 3.0 m/s
const paceB = (m: number) => (m <= 20 ? 192 * m : 3840 + 66.7 * (m - 20)); // 3.2 m/s, then ~1.1 m/s
const paceC = (m: number) => 150 * m; // 2.5 m/s

async function ping(runner: SeededRunner, minute: number, distanceM: number) {
  const fix = { t: t0 + Math.round(minute * MIN), ...pointAlong(distanceM), batteryPercent: 90 - minute };
  const res = await fetch(osmandUrl(server.url, runner, fix));
  if (res.status !== 200) throw new Error(`ping refused: ${res.status} ${await res.text()}`);
}

/** One round of pings at `minute` for runners A, B, C (D never sends anything). */
async function round(minute: number) {
  const [a, b, c] = race.runners;
  await ping(a, minute, paceA(minute));
  await ping(b, minute, paceB(minute));
  await ping(c, minute, paceC(minute));
}

beforeAll(async () => {
  server = await startServer();
  // The last live round (minute 24.5) is 1.5 minutes ago: runners are 'racing', not stale, at the end.
  t0 = Date.now() - 26 * MIN;
  race = await seedLiveRace(server.app.db, { runners: 4, clockStartMs: t0 });
  // History: pings every 2.5 minutes for the first 20 minutes.
  for (let m = 2.5; m <= 20; m += 2.5) await round(m);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pin = (page: Page, runnerId: number) => page.locator(`.live-runner__pin[data-runner-id="${runnerId}"]`);

async function markerPosition(page: Page, runnerId: number) {
  const box = await pin(page, runnerId).boundingBox();
  if (!box) throw new Error(`no marker for runner ${runnerId}`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function leaderboardOrder(page: Page): Promise<string[]> {
  return page
    .locator('tr.live-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-runner-id') ?? ''));
}

async function openRace(width = 1280): Promise<WatchedPage> {
  const w = await newPage(browser, { width });
  await w.page.goto(`${server.url}/race/${race.raceId}`);
  await w.page.getByText('Live tracking updates every 2.5 minutes').waitFor();
  await w.page.locator('.live-runner__pin').nth(2).waitFor();
  // Record whether the blocking spinner ever shows from now on: live updates must not trigger it.
  await w.page.evaluate(() => {
    const win = window as unknown as { spinnerSeen: boolean };
    win.spinnerSeen = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="spinner-overlay"]')) win.spinnerSeen = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
  return w;
}

it('runs a simulated race: course, moving markers, reordering, following, and a second tab', async () => {
  const [a, b, c, d] = race.runners;
  const one = await openRace();
  const { page } = one;

  // The course and its markers are drawn; runners with a position have a bib-labelled marker, D has none yet.
  await expect(page.locator('path.live-course').count()).resolves.toBe(1);
  await expect(page.locator('.live-km').count()).resolves.toBe(9);
  await expect(page.locator('.live-flag--start').count()).resolves.toBe(1);
  await expect(page.locator('.live-runner__pin').count()).resolves.toBe(3);
  await expect(pin(page, a.runnerId).textContent()).resolves.toBe(a.bib);
  await expect(pin(page, d.runnerId).count()).resolves.toBe(0);
  await expect(page.locator('.live-profile__runner').count()).resolves.toBe(3);
  expect(await leaderboardOrder(page)).toEqual([b, a, c, d].map((r) => String(r.runnerId)));
  await expect(page.locator(`tr.live-row[data-runner-id="${d.runnerId}"]`).textContent()).resolves.toContain(
    'Not started',
  );
  // The history ends 6 minutes ago (more than two missed 2.5-minute pings): everyone seen is stale, and looks it.
  await expect(page.locator('.live-runner--stale .live-runner__pin').count()).resolves.toBe(3);
  await expect(
    page.locator(`tr.live-row[data-runner-id="${a.runnerId}"] .live-status`).textContent(),
  ).resolves.toBe('No signal');

  // A second tab on the same race.
  const two = await openRace();

  // Round at minute 21.5: everyone moves north (up the screen); B still leads.
  const before = await markerPosition(page, a.runnerId);
  const ys = await Promise.all([a, b, c].map(async (r) => (await markerPosition(page, r.runnerId)).y));
  await round(21.5);
  await page.waitForFunction(
    ([ids, ys]) =>
      ids.every((id, k) => {
        const el = document.querySelector(`.live-runner__pin[data-runner-id="${id}"]`);
        return !!el && el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2 < ys[k] - 2;
      }),
    [[a, b, c].map((r) => r.runnerId), ys] as const,
  );
  const after = await markerPosition(page, a.runnerId);
  expect(after.y).toBeLessThan(before.y);
  expect(Math.abs(after.x - before.x)).toBeLessThan(3);
  expect((await leaderboardOrder(page))[0]).toBe(String(b.runnerId));

  // Round at minute 23: A passes B; both tabs reorder.
  await round(23);
  for (const p of [page, two.page]) {
    await p.waitForFunction(
      (id) => document.querySelector('tr.live-row')?.getAttribute('data-runner-id') === String(id),
      a.runnerId,
    );
    expect(await leaderboardOrder(p)).toEqual([a, b, c, d].map((r) => String(r.runnerId)));
    await expect(
      p.locator(`tr.live-row[data-runner-id="${a.runnerId}"] .live-row__rank`).textContent(),
    ).resolves.toBe('1');
  }
  // The second tab's marker for A is where the first tab's is (same data, same map size).
  const inTwo = await markerPosition(two.page, a.runnerId);
  const inOne = await markerPosition(page, a.runnerId);
  expect(Math.abs(inTwo.y - inOne.y)).toBeLessThan(2);

  // Follow C from the leaderboard: the control says so, C's marker is highlighted, the map keeps C centred.
  await page.locator(`tr.live-row[data-runner-id="${c.runnerId}"] button.live-row__runner`).click();
  const follow = page.locator('.live-follow');
  await expect(follow.textContent()).resolves.toContain(`Following #${c.bib}`);
  // C (about 3.7 km in) is heading for the aid station at 5 km: named, with the expected arrival, in the
  // leaderboard and in the follow panel.
  await expect(
    page.locator(`tr.live-row[data-runner-id="${c.runnerId}"] .live-row__next`).textContent(),
  ).resolves.toMatch(/^Aid 1 · \d/);
  await expect(follow.textContent()).resolves.toMatch(/next Aid 1 · \d/);
  await expect(
    page.locator('.live-runner--followed .live-runner__pin').getAttribute('data-runner-id'),
  ).resolves.toBe(String(c.runnerId));
  const mapBox = (await page.locator('.live-map').boundingBox())!;
  const centred = () =>
    page.waitForFunction(
      ([id, cx, cy]) => {
        const r = document
          .querySelector(`.live-runner__pin[data-runner-id="${id}"]`)
          ?.getBoundingClientRect();
        return !!r && Math.abs(r.left + r.width / 2 - cx) < 15 && Math.abs(r.top + r.height / 2 - cy) < 15;
      },
      [c.runnerId, mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2] as const,
    );
  await centred();
  const km3 = page.locator('.live-km').nth(2);
  const km3Before = (await km3.boundingBox())!.y;
  // C moves 225 m north: the map pans with it (the course slides down the screen), C stays in the middle.
  await round(24.5);
  const cDistance = page.locator(`tr.live-row[data-runner-id="${c.runnerId}"] td`).nth(3);
  await page.waitForFunction(
    (id) =>
      document
        .querySelectorAll(`tr.live-row[data-runner-id="${id}"] td`)[3]
        ?.textContent?.startsWith('3.6') ?? false,
    c.runnerId,
  );
  await expect(cDistance.textContent()).resolves.toMatch(/^3\.6\d km$/);
  await centred();
  await page.waitForFunction((y) => {
    const el = document.querySelectorAll('.live-km')[2];
    return !!el && el.getBoundingClientRect().y > y + 10;
  }, km3Before);
  await expect(
    page.locator(`tr.live-row[data-runner-id="${c.runnerId}"] .live-status`).textContent(),
  ).resolves.toBe('Racing');
  await expect(
    page.locator(`.live-runner--racing .live-runner__pin[data-runner-id="${c.runnerId}"]`).count(),
  ).resolves.toBe(1);
  await screenshot(page, 'live-race-following');
  await follow.getByRole('button', { name: 'Stop following' }).click();
  await expect(page.locator('.live-follow').count()).resolves.toBe(0);
  await expect(page.locator('.live-runner--followed').count()).resolves.toBe(0);

  // D turns up 500 m off the course: shown, styled and labelled off-course, not moved along the course.
  await ping(d, 25, 0); // at the start line
  await page.locator(`.live-runner--racing .live-runner__pin[data-runner-id="${d.runnerId}"]`).waitFor();
  const off = { t: t0 + 25.5 * MIN, ...pointAlong(1500, 500) };
  expect((await fetch(osmandUrl(server.url, d, off))).status).toBe(200);
  await page.locator(`.live-runner--off-course .live-runner__pin[data-runner-id="${d.runnerId}"]`).waitFor();
  await expect(
    page.locator(`tr.live-row[data-runner-id="${d.runnerId}"] .live-status`).textContent(),
  ).resolves.toBe('Off course');

  // Clicking a marker follows too.
  await pin(page, b.runnerId).click();
  await expect(page.locator('.live-follow').textContent()).resolves.toContain(`Following #${b.bib}`);

  // Search and filters narrow the leaderboard without losing the overall rank.
  await page.getByLabel('Search').fill('Runner3');
  await page.waitForFunction(() => document.querySelectorAll('tr.live-row').length === 1);
  await expect(page.locator('tr.live-row .live-row__rank').textContent()).resolves.toBe('3');
  await page.getByLabel('Search').fill('');
  await page.getByLabel('Gender').selectOption('M');
  await page.waitForFunction(() => document.querySelectorAll('tr.live-row').length === 2);
  // ...and show the place within the category beside it.
  await expect(page.locator('th.live-board__cat').textContent()).resolves.toBe('In M');
  await expect(page.locator('tr.live-row .live-row__cat-rank').allTextContents()).resolves.toEqual([
    '1',
    '2',
  ]);
  await expect(page.locator('tr.live-row').first().getAttribute('data-runner-id')).resolves.toBe(
    String(b.runnerId),
  );

  for (const w of [one, two]) {
    expect(await w.page.evaluate(() => (window as unknown as { spinnerSeen: boolean }).spinnerSeen)).toBe(
      false,
    );
    expect(w.errors).toEqual([]);
  }
  await screenshot(two.page, 'live-race-second-tab');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await one.context.close();
  await two.context.close();
});

it('ticks elapsed time locally between pings, without a request', async () => {
  const [a] = race.runners;
  const w = await newPage(browser, { width: 1280 });
  const { page } = w;
  // The browser's clock runs naturally, and the test can jump it ahead.
  await page.clock.install();
  await page.goto(`${server.url}/race/${race.raceId}`);
  const cell = page.locator(`tr.live-row[data-runner-id="${a.runnerId}"] .live-row__elapsed`);
  await cell.waitFor();
  await page.locator('.live-runner__pin').nth(2).waitFor();
  // Out on the course (racing, or without signal on a slow machine): their clock runs.
  expect(['Racing', 'No signal']).toContain(
    await page.locator(`tr.live-row[data-runner-id="${a.runnerId}"] .live-status`).textContent(),
  );
  const seconds = async () => {
    const [h, m, s] = (await cell.textContent())!.split(':').map(Number);
    return h * 3600 + m * 60 + s;
  };
  const before = await seconds();
  expect(before).toBeGreaterThan(24 * 60);
  const requests: string[] = [];
  // Requests to the app (map tiles may still be loading from the tile server, which is not reachable here).
  page.on('request', (r) => {
    if (r.url().startsWith(server.url)) requests.push(r.url());
  });
  // Half a minute on the browser's clock: the leaderboard's own tick moves the race clock on. The server would say
  // less (its clock did not jump), so a larger value can only come from the browser.
  await page.clock.fastForward(30_000);
  await page.waitForFunction(
    ([sel, min]) => {
      const [h, m, s] = (document.querySelector(sel)?.textContent ?? '').split(':').map(Number);
      return h * 3600 + m * 60 + s >= min;
    },
    [`tr.live-row[data-runner-id="${a.runnerId}"] .live-row__elapsed`, before + 30] as const,
  );
  expect(requests).toEqual([]);
  expect(w.errors).toEqual([]);
  await w.context.close();
});

it('fits a 375 px wide phone screen and stays usable', async () => {
  const w = await openRace(375);
  const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(w.page.locator('.live-map').boundingBox()).resolves.toMatchObject({
    width: expect.any(Number),
  });
  expect((await w.page.locator('.live-map').boundingBox())!.width).toBeLessThanOrEqual(375);
  await screenshot(w.page, 'live-race-375');
  expect(await seriousA11yViolations(w.page)).toEqual([]);
  expect(w.errors).toEqual([]);
  await w.context.close();
});
