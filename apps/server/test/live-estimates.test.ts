import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow, RunnerPositions } from '@racebeacon/domain';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;

/**
 * ETA ranges and the estimated position of a silent runner on the live leaderboard and positions (issue 16):
 * straight 10 km course, aid station at 5 km, OsmAnd trackers expected every 2.5 minutes.
 */
describe.each(dbKinds)('live ETA ranges and estimates (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: now - 60 * MIN, expectedIntervalS: 150 });
    const [silent, onTime] = race.runners;
    // 3 m/s, every 2.5 minutes: the first runner's tracker stops 20 minutes ago at 2.7 km (before the aid station),
    // the second keeps reporting.
    const track = (until: number, speed: number) => {
      const fixes: { t: number; lat: number; lon: number }[] = [];
      for (let m = 2.5; m <= until; m += 2.5)
        fixes.push({ t: now - 60 * MIN + m * MIN, ...pointAlong(speed * m * 60) });
      return fixes;
    };
    await postFixes(t.app, race.raceId, silent, track(15, 3));
    await postFixes(t.app, race.raceId, onTime, track(59, 2.5));
  });
  afterAll(async () => t?.close());

  const leaderboard = async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` });
    expect(res.statusCode).toBe(200);
    return res.json<LeaderboardRow[]>();
  };

  it('a runner silent for longer than the interval has an estimate, capped at the aid station not reached (its range runs on)', async () => {
    const rows = await leaderboard();
    const silent = rows.find((r) => r.RunnerId === race.runners[0].runnerId)!;
    expect(silent.DistanceKm).toBeCloseTo(2.7, 1);
    // 45 minutes silent at 3 m/s would be 10.8 km: the estimate stops at the aid station (5 km).
    expect(silent.EstimatedDistanceKm).toBeGreaterThan(2.7);
    expect(silent.EstimatedDistanceKm).toBeLessThanOrEqual(5.0);
    expect(silent.EstimatedDistanceKmMin).toBeLessThanOrEqual(silent.EstimatedDistanceKm!);
    expect(silent.EstimatedDistanceKmMin).toBeLessThanOrEqual(5.0);
    // The far end of the range runs on past it: silent that long, the runner may well have passed it.
    expect(silent.EstimatedDistanceKmMax).toBeGreaterThan(5.0);
    expect(silent.EstimatedDistanceKmMax).toBeLessThanOrEqual(10.0);
    expect(Math.abs(Date.parse(silent.EstimatedAt!) - now)).toBeLessThan(5 * MIN);
    expect(silent.EstimatedLatitude).toBeCloseTo(pointAlong(silent.EstimatedDistanceKm! * 1000).lat, 4);
    // Not used for the rank: the runner still reporting (further on) is ahead, and the distance is the real one.
    expect(rows[0].RunnerId).toBe(race.runners[1].runnerId);
  });

  it('a runner reporting on time has no estimate, and ETA ranges around the ETA', async () => {
    const onTime = (await leaderboard()).find((r) => r.RunnerId === race.runners[1].runnerId)!;
    expect(onTime.EstimatedDistanceKm).toBeNull();
    expect(onTime.EstimatedAt).toBeNull();
    const [early, eta, late] = [onTime.EtaFinishEarliest, onTime.EtaFinish, onTime.EtaFinishLatest].map((x) =>
      Date.parse(x!),
    );
    expect(early).toBeLessThan(eta);
    expect(late).toBeGreaterThan(eta);
  });

  it('positions carry the estimate for the map; the next real fix ends it', async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/positions` });
    expect(res.statusCode).toBe(200);
    const positions = res.json<RunnerPositions[]>();
    const silent = positions.find((p) => p.RunnerId === race.runners[0].runnerId)!;
    expect(silent.Estimated?.DistanceKm).toBeGreaterThan(2.7);
    expect(positions.find((p) => p.RunnerId === race.runners[1].runnerId)!.Estimated).toBeUndefined();

    await postFixes(t.app, race.raceId, race.runners[0], [{ t: now - 1000, ...pointAlong(4800) }]);
    const after = (await leaderboard()).find((r) => r.RunnerId === race.runners[0].runnerId)!;
    expect(after.DistanceKm).toBeCloseTo(4.8, 1);
    expect(after.EstimatedDistanceKm).toBeNull();
  });
});
