import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import { devices, races, runners } from '../src/db/schema';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { osmandUrl, pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';
import { connectSse } from './support/sse-client';

const MIN = 60_000;

describe.each(dbKinds)('live race API (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let base: string;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 3, clockStartMs: now - 60 * MIN });
    // Trackers that report every 10 minutes: a fix 4 minutes old is current (stale after 3 × 10 min).
    await t.app.db.update(devices).set({ expectedIntervalS: 600 }).where(eq(devices.raceId, race.raceId));
    const [r1, r2] = race.runners;
    // Steady paces (1.6 and 1.5 m/s): runner 1 ahead of runner 2; runner 3 never seen.
    await postFixes(t.app, race.raceId, r1, [
      { t: now - 40 * MIN, ...pointAlong(1920) },
      { t: now - 20 * MIN, ...pointAlong(3840) },
      { t: now - 4 * MIN, ...pointAlong(5376), batteryPercent: 81 },
    ]);
    await postFixes(t.app, race.raceId, r2, [
      { t: now - 40 * MIN, ...pointAlong(1800) },
      { t: now - 20 * MIN, ...pointAlong(3600) },
      { t: now - 4 * MIN, ...pointAlong(5040) },
    ]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  const leaderboard = async (query = '') => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard${query}` });
    expect(res.statusCode).toBe(200);
    return res.json<LeaderboardRow[]>();
  };

  it('ranks runners by distance along the course with the values of issue #6', async () => {
    const rows = await leaderboard();
    expect(rows.map((r) => [r.Rank, r.BibNumber, r.Status])).toEqual([
      [1, '1', 'racing'],
      [2, '2', 'racing'],
      [null, '3', 'not-started'],
    ]);
    const [a, b, c] = rows;
    expect(a.DistanceKm).toBeCloseTo(5.376, 1);
    expect(a.Percent).toBeCloseTo(53.8, 0);
    expect(a.ElapsedSeconds).toBeGreaterThanOrEqual(3600);
    // 5.376 km in 56 min → 625 s/km
    expect(a.PaceSecondsPerKm).toBeGreaterThan(600);
    expect(a.PaceSecondsPerKm).toBeLessThan(650);
    expect(Date.parse(a.EtaFinish!)).toBeGreaterThan(now);
    expect(a.LastPingTime).toBe(new Date(now - 4 * MIN).toISOString());
    expect(a.Latitude).toBeCloseTo(pointAlong(5376).lat, 6);
    expect(a.BatteryState).toBe('81%');
    expect(a.GapKm).toBe(0);
    expect(b.DistanceKm).toBeCloseTo(5.04, 1);
    expect(b.GapKm).toBeCloseTo(0.336, 1);
    expect(b.GapSeconds).toBeGreaterThan(0);
    // Both are past the only aid station (5 km): nothing ahead but the finish.
    expect([a.NextWaypoint, a.NextWaypointKm, a.EtaNextWaypoint]).toEqual([null, null, null]);
    expect(c.DistanceKm).toBeNull();
    expect(c.LastPingTime).toBeNull();
    expect(c.NextWaypoint).toBeNull();
    expect(Object.keys(a).sort()).toEqual(
      [
        'Rank',
        'RunnerId',
        'BibNumber',
        'FirstName',
        'LastName',
        'Gender',
        'Age',
        'Status',
        'DistanceKm',
        'Percent',
        'ElapsedSeconds',
        'PaceSecondsPerKm',
        'EtaFinish',
        'FinishTime',
        'LastPingTime',
        'Latitude',
        'Longitude',
        'BatteryState',
        'GapSeconds',
        'GapKm',
        'NextWaypoint',
        'NextWaypointKm',
        'EtaNextWaypoint',
        'EtaNextWaypointEarliest',
        'EtaNextWaypointLatest',
        'EtaFinishEarliest',
        'EtaFinishLatest',
        'EstimatedDistanceKm',
        'EstimatedDistanceKmMin',
        'EstimatedDistanceKmMax',
        'EstimatedAt',
        'EstimatedLatitude',
        'EstimatedLongitude',
        'LastCheckpoint',
        'LastCheckpointKm',
        'LastCheckpointTime',
        'CutoffRisk',
      ].sort(),
    );
  });

  it('filters by gender, age group and search, keeping the overall rank', async () => {
    // seed: runner i has gender ['M','F'][i % 2] and age 20 + i % 50
    expect((await leaderboard('?gender=F')).map((r) => r.BibNumber)).toEqual(['1', '3']);
    expect((await leaderboard('?gender=M')).map((r) => r.BibNumber)).toEqual(['2']);
    expect((await leaderboard('?search=test3')).map((r) => r.BibNumber)).toEqual(['3']);
    expect((await leaderboard('?search=2')).map((r) => [r.BibNumber, r.Rank])).toEqual([['2', 2]]);
    expect((await leaderboard('?ageGroup=20-29')).map((r) => r.BibNumber)).toEqual(['1', '2', '3']);
    expect(await leaderboard('?ageGroup=30-39')).toEqual([]);
    // A category filter adds the rank within it; the overall rank stays.
    expect((await leaderboard('?gender=M')).map((r) => [r.BibNumber, r.Rank, r.CategoryRank])).toEqual([
      ['2', 2, 1],
    ]);
    expect((await leaderboard('?gender=F&search=3')).map((r) => [r.BibNumber, r.CategoryRank])).toEqual([
      ['3', null],
    ]);
    expect((await leaderboard('?search=2'))[0]).not.toHaveProperty('CategoryRank');
  });

  it('answers 404 for an unapproved or unknown race and 400 for bad input, as JSON', async () => {
    const hidden = await seedLiveRace(t.app.db, { runners: 1, approved: false, keyPrefix: `hidden-${kind}` });
    for (const path of ['leaderboard', 'positions', 'live', 'course-track']) {
      const res = await t.app.inject({ url: `/api/open/races/${hidden.raceId}/${path}` });
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ error: 'race_not_found' });
      expect((await t.app.inject({ url: `/api/open/races/999999/${path}` })).statusCode).toBe(404);
    }
    const bad = await t.app.inject({ url: `/api/open/races/abc/leaderboard` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_id');
    expect(
      (await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard?ageGroup=old` })).statusCode,
    ).toBe(400);
    expect(
      (await t.app.inject({ url: `/api/open/races/${race.raceId}/positions?since=yesterday` })).statusCode,
    ).toBe(400);
  });

  it('serves positions: latest fix and a trail per runner, optionally since a time', async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/positions` });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ RunnerId: number; Latest: number[] | null; Trail: number[][] }[]>();
    const r1 = body.find((p) => p.RunnerId === race.runners[0].runnerId)!;
    expect(r1.Trail).toHaveLength(3);
    expect(r1.Latest).toEqual([now - 4 * MIN, pointAlong(5376).lat, pointAlong(5376).lon]);
    expect(body.find((p) => p.RunnerId === race.runners[2].runnerId)).toEqual({
      RunnerId: race.runners[2].runnerId,
      Latest: null,
      Trail: [],
    });
    const since = new Date(now - 30 * MIN).toISOString();
    const recent = await t.app.inject({ url: `/api/open/races/${race.raceId}/positions?since=${since}` });
    const r1Recent = recent
      .json<{ RunnerId: number; Trail: number[][] }[]>()
      .find((p) => p.RunnerId === race.runners[0].runnerId)!;
    expect(r1Recent.Trail.map((p) => p[0])).toEqual([now - 20 * MIN, now - 4 * MIN]);
    // Nothing new since: an empty trail, but the latest position is still there.
    const none = await t.app.inject({
      url: `/api/open/races/${race.raceId}/positions?since=${new Date(now).toISOString()}`,
    });
    const r1None = none.json<{ RunnerId: number; Latest: number[]; Trail: number[][] }[]>()[0];
    expect(r1None).toEqual({
      RunnerId: race.runners[0].runnerId,
      Latest: [now - 4 * MIN, pointAlong(5376).lat, pointAlong(5376).lon],
      Trail: [],
    });
  });

  it('serves the course track with km markers and an elevation profile', async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/course-track` });
    expect(res.statusCode).toBe(200);
    const track = res.json();
    expect(track.HasCourse).toBe(true);
    expect(track.LengthM).toBeCloseTo(10_000, -2);
    expect(track.KmMarkers.map((k: { Km: number }) => k.Km)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(track.KmMarkers[4].Latitude).toBeCloseTo(pointAlong(5000).lat, 4);
    expect(track.Profile[0][1]).toBeCloseTo(500, 0);
    expect(track.Profile.at(-1)[1]).toBeCloseTo(600, 0);
    expect(track.Waypoints[0]).toMatchObject({ Name: 'Aid 1' });
    expect(track.Waypoints[0].DistanceM).toBeCloseTo(5000, -2);
  });

  it('streams a snapshot, then the runners that changed, over real HTTP; resumes from Last-Event-ID', async () => {
    const url = `${base}/api/open/races/${race.raceId}/live`;
    const sse = await connectSse(url);
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const retry = await sse.next((e) => e.retry !== undefined);
    expect(retry.retry).toBeGreaterThanOrEqual(3000);
    expect(retry.retry).toBeLessThan(10_000);
    const snap = await sse.next((e) => e.event === 'snapshot');
    const snapData = JSON.parse(snap.data);
    expect(snapData.Rows.map((r: LeaderboardRow) => r.BibNumber)).toEqual(['1', '2', '3']);
    expect(snapData.Trails).toHaveLength(3);
    expect(snap.id).toMatch(/^[0-9a-f]+\.\d+$/);

    // Runner 2 overtakes runner 1 (5450 m > 5376 m, at a plausible pace).
    const r2 = race.runners[1];
    const fixT = Date.now() - 1000;
    await postFixes(t.app, race.raceId, r2, [{ t: fixT, ...pointAlong(5450) }]);
    const upd = await sse.next((e) => e.event === 'update');
    const data = JSON.parse(upd.data);
    expect(data.Fixes).toEqual([[r2.runnerId, fixT, pointAlong(5450).lat, pointAlong(5450).lon]]);
    const changed = new Map<number, LeaderboardRow>(data.Rows.map((r: LeaderboardRow) => [r.RunnerId, r]));
    // The runner who moved comes as a whole row, the one who lost a place as a compact rank change only.
    expect(changed.get(r2.runnerId)).toMatchObject({ Rank: 1, Status: 'racing' });
    expect(changed.get(r2.runnerId)!.DistanceKm).toBeCloseTo(5.45, 1);
    expect(data.Rows).toHaveLength(1);
    expect(data.Ranks).toEqual([[race.runners[0].runnerId, 2]]);
    expect((await leaderboard()).map((r) => r.BibNumber)).toEqual(['2', '1', '3']);

    // A reconnect with the last id gets only what it missed, not a snapshot.
    sse.close();
    const r1 = race.runners[0];
    const fixT2 = Date.now() - 500;
    await postFixes(t.app, race.raceId, r1, [{ t: fixT2, ...pointAlong(5500) }]);
    await new Promise((r) => setTimeout(r, 400)); // let the batch go out while nobody listens
    const resumed = await connectSse(url, { 'last-event-id': upd.id! });
    const missed = await resumed.next((e) => e.event === 'update' || e.event === 'snapshot');
    expect(missed.event).toBe('update');
    expect(JSON.parse(missed.data).Fixes).toEqual([
      [r1.runnerId, fixT2, pointAlong(5500).lat, pointAlong(5500).lon],
    ]);
    resumed.close();

    // An id from another build (e.g. another process or a restart) gets a snapshot.
    const stranger = await connectSse(url, { 'last-event-id': 'deadbeef.3' });
    expect((await stranger.next((e) => e.event === 'snapshot' || e.event === 'update')).event).toBe(
      'snapshot',
    );
    stranger.close();
  });

  it('moves a runner from a real OsmAnd ping through the ingestion pipeline', async () => {
    const sse = await connectSse(`${base}/api/open/races/${race.raceId}/live`);
    await sse.next((e) => e.event === 'snapshot');
    const r3 = race.runners[2];
    const fix = { t: Math.floor(Date.now() / 1000) * 1000 - 2000, ...pointAlong(800), batteryPercent: 55 };
    const res = await fetch(osmandUrl(base, r3, fix));
    expect(res.status).toBe(200);
    const upd = JSON.parse((await sse.next((e) => e.event === 'update')).data);
    expect(upd.Fixes).toEqual([[r3.runnerId, fix.t, fix.lat, fix.lon]]);
    // The SSE row carries the next aid station and the ETA there.
    const pushed = upd.Rows.find((r: LeaderboardRow) => r.RunnerId === r3.runnerId) as LeaderboardRow;
    expect(pushed).toMatchObject({ NextWaypoint: 'Aid 1' });
    expect(pushed.NextWaypointKm).toBeCloseTo(5, 1);
    expect(Date.parse(pushed.EtaNextWaypoint!)).toBeGreaterThan(fix.t);
    expect(Date.parse(pushed.EtaNextWaypoint!)).toBeLessThan(Date.parse(pushed.EtaFinish!));
    const row = (await leaderboard()).find((r) => r.RunnerId === r3.runnerId)!;
    expect(row).toMatchObject({ Rank: 3, Status: 'racing', BatteryState: '55%', NextWaypoint: 'Aid 1' });
    expect(row.EtaNextWaypoint).toBe(pushed.EtaNextWaypoint);
    expect(row.DistanceKm).toBeCloseTo(0.8, 1);
    sse.close();
  });

  it('rebuilds and sends a new snapshot when the race changes (race-updated)', async () => {
    const sse = await connectSse(`${base}/api/open/races/${race.raceId}/live`);
    await sse.next((e) => e.event === 'snapshot');
    const [added] = await t.app.db
      .insert(runners)
      .values({
        raceId: race.raceId,
        firstName: 'Late',
        lastName: 'Entry',
        bibNumber: '99',
        gender: 'F',
        age: 33,
      })
      .returning({ id: runners.id });
    await t.app.events.publish({ type: 'race-updated', raceId: race.raceId });
    const snap = await sse.next((e) => e.event === 'snapshot');
    expect(JSON.parse(snap.data).Rows.map((r: LeaderboardRow) => r.RunnerId)).toContain(added.id);
    sse.close();
  });
});

