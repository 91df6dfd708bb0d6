import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { LeaderboardRow, LiveSnapshot, LiveUpdate } from '@racebeacon/domain';
import { races } from '../src/db/schema';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';
import { connectSse, type SseConnection } from './support/sse-client';

const MIN = 60_000;

/**
 * The race clock through the real director endpoints: Start Race (StartTime already past, so the clock starts at
 * StartTime) and End Race, each of which publishes `race-updated`, and what the live leaderboard and the SSE stream
 * make of it.
 */
describe.each(dbKinds)('live race clock: start and end through the director endpoints (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let sse: SseConnection;
  let director: string;
  const now = Date.now();
  const startTime = now - 30 * MIN;

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: startTime, expectedIntervalS: 600 });
    // Approved but not started yet: StartTime lies in the past (the director presses Start late).
    await t.app.db
      .update(races)
      .set({ hasStarted: false, clockStartedAt: null, startTime: new Date(startTime) })
      .where(eq(races.id, race.raceId));
    director = await t.issuer.director('dir-live');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    sse = await connectSse(`http://127.0.0.1:${port}/api/open/races/${race.raceId}/live`);
  });
  afterAll(async () => {
    sse?.close();
    await t?.close();
  });

  const leaderboard = async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` });
    expect(res.statusCode).toBe(200);
    return res.json<LeaderboardRow[]>();
  };
  const rowOf = (rows: LeaderboardRow[], i: number) =>
    rows.find((r) => r.RunnerId === race.runners[i].runnerId)!;
  const nextSnapshot = async () =>
    JSON.parse((await sse.next((e) => e.event === 'snapshot')).data) as LiveSnapshot;

  it('before Start Race nobody is racing, whatever their device sends', async () => {
    const snap = await nextSnapshot();
    expect(snap.ClockStartedAt).toBeNull();
    // Runner 1 warms up along the course before the start time: 3 km, 35 minutes ago.
    await postFixes(t.app, race.raceId, race.runners[0], [{ t: now - 35 * MIN, ...pointAlong(3000) }]);
    const upd = JSON.parse((await sse.next((e) => e.event === 'update')).data) as LiveUpdate;
    expect(upd.Fixes.map((f) => f[0])).toEqual([race.runners[0].runnerId]);
    const r1 = rowOf(await leaderboard(), 0);
    expect(r1).toMatchObject({ Rank: null, Status: 'not-started', DistanceKm: null, ElapsedSeconds: null });
    // The map still knows where they are.
    expect(r1.LastPingTime).toBe(new Date(now - 35 * MIN).toISOString());
  });

  it('Start Race starts the clock at the past StartTime; fixes before it advance nobody', async () => {
    const res = await call(t, 'PUT', `/api/director/races/start/${race.raceId}`, { token: director });
    expect(res.statusCode).toBe(200);
    expect(res.json().ClockStartedAt).toBe(new Date(startTime).toISOString());
    const snap = await nextSnapshot();
    expect(snap.ClockStartedAt).toBe(new Date(startTime).toISOString());
    expect(snap.ClockStoppedAt).toBeNull();
    // Only the pre-start fix so far: still not started.
    expect(rowOf(snap.Rows, 0).Status).toBe('not-started');

    // After the start: runner 1 at 1 km (the 3 km warm-up must not count: progress never goes back, so it would
    // stay at 3 km if it did), runner 2 at 2 km.
    await postFixes(t.app, race.raceId, race.runners[0], [{ t: now - 4 * MIN, ...pointAlong(1000) }]);
    await postFixes(t.app, race.raceId, race.runners[1], [{ t: now - 3 * MIN, ...pointAlong(2000) }]);
    const seen = new Map<number, LeaderboardRow>();
    while (seen.size < 2) {
      const upd = JSON.parse((await sse.next((e) => e.event === 'update')).data) as LiveUpdate;
      for (const r of upd.Rows) seen.set(r.RunnerId, r);
    }
    expect(seen.get(race.runners[0].runnerId)!.DistanceKm).toBeCloseTo(1, 1);
    expect(seen.get(race.runners[1].runnerId)!.DistanceKm).toBeCloseTo(2, 1);

    const rows = await leaderboard();
    expect(rows.map((r) => [r.BibNumber, r.Rank, r.Status])).toEqual([
      ['2', 1, 'racing'],
      ['1', 2, 'racing'],
    ]);
    expect(rowOf(rows, 0).DistanceKm).toBeCloseTo(1, 1);
    // Elapsed runs from the clock start (StartTime), not from the press.
    expect(rowOf(rows, 1).ElapsedSeconds).toBeGreaterThanOrEqual(30 * 60);
  });

  it('End Race stops the clock: elapsed frozen, fixes after the stop ignored', async () => {
    const res = await call(t, 'PUT', `/api/director/races/end/${race.raceId}`, { token: director });
    expect(res.statusCode).toBe(200);
    const stoppedAt = res.json().ClockStoppedAt as string;
    const stopMs = Date.parse(stoppedAt);
    const frozen = Math.round((stopMs - startTime) / 1000);
    const snap = await nextSnapshot();
    expect(snap.ClockStoppedAt).toBe(stoppedAt);
    expect(rowOf(snap.Rows, 1).ElapsedSeconds).toBe(frozen);

    // Runner 1 keeps running after the end and would pass runner 2.
    const after = Math.max(Date.now(), stopMs + 1000);
    await postFixes(t.app, race.raceId, race.runners[0], [{ t: after, ...pointAlong(2500) }]);
    await sse.next((e) => e.event === 'update');
    // Let the clock run on past the stop (a new fix is a new version, so the leaderboard is computed afresh).
    await new Promise((r) => setTimeout(r, 1200));
    let rows = await leaderboard();
    expect(rows.map((r) => [r.BibNumber, r.Rank])).toEqual([
      ['2', 1],
      ['1', 2],
    ]);
    const r1 = rowOf(rows, 0);
    expect(r1.DistanceKm).toBeCloseTo(1, 1);
    expect(r1.LastPingTime).toBe(new Date(now - 4 * MIN).toISOString());
    for (const r of rows) expect(r.ElapsedSeconds).toBe(frozen);

    // A fix taken before the stop but delivered after it (a device catching up) still counts.
    await postFixes(t.app, race.raceId, race.runners[0], [{ t: now - 2 * MIN, ...pointAlong(1250) }]);
    await sse.next((e) => e.event === 'update');
    const late = rowOf(await leaderboard(), 0);
    expect(late.DistanceKm).toBeCloseTo(1.25, 1);
    expect(late.ElapsedSeconds).toBe(frozen);
    // Statuses are those at the stop (pinged within the stale window then), and stay so: the clock no longer moves.
    rows = await leaderboard();
    expect(rows.map((r) => r.Status)).toEqual(['racing', 'racing']);
  });
});
