import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { positions } from '../apps/server/src/db/schema';
import {
  pointAlong,
  seedLiveRace,
  type SeededRace,
  type SeededRunner,
} from '../apps/server/test/support/live-seed';

/**
 * The race's story in a real Chromium: the runner page opened from the leaderboard (Follow pins the runner at the
 * top of the leaderboard), the replay slider changing the leader, a link opening the race at a moment, and the
 * race-flow chart drawing one line per runner; screenshots at 1280 and 375 px with nothing wider than the phone.
 */

const MIN = 60_000;
let server: RunningServer;
let browser: Browser;
let race: SeededRace;
const start = Date.now() - 60 * MIN;
const at = (m: number) => start + m * MIN;

/** Fixes received at their own time + 10 s (as a tracker sends them), published like ingestion. */
async function store(runner: SeededRunner, fixes: [minute: number, km: number][]) {
  const rows = await server.app.db
    .insert(positions)
    .values(
      fixes.map(([m, km]) => ({
        deviceId: runner.deviceId,
        raceId: race.raceId,
        runnerId: runner.runnerId,
        fixTime: new Date(at(m)),
        receivedAt: new Date(at(m) + 10_000),
        ...pointAlong(km * 1000),
        batteryPercent: 80,
        source: 'osmand',
      })),
    )
    .returning({ id: positions.id, fixTime: positions.fixTime, receivedAt: positions.receivedAt });
  for (const [k, row] of rows.entries()) {
    await server.app.events.publish({
      type: 'position',
      raceId: race.raceId,
      runnerId: runner.runnerId,
      deviceId: runner.deviceId,
      positionId: row.id,
      fixTime: row.fixTime.toISOString(),
      receivedAt: row.receivedAt.toISOString(),
      ...pointAlong(fixes[k][1] * 1000),
      altitude: null,
      speed: null,
      batteryPercent: 80,
      batteryState: null,
      source: 'osmand',
    });
  }
}

