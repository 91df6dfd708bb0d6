import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { seriousA11yViolations } from './support/web';
import { races } from '../apps/server/src/db/schema';
import { raceEventsOnBus } from '../apps/server/src/lib/race-events';
import { RaceService } from '../apps/server/src/races/service';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';

/**
 * The live panel through a race's life in a real Chromium: before the start it says when the race starts, while
 * running it is live, after End Race it reads as final results (no connection status, nobody "stale", no "N min ago");
 * on a 375 px phone the leaderboard's essentials stay on screen and the map frames the course, as at 1280 px.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let running: SeededRace;
let ending: SeededRace;
let upcoming: SeededRace;
const startsAt = new Date(Date.now() + 3 * 24 * 60 * MIN);

beforeAll(async () => {
  server = await startServer();
  const t0 = Date.now() - 30 * MIN;
  running = await seedLiveRace(server.app.db, { runners: 6, clockStartMs: t0, keyPrefix: 'run' });
  ending = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: t0, keyPrefix: 'end' });
  upcoming = await seedLiveRace(server.app.db, { runners: 2, clockStartMs: t0, keyPrefix: 'up' });
  await server.app.db
    .update(races)
    .set({ hasStarted: false, clockStartedAt: null, startTime: startsAt })
    .where(eq(races.id, upcoming.raceId));
  // Runners of the running race spread along the course, the last fix 1 minute ago (racing, not stale).
  for (const [k, r] of running.runners.entries()) {
    await postFixes(server.app, running.raceId, r, [
      { t: t0 + 20 * MIN, ...pointAlong(800 + 400 * k) },
      { t: Date.now() - MIN, ...pointAlong(1500 + 700 * k) },
    ]);
  }
  // In the race that will end: the last fixes are 10 minutes old, so while live these runners read "No signal".
  for (const [k, r] of ending.runners.slice(0, 2).entries()) {
    await postFixes(server.app, ending.raceId, r, [
      { t: Date.now() - 10 * MIN, ...pointAlong(1000 + 500 * k) },
    ]);
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(raceId: number, width: number): Promise<{ page: Page; close(): Promise<void> }> {
  const w = await newPage(browser, { width });
  await w.page.goto(`${server.url}/race/${raceId}`);
  await w.page.locator('.live-panel__head').waitFor();
  await w.page.locator('tr.live-row').first().waitFor();
  return {
    page: w.page,
    close: async () => {
      expect(w.errors).toEqual([]);
      await w.context.close();
    },
  };
}

/** The course line's box relative to the map's box, once the map has framed it. */
async function courseInMap(page: Page) {
  await page.locator('path.live-course').waitFor({ state: 'attached' });
  return page.evaluate(() => {
    const map = document.querySelector('.live-map')!.getBoundingClientRect();
    const course = document.querySelector('path.live-course')!.getBoundingClientRect();
    return {
      inside:
        course.left >= map.left &&
        course.right <= map.right &&
        course.top >= map.top &&
        course.bottom <= map.bottom,
      // How much of the map the course spans in its limiting direction.
      fill: Math.max(course.width / map.width, course.height / map.height),
    };
  });
}

it('reads as final results once End Race is pressed, live until then', async () => {
  const { page, close } = await open(ending.raceId, 1280);
  const head = page.locator('.live-panel__head');
  await page.locator('[data-status="live"]').waitFor();
  expect(server.app.live.viewerCount(ending.raceId)).toBe(1);
  await expect(head.textContent()).resolves.toContain('Live tracking updates every 2.5 minutes');
  await expect(page.locator('.hero-top .pill').textContent()).resolves.toBe('Live');
  await expect(page.locator('.live-status', { hasText: 'No signal' }).count()).resolves.toBe(2);

  const races = new RaceService(server.app.db, raceEventsOnBus(server.app.events, server.app.log));
  await races.endRace('dir-live', ending.raceId);

  // The open page switches by itself: results, the time the race finished, no live connection status.
  await page.locator('[data-status="final"]').waitFor();
  // ...and lets go of the live stream: the page is still open, but the server has no viewer of this race left.
  await expect.poll(() => server.app.live.viewerCount(ending.raceId)).toBe(0);
  await expect(page.locator('#live-title').textContent()).resolves.toBe('Final results');
  // The race header follows the stream too: the pill no longer says Live.
  await expect(page.locator('.hero-top .pill').textContent()).resolves.toBe('Finished');
  await expect(head.textContent()).resolves.toMatch(/Race finished at \d{1,2}:\d{2}/);
  await expect(head.textContent()).resolves.not.toContain('Connected');
  await expect(head.textContent()).resolves.not.toContain('Live tracking updates');
  await expect(page.locator('.live-connection').count()).resolves.toBe(0);
  // Nobody is stale after the end: runners out on the course read "Not finished", no "N min ago" urgency.
  const statuses = await page.locator('tr.live-row .live-status').allTextContents();
  expect(statuses).toEqual(['Not finished', 'Not finished', 'Not started']);
  await expect(page.locator('.live-runner--stale').count()).resolves.toBe(0);
  await expect(page.locator('.live-runner--unfinished').count()).resolves.toBe(2);
  const seen = await page.locator('tr.live-row .live-row__seen').allTextContents();
  expect(seen.slice(0, 2).every((s) => /^\d{1,2}:\d{2}/.test(s) && !s.includes('ago'))).toBe(true);
  await screenshot(page, 'live-race-final-results');
  await close();

  // A fresh visit shows the same results, and the browser does not hold the live stream open afterwards.
  const again = await open(ending.raceId, 375);
  await again.page.locator('[data-status="final"]').waitFor();
  await expect.poll(() => server.app.live.viewerCount(ending.raceId)).toBe(0);
  await expect(again.page.locator('.live-row__phone .live-badge').first().textContent()).resolves.toBe(
    'Not finished',
  );
  await again.close();
});

