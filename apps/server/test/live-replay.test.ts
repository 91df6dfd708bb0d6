import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { FlowAnswer, LeaderboardRow, ReplayAnswer } from '@racebeacon/domain';
import { checkinEntries, checkpoints, positions, races, runners, runnerStatusLog } from '../src/db/schema';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, seedLiveRace, type SeededRace, type SeededRunner } from './support/live-seed';

const MIN = 60_000;

/** Stores fixes received at given times (as a tracker's late upload would be), then publishes them like ingestion. */
async function storeReceived(
  app: FastifyInstance,
  raceId: number,
  runner: SeededRunner,
  fixes: { t: number; km: number; receivedMs: number; batteryPercent?: number }[],
): Promise<void> {
  const rows = await app.db
    .insert(positions)
    .values(
      fixes.map((f) => ({
        deviceId: runner.deviceId,
        raceId,
        runnerId: runner.runnerId,
        fixTime: new Date(f.t),
        receivedAt: new Date(f.receivedMs),
        ...pointAlong(f.km * 1000),
        batteryPercent: f.batteryPercent ?? null,
        source: 'osmand',
      })),
    )
    .returning({ id: positions.id, fixTime: positions.fixTime, receivedAt: positions.receivedAt });
  for (const [k, row] of rows.entries()) {
    await app.events.publish({
      type: 'position',
      raceId,
      runnerId: runner.runnerId,
      deviceId: runner.deviceId,
      positionId: row.id,
      fixTime: row.fixTime.toISOString(),
      receivedAt: row.receivedAt.toISOString(),
      ...pointAlong(fixes[k].km * 1000),
      altitude: null,
      speed: null,
      batteryPercent: fixes[k].batteryPercent ?? null,
      batteryState: null,
      source: 'osmand',
    });
  }
}

