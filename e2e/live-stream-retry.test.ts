import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';

/**
 * A live stream the server refuses (too many streams from one address: 429) makes the browser's EventSource give up
 * for good. The live panel must not: it says it is reconnecting, tries again after a back-off, and goes live once a
 * place is free, with the leaderboard it would have had.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;

beforeAll(async () => {
  server = await startServer({ LIVE_MAX_STREAMS_PER_CLIENT: '1' });
  const t0 = Date.now() - 30 * MIN;
  race = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: t0, keyPrefix: 'retry' });
  for (const [k, r] of race.runners.entries()) {
    await postFixes(server.app, race.raceId, r, [{ t: Date.now() - MIN, ...pointAlong(1000 + 500 * k) }]);
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('retries a refused live stream and goes live once a place is free', async () => {
  const first = await newPage(browser);
  await first.page.goto(`${server.url}/race/${race.raceId}`);
  await first.page.locator('.live-connection[data-status="live"]').waitFor();
  expect(server.app.live.viewerCount(race.raceId)).toBe(1);

  // The same address's second stream is refused (cap 1): the panel says it is reconnecting, not stopped.
  const second = await newPage(browser);
  const refused = second.page.waitForResponse(
    (r) => new URL(r.url()).pathname === `/api/open/races/${race.raceId}/live` && r.status() === 429,
  );
  await second.page.goto(`${server.url}/race/${race.raceId}`);
  await refused;
  const status = second.page.locator('.live-connection');
  await expect.poll(() => status.getAttribute('data-status')).toBe('reconnecting');
  await expect.poll(() => status.textContent()).toBe('Reconnecting…');

  // A place frees up: the second page's next try (5 s back-off, jittered) is accepted and shows the race.
  await first.context.close();
  await expect
    .poll(() => status.getAttribute('data-status'), { timeout: 30_000, interval: 500 })
    .toBe('live');
  await expect.poll(() => second.page.locator('tr.live-row').count()).toBe(3);
  expect(server.app.live.viewerCount(race.raceId)).toBe(1);
  // The only console error is the browser's own report of the refused request.
  expect(second.errors.filter((e) => !/429/.test(e))).toEqual([]);
  await second.context.close();
});
