import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowAnswer, ReplayAnswer } from '@racebeacon/domain';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { positions } from '../src/db/schema';
import { pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres';

/**
 * The race's story while the database is away, on a private PostgreSQL cluster this test stops and starts (never the
 * shared one): the replay, the race-flow chart and the text view answer 503 — `{error, message}` with Retry-After for
 * an API client, a readable page for a browser on the text view — and answer again by themselves once it is back.
 * The race is not in memory before the outage (a race already loaded keeps answering from memory, as the live routes
 * do).
 */

const MIN = 60_000;

describe('replay, flow and the text view with the database away (private cluster)', () => {
  let cluster: PrivatePostgres;
  let app: FastifyInstance;
  let race: SeededRace;
  const start = Date.now() - 60 * MIN;
  const get = (url: string, accept?: string) =>
    app.inject({ method: 'GET', url, headers: accept ? { accept } : {} });

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    const config = loadConfig({
      DATABASE_URL: cluster.url(),
      PUBLIC_URL: 'http://localhost:3000',
      DEMO: 'off',
      LOG_LEVEL: 'warn',
      // No alert sweep: it would load the race's live state before the outage.
      ALERT_SWEEP_SECONDS: '0',
    });
    app = await buildApp({ config, logger: false });
    race = await seedLiveRace(app.db, { runners: 2, clockStartMs: start, expectedIntervalS: 600 });
    // Fixes stored straight away (no event: nothing loads the race into memory before the outage).
    await app.db.insert(positions).values(
      race.runners.flatMap((r, k) =>
        [10, 20, 30].map((m) => ({
          deviceId: r.deviceId,
          raceId: race.raceId,
          runnerId: r.runnerId,
          fixTime: new Date(start + m * MIN),
          receivedAt: new Date(start + m * MIN + 10_000),
          ...pointAlong(m * (100 + 20 * k)),
          batteryPercent: 70,
          source: 'osmand',
        })),
      ),
    );
  });

  afterAll(async () => {
    await app?.close();
    await cluster?.destroy();
  });

  it('503 while it is down, and answers again by itself once it is back', async () => {
    const replayUrl = `/api/open/races/${race.raceId}/replay?at=${new Date(start + 25 * MIN).toISOString()}`;
    const flowUrl = `/api/open/races/${race.raceId}/flow`;
    const textUrl = `/race/${race.raceId}/text`;

    await cluster.stop();
    for (const url of [replayUrl, flowUrl, textUrl]) {
      const res = await get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ error: 'database_unavailable', message: expect.any(String) });
    }
    // A browser on the text view: a readable page (no JSON, no stack), reloading itself after Retry-After.
    const page = await get(textUrl, 'text/html,application/xhtml+xml');
    expect(page.statusCode).toBe(503);
    expect(page.headers['retry-after']).toBe('5');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<h1>Results unavailable for a moment</h1>');
    expect(page.body).toContain('<meta http-equiv="refresh" content="5">');
    expect(page.body).not.toMatch(/database_unavailable|ECONNREFUSED|\n\s+at /);

    await cluster.start();
    // Back by itself (the pool reconnects): poll until the replay answers, then every route does.
    await expect
      .poll(async () => (await get(replayUrl)).statusCode, { timeout: 30_000, interval: 200 })
      .toBe(200);
    const replay = (await get(replayUrl)).json<ReplayAnswer>();
    expect(replay.At).toBe(new Date(start + 25 * MIN).toISOString());
    // Runner 2 (faster) leads at minute 25 with the fix of minute 20: 2.4 km.
    expect(replay.Leaderboard.map((r) => [r.BibNumber, r.Rank])).toEqual([
      ['2', 1],
      ['1', 2],
    ]);
    expect(replay.Leaderboard[0].DistanceKm).toBeCloseTo(2.4, 1);
    const flow = await get(flowUrl);
    expect(flow.statusCode).toBe(200);
    expect(flow.json<FlowAnswer>().Runners).toHaveLength(2);
    const text = await get(textUrl, 'text/html');
    expect(text.statusCode).toBe(200);
    expect(text.body).toContain('Live Test Race');
  });
});
