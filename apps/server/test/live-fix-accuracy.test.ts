import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow, ReplayAnswer } from '@racebeacon/domain';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace, type SeededRunner } from './support/live-seed';

const MIN = 60_000;

/**
 * Issue 23: the accuracy a device reports with a fix reaches the matcher (σ = max(15 m, accuracy)), through the event
 * bus (a race already in memory), from the database (a race loaded after its fixes) and in the replay. The geometry of
 * the domain's course-accuracy test: 3 m/s along a straight course, a fix every 2.5 minutes, the fifth (the latest,
 * 2250 m along) 85 m off the course. Sent without an accuracy it is held as an outlier (the runner stays at the
 * fourth fix, 1800 m); sent with `accuracy=60` it is believed, at its place along the course.
 */
describe.each(dbKinds)('fix accuracy reaches the matcher (%s)', (kind) => {
  let t: TestContext;
  const now = Date.now();
  const start = now - 15 * MIN;

  /** Five OsmAnd pings through the real endpoint; the last 85 m east of the course, with `accuracy` if given. */
  const ping = async (runner: SeededRunner, accuracy?: number) => {
    for (let k = 0; k < 5; k++) {
      const url = new URL(
        osmandUrl('http://x', runner, {
          t: start + 2.5 * (k + 1) * MIN,
          ...pointAlong(450 * (k + 1), k === 4 ? 85 : 0),
        }),
      );
      if (k === 4 && accuracy !== undefined) url.searchParams.set('accuracy', String(accuracy));
      const res = await t.app.inject({ method: 'POST', url: `${url.pathname}${url.search}` });
      expect(res.statusCode, res.body).toBe(200);
    }
  };
  const distanceM = async (race: SeededRace, k: number, path = 'leaderboard') => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/${path}` });
    expect(res.statusCode, res.body).toBe(200);
    const rows = path === 'leaderboard' ? res.json<LeaderboardRow[]>() : res.json<ReplayAnswer>().Leaderboard;
    return rows.find((r) => r.RunnerId === race.runners[k].runnerId)!.DistanceKm! * 1000;
  };

  let loadedFirst: SeededRace;
  let storedFirst: SeededRace;

  beforeAll(async () => {
    t = await createTestApp(kind);
    // In memory before its fixes arrive (they come through the event bus).
    loadedFirst = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: start, keyPrefix: 'acc-live' });
    expect(
      (await t.app.inject({ url: `/api/open/races/${loadedFirst.raceId}/leaderboard` })).statusCode,
    ).toBe(200);
    await ping(loadedFirst.runners[0], 60);
    await ping(loadedFirst.runners[1]);
    // Fixes stored before anyone reads the race (loaded from the database).
    storedFirst = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: start, keyPrefix: 'acc-db' });
    await ping(storedFirst.runners[0], 60);
    await ping(storedFirst.runners[1]);
  });
  afterAll(async () => t?.close());

  it('through the event bus: with accuracy 60 the fix 85 m off is placed near 2250 m; without it the runner stays at 1800 m', async () => {
    expect(Math.abs((await distanceM(loadedFirst, 0)) - 2250)).toBeLessThan(30);
    expect(Math.abs((await distanceM(loadedFirst, 1)) - 1800)).toBeLessThan(30);
  });

  it('from the database when the race is loaded', async () => {
    expect(Math.abs((await distanceM(storedFirst, 0)) - 2250)).toBeLessThan(30);
    expect(Math.abs((await distanceM(storedFirst, 1)) - 1800)).toBeLessThan(30);
  });

  it('in the replay', async () => {
    const q = `replay?at=${encodeURIComponent(new Date(Date.now()).toISOString())}`;
    expect(Math.abs((await distanceM(storedFirst, 0, q)) - 2250)).toBeLessThan(30);
    expect(Math.abs((await distanceM(storedFirst, 1, q)) - 1800)).toBeLessThan(30);
  });
});