it('says when a race not yet started begins, with everyone not started', async () => {
  const { page, close } = await open(upcoming.raceId, 1280);
  const head = page.locator('.live-panel__head');
  await expect(page.locator('.live-phase--upcoming').textContent()).resolves.toMatch(/^Starts \w{3}/);
  await expect(head.getAttribute('data-phase')).resolves.toBe('upcoming');
  await expect(head.textContent()).resolves.toContain('Live tracking updates every 2.5 minutes');
  await expect(page.locator('tr.live-row .live-status').allTextContents()).resolves.toEqual([
    'Not started',
    'Not started',
  ]);
  await close();
});

it('keeps the leaderboard essentials on a 375 px phone without page overflow', async () => {
  const { page, close } = await open(running.raceId, 375);
  await page.locator('[data-status="live"]').waitFor();
  await expect(page.locator('.live-panel__head').textContent()).resolves.toContain(
    'Live tracking updates every 2.5 minutes',
  );
  const layout = await page.evaluate(() => {
    const scroll = document.querySelector('.live-board__scroll')!;
    const rows = Array.from(document.querySelectorAll('tr.live-row')).map((tr) => {
      const visible = (sel: string) => {
        const el = tr.querySelector(sel);
        const r = el?.getBoundingClientRect();
        return !!r && r.width > 0 && r.left >= 0 && r.right <= window.innerWidth;
      };
      return {
        rank: visible('.live-row__rank'),
        runner: visible('.live-row__runner'),
        status: visible('.live-row__phone .live-badge'),
        more: visible('.live-row__more'),
      };
    });
    return {
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
      tableOverflow: scroll.scrollWidth - scroll.clientWidth,
      rows,
    };
  });
  expect(layout.pageOverflow).toBeLessThanOrEqual(0);
  expect(layout.tableOverflow).toBeLessThanOrEqual(0);
  expect(layout.rows).toHaveLength(6);
  for (const r of layout.rows) expect(r).toEqual({ rank: true, runner: true, status: true, more: true });
  // The essentials column: status, distance, last seen; pace and the rest on the line under the name.
  const first = page.locator('tr.live-row').first();
  await expect(first.locator('.live-row__phone').textContent()).resolves.toMatch(
    /^Racing\d+\.\d{2} km(just now|1 min ago|2 min ago)$/,
  );
  await expect(first.locator('.live-row__more').first().textContent()).resolves.toMatch(/\d+\.\d%.*\/km/);

  // The map frames the whole course on the phone.
  const phone = await courseInMap(page);
  expect(phone.inside).toBe(true);
  expect(phone.fill).toBeGreaterThan(0.6);
  await screenshot(page, 'live-race-phone-leaderboard');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await close();
});

it('frames the course at 1280 px, and again after the window shrinks to a phone', async () => {
  const { page, close } = await open(running.raceId, 1280);
  const wide = await courseInMap(page);
  expect(wide.inside).toBe(true);
  expect(wide.fill).toBeGreaterThan(0.6);
  // Rotating / resizing: Leaflet is told the new size and the course is framed again.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.waitForFunction(() => {
    const map = document.querySelector('.live-map')!.getBoundingClientRect();
    const c = document.querySelector('path.live-course')!.getBoundingClientRect();
    return (
      map.width < 375 &&
      c.top >= map.top &&
      c.bottom <= map.bottom &&
      Math.max(c.width / map.width, c.height / map.height) > 0.6
    );
  });
  const narrow = await courseInMap(page);
  expect(narrow.inside).toBe(true);
  expect(narrow.fill).toBeGreaterThan(0.6);
  await close();
});