describe('live streams and shutdown', () => {
  it('tells viewers when a race stops being public and ends their streams', async () => {
    const t = await createTestApp('pglite');
    try {
      const race = await seedLiveRace(t.app.db, { runners: 1 });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      const sse = await connectSse(`http://127.0.0.1:${port}/api/open/races/${race.raceId}/live`);
      await sse.next((e) => e.event === 'snapshot');
      await t.app.db.update(races).set({ approved: false }).where(eq(races.id, race.raceId));
      await t.app.events.publish({ type: 'race-updated', raceId: race.raceId });
      expect(JSON.parse((await sse.next((e) => e.event === 'gone')).data)).toEqual({ RaceId: race.raceId });
      await sse.ended;
      expect(t.app.live.viewerCount()).toBe(0);
      expect((await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` })).statusCode).toBe(
        404,
      );
    } finally {
      await t.close();
    }
  });

  it('ends open SSE streams when the app closes, so the server can stop', async () => {
    const t = await createTestApp('pglite');
    const race = await seedLiveRace(t.app.db, { runners: 1 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const sse = await connectSse(`http://127.0.0.1:${port}/api/open/races/${race.raceId}/live`);
    await sse.next((e) => e.event === 'snapshot');
    expect(t.app.live.viewerCount(race.raceId)).toBe(1);
    await t.close();
    await sse.ended;
    expect(t.app.live.viewerCount()).toBe(0);
  });
});