beforeAll(async () => {
  server = await startServer();
  race = await seedLiveRace(server.app.db, { runners: 3, clockStartMs: start, expectedIntervalS: 600 });
  const [r1, r2, r3] = race.runners;
  // Runner 1 leads for the first half hour; runner 2 passes between minutes 30 and 40 and leads now.
  await store(r1, [
    [10, 2.0],
    [20, 3.0],
    [30, 3.5],
    [40, 3.8],
    [55, 4.2],
  ]);
  await store(r2, [
    [10, 1.8],
    [20, 2.9],
    [30, 3.9],
    [40, 5.0],
    [55, 6.5],
  ]);
  await store(r3, [
    [10, 1.0],
    [20, 1.9],
    [30, 2.7],
    [40, 3.4],
    [55, 4.0],
  ]);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(url: string, width: number): Promise<{ page: Page; close(): Promise<void> }> {
  const w = await newPage(browser, { width });
  await w.page.goto(`${server.url}${url}`);
  return {
    page: w.page,
    close: async () => {
      expect(w.errors).toEqual([]);
      await w.context.close();
    },
  };
}

const firstBib = (page: Page) => page.locator('tr.live-row .live-row__bib').first().textContent();
const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

it('opens a runner page from the leaderboard; Follow pins the runner at the top of the leaderboard', async () => {
  for (const width of [1280, 375]) {
    const { page, close } = await open(`/race/${race.raceId}`, width);
    await page.locator('tr.live-row').first().waitFor();
    await expect.poll(() => firstBib(page)).toBe('#2');
    await page.locator(`tr.live-row[data-runner-id="${race.runners[2].runnerId}"] .live-row__page`).click();
    await page.waitForURL(`**/race/${race.raceId}/runner/3`);
    await expect.poll(() => page.locator('#runner-title').textContent()).toContain('Runner3 Test3');
    await expect.poll(() => page.locator('[data-testid="runner-rank"]').textContent()).toBe('3');
    await expect(page.locator('[data-testid="runner-status"]').textContent()).resolves.toBe('Racing');
    await expect(page.locator('.runner-page__facts').textContent()).resolves.toContain('80%');
    // Splits per checkpoint: the course's aid station (km 5) is not reached yet.
    await page.locator('.runner-page__splits tr[data-checkpoint="Aid 1"]').waitFor();
    await page.locator('.runner-page path.live-trail').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Follow' }).click();
    await expect(
      page.getByRole('button', { name: 'Following ✓' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    expect(await noOverflow(page)).toBe(true);
    await screenshot(page, `race-story-runner-${width}`);
    // Back on the race: the followed runner (third) is pinned above the leader and marked on the map.
    await page.getByRole('link', { name: 'Back to the race' }).click();
    await page.locator('tr.live-row').first().waitFor();
    await expect.poll(() => firstBib(page)).toBe('#3');
    await expect(page.locator('tr.live-row.is-pinned').count()).resolves.toBe(1);
    await page.locator('.live-runner--pinned').waitFor({ state: 'attached' });
    await close();
  }
});

it('the replay slider shows who led at that moment, and a link opens the race at a moment', async () => {
  for (const width of [1280, 375]) {
    const { page, close } = await open(`/race/${race.raceId}`, width);
    await page.locator('tr.live-row').first().waitFor();
    await expect.poll(() => firstBib(page)).toBe('#2');
    const slider = page.getByRole('slider', { name: 'Replay time' });
    await slider.fill(String(at(25)));
    await expect.poll(() => firstBib(page)).toBe('#1');
    await expect(page.locator('.replay-bar').getAttribute('data-replaying')).resolves.toBe('true');
    expect(new URL(page.url()).searchParams.get('t')).toBe(new Date(at(25)).toISOString());
    // "Last seen" is read at the replay's moment: runner 1's last fix then was at minute 20, 5 minutes before (read
    // against the real time it would be 40 minutes and more).
    const leaderRow = page.locator(`tr.live-row[data-runner-id="${race.runners[0].runnerId}"]`);
    await expect.poll(() => leaderRow.locator('.live-row__seen').textContent()).toMatch(/^5 min ago/);
    await expect(leaderRow.getAttribute('data-status')).resolves.toBe('racing');
    await slider.fill(String(at(45)));
    await expect.poll(() => firstBib(page)).toBe('#2');
    expect(await noOverflow(page)).toBe(true);
    await screenshot(page, `race-story-replay-${width}`);
    // Back to live.
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await expect.poll(() => page.locator('.replay-bar').getAttribute('data-replaying')).toBe('false');
    expect(new URL(page.url()).searchParams.get('t')).toBeNull();
    await close();
  }
  // A link at minute 25 opens the race there.
  const { page, close } = await open(`/race/${race.raceId}?t=${new Date(at(25)).toISOString()}`, 1280);
  await page.locator('tr.live-row').first().waitFor();
  await expect.poll(() => firstBib(page)).toBe('#1');
  await close();
});

it('the race-flow chart draws one line per runner; hovering a line names the runner', async () => {
  for (const width of [1280, 375]) {
    const { page, close } = await open(`/race/${race.raceId}`, width);
    const chart = page.locator('[data-testid="flow-chart"]');
    await chart.waitFor();
    await expect(chart.locator('g.flow-runner').count()).resolves.toBe(3);
    for (const r of race.runners) {
      await expect(chart.locator(`g.flow-runner[data-runner-id="${r.runnerId}"] path`).count()).resolves.toBe(
        1,
      );
    }
    await expect(chart.locator('.flow-chart__checkpoint[data-checkpoint="Aid 1"]').count()).resolves.toBe(1);
    // Hover the end of runner 2's line (its newest point), the chart on screen.
    await chart.scrollIntoViewIfNeeded();
    const end = await chart
      .locator(`g.flow-runner[data-runner-id="${race.runners[1].runnerId}"] path`)
      .evaluate((p: SVGPathElement) => {
        const pt = p.getPointAtLength(p.getTotalLength());
        const m = p.getScreenCTM()!;
        return { x: pt.x * m.a + m.e, y: pt.y * m.d + m.f };
      });
    await page.mouse.move(end.x, end.y);
    await expect.poll(() => page.locator('.flow-chart__picked').textContent()).toContain('Runner2 Test2');
    expect(await noOverflow(page)).toBe(true);
    await screenshot(page, `race-story-flow-${width}`);
    await close();
  }
});