describe.each(dbKinds)('replay and race-flow (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let hidden: SeededRace;
  const now = Date.now();
  const start = now - 60 * MIN;
  const at = (m: number) => start + m * MIN;

  beforeAll(async () => {
    t = await createTestApp(kind);
    // Trackers every 10 minutes: stale (and a gap on the flow chart) after 30 minutes without a fix.
    race = await seedLiveRace(t.app.db, { runners: 3, clockStartMs: start, expectedIntervalS: 600 });
    hidden = await seedLiveRace(t.app.db, {
      runners: 1,
      clockStartMs: start,
      approved: false,
      keyPrefix: 'h',
    });
    const [r1, r2, r3] = race.runners;
    const onTime = (m: number, km: number, batteryPercent?: number) => ({
      t: at(m),
      km,
      receivedMs: at(m) + 10_000,
      batteryPercent,
    });
    // Runner 1 leads early and slows; runner 2 passes between minutes 30 and 40.
    await storeReceived(t.app, race.raceId, r1, [
      onTime(10, 2.0, 90),
      onTime(20, 3.0, 88),
      onTime(30, 3.5),
      onTime(40, 3.8),
      onTime(50, 4.0, 80),
    ]);
    // Runner 1's fix of minute 55 arrives late, at minute 59.
    await storeReceived(t.app, race.raceId, r1, [{ t: at(55), km: 4.5, receivedMs: at(59) }]);
    await storeReceived(t.app, race.raceId, r2, [
      onTime(10, 1.8),
      onTime(20, 2.9),
      onTime(30, 3.9),
      onTime(40, 5.0),
      onTime(50, 6.0),
    ]);
    // Runner 3: nothing between minutes 10 and 50 (a 40-minute gap).
    await storeReceived(t.app, race.raceId, r3, [
      onTime(5, 0.5),
      onTime(10, 1.0),
      onTime(50, 4.0),
      onTime(55, 4.4),
    ]);
  });
  afterAll(async () => t?.close());

  const replay = async (query: string, raceId = race.raceId) => {
    const res = await t.app.inject({ url: `/api/open/races/${raceId}/replay${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<ReplayAnswer>();
  };
  const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
  const row = (a: ReplayAnswer, bib: string) => a.Leaderboard.find((r) => r.BibNumber === bib)!;
  const latest = (a: ReplayAnswer, k: number) =>
    a.Positions.find((p) => p.RunnerId === race.runners[k].runnerId)!.Latest;

  it('shows the leader of each moment: runner 1 at minute 25, runner 2 at minute 45', async () => {
    const early = await replay(`?at=${iso(at(25))}`);
    expect(early.At).toBe(new Date(at(25)).toISOString());
    expect(early.From).toBe(new Date(start).toISOString());
    expect(early.Leaderboard.map((r) => [r.Rank, r.BibNumber])).toEqual([
      [1, '1'],
      [2, '2'],
      [3, '3'],
    ]);
    expect(row(early, '1').DistanceKm).toBeCloseTo(3.0, 1);
    expect(row(early, '1').BatteryState).toBe('88%');
    expect(row(early, '1').ElapsedSeconds).toBe(25 * 60);
    expect(latest(early, 0)).toEqual([at(20), pointAlong(3000).lat, pointAlong(3000).lon]);
    expect(
      early.Positions.find((p) => p.RunnerId === race.runners[0].runnerId)!.Trail.map((p) => p[0]),
    ).toEqual([at(10), at(20)]);
    const later = await replay(`?at=${iso(at(45))}`);
    expect(later.Leaderboard[0].BibNumber).toBe('2');
    expect(row(later, '2').DistanceKm).toBeCloseTo(5.0, 1);
    expect(row(later, '1').GapKm).toBeCloseTo(1.2, 1);
  });

  it('counts a late fix from its arrival: not at minute 57, shown at minute 59', async () => {
    const before = await replay(`?at=${iso(at(57))}`);
    expect(latest(before, 0)?.[0]).toBe(at(50));
    expect(row(before, '1').DistanceKm).toBeCloseTo(4.0, 1);
    const after = await replay(`?at=${iso(at(59) + 1000)}`);
    expect(latest(after, 0)?.[0]).toBe(at(55));
    expect(row(after, '1').DistanceKm).toBeCloseTo(4.5, 1);
  });

  it('a time before the start is the start; after now is now; no time is now', async () => {
    const first = await replay(`?at=${iso(start - 5 * 3600_000)}`);
    expect(first.At).toBe(new Date(start).toISOString());
    expect(first.Leaderboard.every((r) => r.Rank === null && r.Status === 'not-started')).toBe(true);
    expect(first.Positions.every((p) => p.Latest === null && p.Trail.length === 0)).toBe(true);
    const future = await replay(`?at=${iso(now + 86_400_000)}`);
    expect(Date.parse(future.At)).toBeGreaterThanOrEqual(now);
    expect(Date.parse(future.At)).toBeLessThanOrEqual(Date.now());
    expect(future.To).toBe(future.At);
    const plain = await replay('');
    expect(Date.parse(plain.At)).toBeGreaterThanOrEqual(now);
  });

  it('the replay at now has the rows of the live leaderboard, and follows new fixes', async () => {
    const live = (await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` })).json<
      LeaderboardRow[]
    >();
    const now1 = await replay('');
    expect(Object.keys(now1.Leaderboard[0]).sort()).toEqual(Object.keys(live[0]).sort());
    const pick = (rows: LeaderboardRow[]) =>
      rows.map((r) => [r.Rank, r.BibNumber, r.Status, r.DistanceKm, r.GapKm]);
    expect(pick(now1.Leaderboard)).toEqual(pick(live));
    // A fix stored after the replay was built (runner 3 at 4.9 km, received now) is in the next answer.
    expect(row(now1, '3').Rank).toBe(3);
    const fresh = Date.now();
    await storeReceived(t.app, race.raceId, race.runners[2], [
      { t: fresh - 1000, km: 4.9, receivedMs: fresh },
    ]);
    const now2 = await replay('');
    expect(row(now2, '3').Rank).toBe(2);
    expect(row(now2, '3').DistanceKm).toBeCloseTo(4.9, 1);
    expect(latest(now2, 2)?.[0]).toBe(fresh - 1000);
    // ...and not in a replay of a moment before it arrived.
    expect(latest(await replay(`?at=${iso(fresh - 2000)}`), 2)?.[0]).toBe(at(55));
  });

  it('trail limits the trail length', async () => {
    const a = await replay(`?at=${iso(at(56))}&trail=2`);
    expect(a.Positions.map((p) => p.Trail.length)).toEqual([2, 2, 2]);
  });

  it('flow: a line per runner, broken at a gap, with the course waypoints', async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/flow` });
    expect(res.statusCode).toBe(200);
    const flow = res.json<FlowAnswer>();
    expect(flow.LengthKm).toBeCloseTo(10, 1);
    expect(flow.From).toBe(new Date(start).toISOString());
    // The course's aid station (from the race's checkpoints, or the course waypoints before there are any).
    const aid = flow.Checkpoints.find((c) => c.Name === 'Aid 1')!;
    expect(aid.DistanceKm).toBeCloseTo(5, 2);
    expect(aid.Cutoff).toBeNull();
    const byBib = new Map(flow.Runners.map((r) => [r.BibNumber, r]));
    const r1 = byBib.get('1')!.Lines;
    expect(r1).toHaveLength(1);
    expect(r1[0][0][0]).toBe(at(10));
    expect(r1[0][0][1]).toBeCloseTo(2.0, 2);
    expect(r1[0][r1[0].length - 1][0]).toBe(at(55));
    expect(r1[0][r1[0].length - 1][1]).toBeCloseTo(4.5, 2);
    // Distances never go back along a line.
    for (const line of r1)
      for (let k = 1; k < line.length; k++) expect(line[k][1]).toBeGreaterThanOrEqual(line[k - 1][1]);
    const r3 = byBib.get('3')!.Lines;
    expect(r3).toHaveLength(2);
    expect(r3[0].map((p) => p[0])).toEqual([at(5), at(10)]);
    expect(r3[1][0][0]).toBe(at(50));
    expect(r3[1][0][1]).toBeCloseTo(4.0, 2);
  });

  it('flow: the race checkpoints with their cutoffs once they exist', async () => {
    const cutoff = new Date(start + 3 * 3600_000);
    await t.app.db.delete(checkpoints).where(eq(checkpoints.raceId, race.raceId));
    await t.app.db.insert(checkpoints).values([
      { raceId: race.raceId, seq: 0, kind: 'start', name: 'Start', distanceM: 0, lat: 46, lon: 7 },
      {
        raceId: race.raceId,
        seq: 1,
        kind: 'waypoint',
        name: 'Aid 1',
        distanceM: 5000,
        lat: 46.04,
        lon: 7,
        cutoffTime: cutoff,
      },
      { raceId: race.raceId, seq: 2, kind: 'finish', name: 'Finish', distanceM: 10_000, lat: 46.09, lon: 7 },
    ]);
    const flow = (await t.app.inject({ url: `/api/open/races/${race.raceId}/flow` })).json<FlowAnswer>();
    expect(flow.Checkpoints).toEqual([
      { Name: 'Aid 1', DistanceKm: 5, Cutoff: cutoff.toISOString() },
      { Name: 'Finish', DistanceKm: 10, Cutoff: null },
    ]);
  });

  it('statuses set by people and check-ins count from when they were recorded', async () => {
    // Checkpoints of the previous test (Aid 1 at 5 km). Runner 3 recorded DNF at minute 52 at 4 km; runner 1 checked
    // in at Aid 1 at minute 56, the volunteer's phone sending it at minute 57.
    const [r1, , r3] = race.runners;
    const [aid] = await t.app.db
      .select({ id: checkpoints.id })
      .from(checkpoints)
      .where(eq(checkpoints.raceId, race.raceId))
      .orderBy(checkpoints.seq)
      .offset(1)
      .limit(1);
    await t.app.db
      .update(runners)
      .set({ status: 'DNF', statusReason: 'knee', statusAt: new Date(at(52)), statusDistanceM: 4000 })
      .where(eq(runners.id, r3.runnerId));
    await t.app.db.insert(runnerStatusLog).values({
      raceId: race.raceId,
      runnerId: r3.runnerId,
      status: 'DNF',
      reason: 'knee',
      at: new Date(at(52)),
      distanceM: 4000,
    });
    await t.app.db.insert(checkinEntries).values({
      entryId: 'replay-1',
      raceId: race.raceId,
      checkpointId: aid.id,
      runnerId: r1.runnerId,
      bibNumber: '1',
      kind: 'in',
      time: new Date(at(56)),
      receivedAt: new Date(at(57)),
    });
    await t.app.events.publish({ type: 'race-updated', raceId: race.raceId });
    // The live state is rebuilt (debounced) with the DNF; the replay follows the live state's generation.
    let live: LeaderboardRow[] = [];
    for (let i = 0; i < 100; i++) {
      live = (await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` })).json<
        LeaderboardRow[]
      >();
      if (live.find((r) => r.BibNumber === '3')?.Status === 'dnf') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(live.find((r) => r.BibNumber === '3')?.Status).toBe('dnf');

    const before = await replay(`?at=${iso(at(51))}`);
    expect(row(before, '3').Status).not.toBe('dnf');
    expect(row(before, '3').Rank).not.toBeNull();
    const after = await replay(`?at=${iso(at(58))}`);
    expect(row(after, '3').Status).toBe('dnf');
    expect(row(after, '3').Rank).toBeNull();
    expect(row(after, '3').DistanceKm).toBeCloseTo(4.0, 3);

    // Runner 2 passed Aid 1 (5 km) by GPS at minute 40; runner 1 only through the check-in, known from minute 57.
    expect(row(before, '2').LastCheckpoint).toBe('Aid 1');
    expect(row(await replay(`?at=${iso(at(25))}`), '2').LastCheckpoint).toBe('Start');
    expect(row(await replay(`?at=${iso(at(56.5))}`), '1').LastCheckpoint).toBe('Start');
    expect(row(after, '1').LastCheckpoint).toBe('Aid 1');
    expect(row(after, '1').LastCheckpointTime).toBe(new Date(at(56)).toISOString());
  });

  it('a runner without a tracker who checked in at an aid station is at the checkpoint from when it was sent', async () => {
    // A race of its own: runner 1 with a tracker (3 km at minute 20), runner 2 with none, checked in at Aid 1 (5 km)
    // at minute 40, the volunteer's phone sending it at minute 42.
    const ci = await seedLiveRace(t.app.db, {
      runners: 2,
      clockStartMs: start,
      expectedIntervalS: 600,
      keyPrefix: 'ci',
    });
    const [gps, walker] = ci.runners;
    await storeReceived(t.app, ci.raceId, gps, [
      { t: at(10), km: 1.5, receivedMs: at(10) + 10_000 },
      { t: at(20), km: 3.0, receivedMs: at(20) + 10_000 },
    ]);
    // The checkpoints are built from the course on first read.
    expect((await t.app.inject({ url: `/api/open/races/${ci.raceId}/checkpoints` })).statusCode).toBe(200);
    const [aid] = await t.app.db
      .select({ id: checkpoints.id, lat: checkpoints.lat, lon: checkpoints.lon })
      .from(checkpoints)
      .where(eq(checkpoints.raceId, ci.raceId))
      .orderBy(checkpoints.seq)
      .offset(1)
      .limit(1);
    await t.app.db.insert(checkinEntries).values({
      entryId: 'replay-walker-1',
      raceId: ci.raceId,
      checkpointId: aid.id,
      runnerId: walker.runnerId,
      bibNumber: walker.bib,
      kind: 'in',
      time: new Date(at(40)),
      receivedAt: new Date(at(42)),
    });
    const walkerAt = async (m: number) => {
      const a = await replay(`?at=${iso(at(m))}`, ci.raceId);
      return {
        row: a.Leaderboard.find((r) => r.RunnerId === walker.runnerId)!,
        latest: a.Positions.find((p) => p.RunnerId === walker.runnerId)!.Latest,
      };
    };
    // Before the phone sent it: not seen (even after the check-in's own time).
    const before = await walkerAt(41);
    expect(before.latest).toBeNull();
    expect(before.row.Status).toBe('not-started');
    expect(before.row.LastCheckpoint).toBeNull();
    // From then on: at the checkpoint, 5 km, past Aid 1 at minute 40, ahead of the runner at 3 km.
    const after = await walkerAt(43);
    expect(after.latest).toEqual([at(40), aid.lat, aid.lon]);
    expect(after.row.LastPingTime).toBe(new Date(at(40)).toISOString());
    expect(after.row.DistanceKm).toBeCloseTo(5, 1);
    expect(after.row.LastCheckpoint).toBe('Aid 1');
    expect(after.row.LastCheckpointTime).toBe(new Date(at(40)).toISOString());
    expect(after.row.Rank).toBe(1);
    // And the replay at now shows what the live leaderboard shows for that runner.
    const live = (await t.app.inject({ url: `/api/open/races/${ci.raceId}/leaderboard` })).json<
      LeaderboardRow[]
    >();
    const now = await replay('', ci.raceId);
    const pick = (rows: LeaderboardRow[]) =>
      rows.map((r) => [r.RunnerId, r.Rank, r.Status, r.DistanceKm, r.LastPingTime, r.LastCheckpoint]);
    expect(pick(now.Leaderboard)).toEqual(pick(live));
  });

  it.each([
    ['not a time', '?at=yesterday'],
    ['no offset', '?at=2026-06-01T10:00:00'],
    ['an impossible date', '?at=2026-13-01T10:00:00Z'],
    ['a trail too long', '?trail=101'],
    ['a negative trail', '?trail=-1'],
  ])('400 for %s', async (_, query) => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/replay${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('is as public as the race: no position for a hidden runner, no trails when private, the public delay', async () => {
    await t.app.db
      .update(runners)
      .set({ hidePosition: true })
      .where(eq(runners.id, race.runners[0].runnerId));
    await t.app.db
      .update(races)
      .set({ trailsPublic: false, publicDelayMin: 25 })
      .where(eq(races.id, race.raceId));
    // As the director's edits do: announced, so the live state (which holds the race's privacy) is rebuilt.
    await t.app.events.publish({ type: 'race-updated', raceId: race.raceId });
    await expect.poll(async () => (await t.app.live.state(race.raceId)).privacy.publicDelayMin).toBe(25);
    const a = await replay(`?at=${iso(at(56))}`);
    expect(latest(a, 0)).toBeNull();
    expect(row(a, '1').Latitude).toBeNull();
    expect(row(a, '1').DistanceKm).toBeCloseTo(3.5, 1);
    expect(latest(a, 1)?.[0]).toBe(at(30));
    expect(a.Positions.every((p) => p.Trail.length === 0)).toBe(true);
    // 25 minutes late: the replay ends 25 minutes ago (minute 35 of the race), so minute 56 is shown as then.
    expect(Date.parse(a.To)).toBeLessThanOrEqual(Date.now() - 25 * MIN);
    expect(a.At).toBe(a.To);
    await t.app.db
      .update(runners)
      .set({ hidePosition: false })
      .where(eq(runners.id, race.runners[0].runnerId));
    await t.app.db
      .update(races)
      .set({ trailsPublic: true, publicDelayMin: 0 })
      .where(eq(races.id, race.raceId));
    await t.app.events.publish({ type: 'race-updated', raceId: race.raceId });
    await expect.poll(async () => (await t.app.live.state(race.raceId)).privacy.publicDelayMin).toBe(0);
  });

  it.each(['replay', 'flow'])('%s of a race that is not public or does not exist: 404', async (route) => {
    for (const id of [hidden.raceId, 999_999]) {
      const res = await t.app.inject({ url: `/api/open/races/${id}/${route}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'race_not_found' });
    }
  });
});
