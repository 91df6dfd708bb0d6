import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { races, users } from '../apps/server/src/db/schema';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { signIn } from './support/auth';
import { launchBrowser, newPage, screenshot } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { seedRace } from './support/web';

/**
 * Every screen fits a 375 px phone with nothing cut off (issue 15): each screen is opened at 375 × 800 and every
 * visible element's box is measured against the viewport. An element may only reach past the edge inside a
 * container that clips it on purpose (the Leaflet map) or scrolls horizontally by design — and no screen has one of
 * those today but the map, so any other overflow fails the test with the element named.
 */

const WIDTH = 375;
let server: RunningServer;
let browser: Browser;
let live: SeededRace;
let pendingId: number;
const MIN = 60_000;

interface Overflow {
  element: string;
  left: number;
  right: number;
  text: string;
}

/** Elements whose box (clipped by overflow-hidden ancestors) leaves the viewport horizontally, and the page's scroll width. */
async function measure(
  page: Page,
): Promise<{ overflows: Overflow[]; scrollWidth: number; scrollers: string[] }> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : '';
      const cls =
        typeof el.className === 'string' && el.className.trim()
          ? `.${el.className.trim().split(/\s+/).slice(0, 3).join('.')}`
          : '';
      const testId = el.getAttribute('data-testid');
      return `${el.tagName.toLowerCase()}${id}${cls}${testId ? `[data-testid=${testId}]` : ''}`;
    };
    const overflows: { element: string; left: number; right: number; text: string }[] = [];
    const scrollers = new Set<string>();
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')
        continue;
      let rect = el.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      // Visually hidden helpers (screen-reader text) are 1 px and clipped: not seen, not measured.
      if (rect.width <= 1 && rect.height <= 1) continue;
      let left = rect.left;
      let right = rect.right;
      let clippedAway = false;
      let scrollable = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.clipPath !== 'none' || (s.clip && s.clip !== 'auto')) {
          clippedAway = true;
          break;
        }
        if (s.overflowX === 'hidden' || s.overflowX === 'clip') {
          const r = a.getBoundingClientRect();
          left = Math.max(left, r.left);
          right = Math.min(right, r.right);
          if (right <= left) {
            clippedAway = true;
            break;
          }
        } else if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && a.scrollWidth > a.clientWidth) {
          scrollable = true;
          scrollers.add(describe(a));
          break;
        }
      }
      if (clippedAway || scrollable) continue;
      rect = el.getBoundingClientRect();
      if (left < -0.5 || right > vw + 0.5) {
        overflows.push({
          element: describe(el),
          left: Math.round(left),
          right: Math.round(right),
          text: (el.textContent ?? '').trim().slice(0, 40),
        });
      }
    }
    return { overflows, scrollWidth: document.documentElement.scrollWidth, scrollers: [...scrollers] };
  });
}

async function check(page: Page, name: string) {
  await page.waitForTimeout(400); // layout settles (fonts, lazy chunks, the map's first frame)
  await screenshot(page, `layout-375-${name}`);
  const { overflows, scrollWidth, scrollers } = await measure(page);
  expect(overflows, `${name}: elements past the 375 px viewport`).toEqual([]);
  expect(scrollWidth, `${name}: the page scrolls sideways`).toBeLessThanOrEqual(WIDTH);
  expect(scrollers, `${name}: horizontally scrolling boxes`).toEqual([]);
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const now = Date.now();
  live = await seedLiveRace(server.app.db, {
    runners: 8,
    clockStartMs: now - 90 * MIN,
    expectedIntervalS: 600,
  });
  await server.app.db
    .update(races)
    .set({
      name: 'Grand Raid des Montagnes Extrêmement Longues 2026',
      location: 'Chamonix-Mont-Blanc, Haute-Savoie',
      description: 'A long race with a long name. '.repeat(8),
    })
    .where(eq(races.id, live.raceId));
  for (const [k, r] of live.runners.entries()) {
    await postFixes(server.app, live.raceId, r, [{ t: now - 3 * MIN, ...pointAlong(5200 - k * 400) }]);
  }
  pendingId = await seedRace(server.app, {
    name: 'Traversée Intégrale des Aiguilles Rouges',
    approved: false,
    description: 'An unapproved race with a long description. '.repeat(10),
    location: 'Vallorcine',
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('signed out, at 375 px', () => {
  for (const [name, path] of [
    ['home', () => '/'],
    ['races', () => '/races'],
    ['race-public', () => `/race/${live.raceId}`],
    ['race-text', () => `/race/${live.raceId}/text`],
    ['embed-map', () => `/embed/race/${live.raceId}?view=map`],
    ['embed-leaderboard', () => `/embed/race/${live.raceId}?view=leaderboard`],
    ['checkin-unknown-link', () => '/checkin/not-a-real-token'],
    ['privacy', () => '/privacy-policy'],
  ] as const) {
    it(name, async () => {
      const { page } = await newPage(browser, { width: WIDTH, height: 800 });
      await page.goto(`${server.url}${path()}`);
      await page.locator('body *').first().waitFor();
      if (name === 'race-public') await page.locator('.leaflet-marker-icon').first().waitFor();
      if (name.startsWith('embed'))
        await page.getByRole('link', { name: 'Open the full race page' }).waitFor();
      await check(page, name);
    });
  }
});

describe('director, at 375 px', () => {
  let page: Page;
  beforeAll(async () => {
    ({ page } = await newPage(browser, { width: WIDTH, height: 800 }));
    await signIn(page, server.url, 'director1');
    const [account] = await server.app.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, 'director1@racebeacon.example'));
    await server.app.db.update(races).set({ directorId: account.id }).where(eq(races.id, live.raceId));
    await server.app.db.update(races).set({ directorId: account.id }).where(eq(races.id, pendingId));
  });

  it('my races', async () => {
    await page.goto(`${server.url}/my-races`);
    await page.getByText('Traversée Intégrale des Aiguilles Rouges').first().waitFor();
    await check(page, 'my-races');
  });

  it('race page (director, live race)', async () => {
    await page.goto(`${server.url}/race/${live.raceId}`);
    await page.locator('.leaflet-marker-icon').first().waitFor();
    await check(page, 'race-director');
  });

  it('race page (director, waiting for approval)', async () => {
    await page.goto(`${server.url}/race/unapproved/${pendingId}`);
    await page.getByText('No course has been uploaded yet.').waitFor();
    await check(page, 'race-director-unapproved');
  });

  it('race HQ', async () => {
    await page.goto(`${server.url}/race/${live.raceId}/hq`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.waitForTimeout(800);
    await check(page, 'race-hq');
  });
});

describe('admin, at 375 px', () => {
  let page: Page;
  beforeAll(async () => {
    ({ page } = await newPage(browser, { width: WIDTH, height: 800 }));
    await signIn(page, server.url, 'admin');
  });

  it('race requests', async () => {
    await page.goto(`${server.url}/race-requests`);
    await page.getByTestId('request-card').first().waitFor();
    await check(page, 'race-requests');
  });

  it('devices', async () => {
    await page.goto(`${server.url}/add-device`);
    await page.getByText('Tracker 1', { exact: true }).first().waitFor();
    await check(page, 'devices');
  });
});
