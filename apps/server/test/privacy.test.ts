import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { LeaderboardRow, RunnerPositions, RunnerSplits } from '@racebeacon/domain';
import { positions, races } from '../src/db/schema';
import { RetentionJob } from '../src/jobs/retention-job';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, seedLiveRace, type SeededRace, type SeededRunner } from './support/live-seed';
import { connectSse, type SseConnection } from './support/sse-client';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** Stores fixes and publishes them as ingestion does. */
async function store(
  app: FastifyInstance,
  raceId: number,
  runner: SeededRunner,
  fixes: { t: number; km: number; receivedMs?: number }[],
): Promise<void> {
  const rows = await app.db
    .insert(positions)
    .values(
      fixes.map((f) => ({
        deviceId: runner.deviceId,
        raceId,
        runnerId: runner.runnerId,
        fixTime: new Date(f.t),
        receivedAt: new Date(f.receivedMs ?? f.t + 1000),
        ...pointAlong(f.km * 1000),
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
      batteryPercent: null,
      batteryState: null,
      source: 'osmand',
    });
  }
}

describe.each(dbKinds)('privacy of runners (%s)', (kind) => {
  let t: TestContext;
  let base: string;
  let race: SeededRace;
  let owner: string;
  let other: string;
  let admin: string;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    // seedLiveRace's races belong to the director 'dir-live'.
    owner = await t.issuer.director('dir-live');
    other = await t.issuer.director('someone-else');
    admin = await t.issuer.admin();
    race = await seedLiveRace(t.app.db, { runners: 3, clockStartMs: now - 60 * MIN });
    const [r1, r2, r3] = race.runners;
    // Runner 1: a fix 30 minutes ago and one a minute ago; runner 2 and 3: 20 and 2 minutes ago.
    await store(t.app, race.raceId, r1, [
      { t: now - 30 * MIN, km: 2 },
      { t: now - 1 * MIN, km: 5 },
    ]);
    await store(t.app, race.raceId, r2, [
      { t: now - 40 * MIN, km: 1.5 },
      { t: now - 20 * MIN, km: 3 },
    ]);
    await store(t.app, race.raceId, r3, [
      { t: now - 20 * MIN, km: 2.5 },
      { t: now - 2 * MIN, km: 4 },
    ]);
  });
  afterAll(async () => t?.close());

  const raceUrl = () => `/api/director/races/${race.raceId}`;
  const raceBody = (extra: Record<string, unknown>) => ({ Name: 'Live Test Race', ...extra });
  const runnerUrl = (r: SeededRunner) => `/api/director/runners/${race.raceId}/${r.runnerId}`;
  const runnerBody = (r: SeededRunner, extra: Record<string, unknown>) => ({
    FirstName: `Runner${r.bib}`,
    LastName: `Test${r.bib}`,
    BibNumber: r.bib,
    ...extra,
  });

  /** Sets the race's privacy through the director's API; waits until the live state was rebuilt with it. */
  async function setRace(extra: Record<string, unknown>) {
    const res = await call(t, 'PUT', raceUrl(), { token: owner, body: raceBody(extra) });
    expect(res.statusCode, res.body).toBe(200);
    const want = res.json();
    await expect
      .poll(async () => {
        const p = (await t.app.live.state(race.raceId)).privacy;
        return [p.publicDelayMin, p.trailsPublic];
      })
      .toEqual([want.PublicDelayMin, want.TrailsPublic]);
  }

  async function setHidden(r: SeededRunner, hide: boolean) {
    const res = await call(t, 'PUT', runnerUrl(r), {
      token: owner,
      body: runnerBody(r, { HidePosition: hide }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().HidePosition).toBe(hide);
    await expect
      .poll(async () => (await t.app.live.state(race.raceId)).privacy.hiddenRunnerIds.has(r.runnerId))
      .toBe(hide);
  }

  const leaderboard = async (token?: string) => {
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard`, { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<LeaderboardRow[]>();
  };
  const positionsOf = async (token?: string) => {
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/positions`, { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<RunnerPositions[]>();
  };
  const rowOf = (rows: LeaderboardRow[], r: SeededRunner) => rows.find((x) => x.RunnerId === r.runnerId)!;
  const posOf = (list: RunnerPositions[], r: SeededRunner) => list.find((x) => x.RunnerId === r.runnerId)!;

  // ------------------------------------------------------------------ settings

  it('the director sets the race privacy and a runner hides their position; both are read back', async () => {
    const res = await call(t, 'PUT', raceUrl(), {
      token: owner,
      body: raceBody({ PublicDelayMin: 15, TrailsPublic: false, RetentionDays: 30 }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ PublicDelayMin: 15, TrailsPublic: false, RetentionDays: 30 });
    // Absent fields are unchanged; null retention keeps positions.
    const again = await call(t, 'PUT', raceUrl(), { token: owner, body: raceBody({ RetentionDays: null }) });
    expect(again.json()).toMatchObject({ PublicDelayMin: 15, TrailsPublic: false, RetentionDays: null });
    const open = await call(t, 'GET', `/api/open/races/${race.raceId}`);
    expect(open.json()).toMatchObject({ PublicDelayMin: 15, TrailsPublic: false, RetentionDays: null });
    await setRace({ PublicDelayMin: 0, TrailsPublic: true });

    const r3 = race.runners[2];
    await setHidden(r3, true);
    const list = await call(t, 'GET', `/api/director/runners/${race.raceId}`, { token: owner });
    expect(list.json().find((r: { RunnerId: number }) => r.RunnerId === r3.runnerId).HidePosition).toBe(true);
    // An edit without the field keeps it.
    const kept = await call(t, 'PUT', runnerUrl(r3), { token: owner, body: runnerBody(r3, {}) });
    expect(kept.json().HidePosition).toBe(true);
    await setHidden(r3, false);
  });

  it.each([
    ['PublicDelayMin', { PublicDelayMin: -1 }],
    ['PublicDelayMin', { PublicDelayMin: 1441 }],
    ['PublicDelayMin', { PublicDelayMin: 2.5 }],
    ['PublicDelayMin', { PublicDelayMin: '10' }],
    ['PublicDelayMin', { PublicDelayMin: null }],
    ['TrailsPublic', { TrailsPublic: 'no' }],
    ['RetentionDays', { RetentionDays: -1 }],
    ['RetentionDays', { RetentionDays: 3651 }],
    ['RetentionDays', { RetentionDays: 1.5 }],
  ])('400 naming %s for a bad race setting %j, nothing written', async (field, extra) => {
    const res = await call(t, 'PUT', raceUrl(), {
      token: owner,
      body: raceBody({ Description: 'not written', ...extra }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.stringContaining(field) });
    const [row] = await t.app.db.select().from(races).where(eq(races.id, race.raceId));
    expect(row.description).not.toBe('not written');
  });

  it('400 naming HidePosition for a bad runner setting', async () => {
    const r1 = race.runners[0];
    const res = await call(t, 'PUT', runnerUrl(r1), {
      token: owner,
      body: runnerBody(r1, { HidePosition: 'yes' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: expect.any(String),
      message: expect.stringContaining('HidePosition'),
    });
  });

  it('only the race’s director changes them: another director and an admin 404, no token 401', async () => {
    const r1 = race.runners[0];
    // The race body and runner edits are the owner's (an admin, like another director, gets 404).
    for (const [token, status] of [
      [other, 404],
      [admin, 404],
      [undefined, 401],
    ] as const) {
      const a = await call(t, 'PUT', raceUrl(), { token, body: raceBody({ PublicDelayMin: 99 }) });
      expect(a.statusCode).toBe(status);
      expect(a.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      const b = await call(t, 'PUT', runnerUrl(r1), { token, body: runnerBody(r1, { HidePosition: true }) });
      expect(b.statusCode).toBe(status);
    }
    const [row] = await t.app.db.select().from(races).where(eq(races.id, race.raceId));
    expect(row.publicDelayMin).toBe(0);
    expect((await t.app.live.state(race.raceId)).privacy.hiddenRunnerIds.size).toBe(0);
  });

  // ------------------------------------------------------------------ hidden runner

  it('a hidden runner keeps their row by progress with no position for the public; the director and admins see it', async () => {
    const r3 = race.runners[2];
    await setHidden(r3, true);
    try {
      const pub = rowOf(await leaderboard(), r3);
      expect(pub.DistanceKm).toBeCloseTo(4, 1);
      expect(pub.Rank).not.toBeNull();
      expect([pub.Latitude, pub.Longitude, pub.EstimatedLatitude ?? null]).toEqual([null, null, null]);
      // Another director is the public.
      expect(rowOf(await leaderboard(other), r3).Latitude).toBeNull();
      const filtered = await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard?search=Runner3`);
      expect(filtered.json()[0]).toMatchObject({ RunnerId: r3.runnerId, Latitude: null });
      expect(posOf(await positionsOf(), r3)).toEqual({ RunnerId: r3.runnerId, Latest: null, Trail: [] });
      // Others are unchanged.
      expect(posOf(await positionsOf(), race.runners[0]).Trail).toHaveLength(2);

      for (const token of [owner, admin]) {
        expect(rowOf(await leaderboard(token), r3).Latitude).toBeCloseTo(pointAlong(4000).lat, 5);
        const p = posOf(await positionsOf(token), r3);
        expect(p.Latest?.[1]).toBeCloseTo(pointAlong(4000).lat, 5);
        expect(p.Trail).toHaveLength(2);
      }

      // The GPX track is not public; the text view lists the runner without a position.
      const gpx = await call(t, 'GET', `/api/open/races/${race.raceId}/runners/${r3.runnerId}/track.gpx`);
      expect(gpx.statusCode).toBe(404);
      const text = await call(t, 'GET', `/race/${race.raceId}/text`, { headers: { accept: 'text/html' } });
      expect(text.body).toContain('Runner3');

      // The live stream: the public snapshot has the row without position and no trail.
      const sse = await connectSse(`${base}/api/open/races/${race.raceId}/live`);
      try {
        const snap = JSON.parse((await sse.next((e) => e.event === 'snapshot')).data);
        const row = snap.Rows.find((x: LeaderboardRow) => x.RunnerId === r3.runnerId);
        expect(row).toMatchObject({ Latitude: null, Longitude: null });
        expect(row.DistanceKm).toBeCloseTo(4, 1);
        expect(snap.Trails.find((x: { RunnerId: number }) => x.RunnerId === r3.runnerId).Trail).toEqual([]);
        expect(
          snap.Trails.find((x: { RunnerId: number }) => x.RunnerId === race.runners[0].runnerId).Trail,
        ).toHaveLength(2);
        // A new fix of the hidden runner: the row moves, never a position. It comes as an update, or inside the new
        // snapshot the viewers get when the rebuild after the privacy change lands (both are the public's view).
        await store(t.app, race.raceId, r3, [{ t: Date.now() - 1000, km: 4.3 }]);
        const movedRow = (data: string): LeaderboardRow | undefined =>
          (JSON.parse(data) as { Rows: LeaderboardRow[] }).Rows.find(
            (x) => x.RunnerId === r3.runnerId && Math.abs((x.DistanceKm ?? 0) - 4.3) < 0.05,
          );
        const upd = await sse.next(
          (e) => (e.event === 'update' || e.event === 'snapshot') && movedRow(e.data) !== undefined,
          15_000,
        );
        const data = JSON.parse(upd.data);
        const moved = movedRow(upd.data)!;
        expect(moved.DistanceKm).toBeCloseTo(4.3, 1);
        expect([moved.Latitude, moved.Longitude]).toEqual([null, null]);
        if (upd.event === 'update')
          expect(data.Fixes.filter((f: number[]) => f[0] === r3.runnerId)).toEqual([]);
        else
          expect(data.Trails.find((x: { RunnerId: number }) => x.RunnerId === r3.runnerId).Trail).toEqual([]);
        expect(upd.data).not.toContain(String(pointAlong(4300).lat));
      } finally {
        sse.close();
      }
    } finally {
      await setHidden(r3, false);
    }
  });

  it('private trails: no trail for the public, the dot stays', async () => {
    await setRace({ TrailsPublic: false });
    try {
      const list = await positionsOf();
      expect(list.every((p) => p.Trail.length === 0)).toBe(true);
      expect(posOf(list, race.runners[0]).Latest).not.toBeNull();
      expect(rowOf(await leaderboard(), race.runners[0]).Latitude).not.toBeNull();
      expect(posOf(await positionsOf(owner), race.runners[0]).Trail.length).toBeGreaterThan(0);
      const gpx = await call(
        t,
        'GET',
        `/api/open/races/${race.raceId}/runners/${race.runners[0].runnerId}/track.gpx`,
      );
      expect(gpx.statusCode).toBe(404);
    } finally {
      await setRace({ TrailsPublic: true });
    }
  });

  it('private trails: the replay never gives a past dot (only the current one), so sampling `at` rebuilds nothing', async () => {
    const [r1] = race.runners;
    const replayAt = async (at?: number) => {
      const q = at === undefined ? '' : `?at=${encodeURIComponent(new Date(at).toISOString())}`;
      const res = await call(t, 'GET', `/api/open/races/${race.raceId}/replay${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{
        At: string;
        To: string;
        Leaderboard: LeaderboardRow[];
        Positions: RunnerPositions[];
      }>();
    };
    // Public trails: a past moment has the dot of then.
    const open = await replayAt(now - 20 * MIN);
    expect(posOf(open.Positions, r1).Latest?.[0]).toBe(now - 30 * MIN);
    await setRace({ TrailsPublic: false });
    try {
      // Every minute of the race: no dot, no trail, no row position, while the progress stays.
      for (let at = now - 50 * MIN; at < now - 1 * MIN; at += 5 * MIN) {
        const past = await replayAt(at);
        expect(past.Positions.every((p) => p.Latest === null && p.Trail.length === 0)).toBe(true);
        expect(past.Leaderboard.every((r) => r.Latitude === null && r.Longitude === null)).toBe(true);
        expect(past.Leaderboard.every((r) => (r.EstimatedLatitude ?? null) === null)).toBe(true);
      }
      const past = await replayAt(now - 20 * MIN);
      expect(rowOf(past.Leaderboard, r1).DistanceKm).toBeCloseTo(2, 1);
      // The current moment (To): the dot the live map shows, without a trail.
      const current = await replayAt();
      expect(posOf(current.Positions, r1).Latest?.[0]).toBe(now - 1 * MIN);
      expect(posOf(current.Positions, r1).Trail).toEqual([]);
      expect(rowOf(current.Leaderboard, r1).Latitude).toBeCloseTo(pointAlong(5000).lat, 5);
    } finally {
      await setRace({ TrailsPublic: true });
    }
  });

  it('the delay counts from arrival: a device whose clock is 30 min slow is not in GPX, splits or results before its fix is delay-old', async () => {
    const slow = await seedLiveRace(t.app.db, {
      runners: 1,
      clockStartMs: now - 60 * MIN,
      keyPrefix: 'slow',
    });
    const [r] = slow.runners;
    const put = await call(t, 'PUT', `/api/director/races/${slow.raceId}`, {
      token: owner,
      body: { Name: 'Slow Clock Race', PublicDelayMin: 10 },
    });
    expect(put.statusCode, put.body).toBe(200);
    // A fix 55 minutes ago at 1 km (received then); then one taken now past Aid 1 (5 km), dated 30 minutes ago by
    // the device's slow clock and received now.
    await store(t.app, slow.raceId, r, [{ t: now - 55 * MIN, km: 1 }]);
    await store(t.app, slow.raceId, r, [{ t: now - 30 * MIN, km: 6, receivedMs: Date.now() }]);
    const live = async () =>
      (await call(t, 'GET', `/api/open/races/${slow.raceId}/leaderboard`, { token: owner })).json<
        LeaderboardRow[]
      >();
    await expect.poll(async () => (await live())[0].DistanceKm).toBeCloseTo(6, 1);

    // The leaderboard waits (as before); so do the GPX track, the splits and the results file.
    const board = (await call(t, 'GET', `/api/open/races/${slow.raceId}/leaderboard`)).json<
      LeaderboardRow[]
    >();
    expect(board[0].DistanceKm).toBeCloseTo(1, 1);
    const gpx = await call(t, 'GET', `/api/open/races/${slow.raceId}/runners/${r.runnerId}/track.gpx`);
    expect(gpx.statusCode).toBe(200);
    expect(gpx.body.match(/<trkpt /g)).toHaveLength(1);
    expect(gpx.body).not.toContain(new Date(now - 30 * MIN).toISOString().slice(0, 19));
    const checkpoints = (await call(t, 'GET', `/api/open/races/${slow.raceId}/checkpoints`)).json<
      { CheckpointId: number; Name: string }[]
    >();
    const aidId = checkpoints.find((c) => c.Name === 'Aid 1')!.CheckpointId;
    const splitsOf = async (token?: string) =>
      (await call(t, 'GET', `/api/open/races/${slow.raceId}/splits`, { token })).json<RunnerSplits[]>()[0]
        .Splits;
    expect((await splitsOf()).map((x) => x.CheckpointId)).not.toContain(aidId);
    expect((await splitsOf(owner)).map((x) => x.CheckpointId)).toContain(aidId);
    const csv = (await call(t, 'GET', `/api/open/races/${slow.raceId}/results.csv`)).body;
    const header = csv.split('\r\n')[0].split(',');
    const line = csv
      .split('\r\n')
      .find((l) => l.includes(`Runner${r.bib}`))!
      .split(',');
    expect(Number(line[header.indexOf('DistanceKm')])).toBeCloseTo(1, 1);
    expect(line[header.findIndex((h) => h.startsWith('Aid 1'))]).toBe('');
  });

  it('hiding a runner or adding a delay applies from the 200: reads and the stream give nothing newer after it', async () => {
    const [, r2, r3] = race.runners;
    const sse = await connectSse(`${base}/api/open/races/${race.raceId}/live`);
    try {
      await sse.next((e) => e.event === 'snapshot');
      const res = await call(t, 'PUT', runnerUrl(r2), {
        token: owner,
        body: runnerBody(r2, { HidePosition: true }),
      });
      expect(res.statusCode, res.body).toBe(200);
      // The very next reads: no position.
      expect(posOf(await positionsOf(), r2)).toEqual({ RunnerId: r2.runnerId, Latest: null, Trail: [] });
      expect(rowOf(await leaderboard(), r2).Latitude).toBeNull();
      // A fix right after the answer never reaches the public stream (nor any position of the runner).
      const mark = sse.events.length;
      const fresh = Date.now() - 300;
      await store(t.app, race.raceId, r2, [{ t: fresh, km: 3.5 }]);
      await expect
        .poll(async () => rowOf(await leaderboard(owner), r2).DistanceKm, { timeout: 10_000 })
        .toBeCloseTo(3.5, 1);
      // The rebuilt race's public snapshot, then two turns of the public view.
      await sse.next((e) => e.event === 'snapshot');
      const ticks = t.app.publicView.ticks;
      await expect.poll(() => t.app.publicView.ticks, { timeout: 15_000 }).toBeGreaterThanOrEqual(ticks + 2);
      const sent = sse.events
        .slice(mark)
        .map((e) => e.data)
        .join('');
      expect(sent).not.toContain(String(fresh));
      expect(sent).not.toContain(String(pointAlong(3500).lat));
      expect(sent).not.toContain(String(pointAlong(3000).lat));

      // A delay: the next read is already late (runner 3: 2.5 km 20 min ago, 4 km 2 min ago).
      const delayed = await call(t, 'PUT', raceUrl(), {
        token: owner,
        body: raceBody({ PublicDelayMin: 10 }),
      });
      expect(delayed.statusCode, delayed.body).toBe(200);
      expect(rowOf(await leaderboard(), r3).DistanceKm).toBeCloseTo(2.5, 1);
      expect(JSON.stringify(await positionsOf())).not.toContain(String(now - 2 * MIN));
    } finally {
      sse.close();
      await setRace({ PublicDelayMin: 0 });
      await setHidden(r2, false);
    }
  });

  // ------------------------------------------------------------------ the public delay

  it('the delay holds: a fix 1 minute old is not public with a 10-minute delay; the director sees it live', async () => {
    const r1 = race.runners[0];
    const fresh = now - 1 * MIN;
    await setRace({ PublicDelayMin: 10 });
    try {
      const pub = rowOf(await leaderboard(), r1);
      expect(pub.DistanceKm).toBeCloseTo(2, 1);
      expect(Date.parse(pub.LastPingTime!)).toBe(now - 30 * MIN);
      const p = posOf(await positionsOf(), r1);
      expect(p.Latest?.[0]).toBe(now - 30 * MIN);
      expect(p.Trail.map((x) => x[0])).toEqual([now - 30 * MIN]);
      const all = JSON.stringify(await positionsOf());
      expect(all).not.toContain(String(fresh));

      // Splits: runner 1 passed the aid station at 5 km a minute ago (after the public moment): not shown yet.
      const late = (list: RunnerSplits[]) =>
        list
          .find((x) => x.RunnerId === r1.runnerId)!
          .Splits.filter((x) => Date.parse(x.PassingTime) > now - 10 * MIN);
      const splits = (await call(t, 'GET', `/api/open/races/${race.raceId}/splits`)).json<RunnerSplits[]>();
      expect(late(splits)).toEqual([]);
      const liveSplits = (
        await call(t, 'GET', `/api/open/races/${race.raceId}/splits`, { token: owner })
      ).json<RunnerSplits[]>();
      expect(late(liveSplits).length).toBeGreaterThan(0);

      // The results file and the text view are as late.
      const csv = (await call(t, 'GET', `/api/open/races/${race.raceId}/results.csv`)).body;
      const line = csv.split('\n').find((l) => l.includes('Runner1'))!;
      // DistanceKm is the 10th column.
      expect(Number(line.split(',')[9])).toBeCloseTo(2, 1);

      const live = rowOf(await leaderboard(owner), r1);
      expect(live.DistanceKm).toBeCloseTo(5, 1);
      expect(posOf(await positionsOf(owner), r1).Latest?.[0]).toBe(fresh);

      // The stream: the delayed state, then nothing of the fresh fix.
      const sse: SseConnection = await connectSse(`${base}/api/open/races/${race.raceId}/live`);
      try {
        const snap = await sse.next((e) => e.event === 'snapshot');
        expect(snap.data).not.toContain(String(fresh));
        const row = JSON.parse(snap.data).Rows.find((x: LeaderboardRow) => x.RunnerId === r1.runnerId);
        expect(row.DistanceKm).toBeCloseTo(2, 1);
        // A brand-new fix: the public will see it in 10 minutes, not now.
        const newest = Date.now() - 500;
        await store(t.app, race.raceId, race.runners[1], [{ t: newest, km: 4 }]);
        await expect
          .poll(async () => rowOf(await leaderboard(owner), race.runners[1]).DistanceKm)
          .toBeCloseTo(4, 1);
        // Two turns of the public stream later, nothing of it went out.
        const ticks = t.app.publicView.ticks;
        await expect
          .poll(() => t.app.publicView.ticks, { timeout: 15_000 })
          .toBeGreaterThanOrEqual(ticks + 2);
        expect(sse.events.map((e) => e.data).join('')).not.toContain(String(newest));
        expect(rowOf(await leaderboard(), race.runners[1]).DistanceKm).toBeCloseTo(3, 1);
      } finally {
        sse.close();
      }
    } finally {
      await setRace({ PublicDelayMin: 0 });
    }
  });

  it('without privacy settings the public reads the live state', async () => {
    const r1 = race.runners[0];
    expect(rowOf(await leaderboard(), r1).DistanceKm).toBeCloseTo(5, 1);
    expect(posOf(await positionsOf(), r1).Latest?.[0]).toBe(now - 1 * MIN);
  });

  // ------------------------------------------------------------------ retention

  it('retention: fixes of a race ended more than RetentionDays ago are deleted, its results stay', async () => {
    const old = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: now - 40 * DAY, keyPrefix: 'ret' });
    const kept = await seedLiveRace(t.app.db, {
      runners: 1,
      clockStartMs: now - 40 * DAY,
      keyPrefix: 'kept',
    });
    const recent = await seedLiveRace(t.app.db, {
      runners: 1,
      clockStartMs: now - 20 * DAY,
      keyPrefix: 'rec',
    });
    for (const r of [old, kept, recent]) {
      const start = r.clockStartMs;
      for (const [k, runner] of r.runners.entries())
        await store(t.app, r.raceId, runner, [
          { t: start + 10 * MIN, km: 2 + k },
          { t: start + 50 * MIN, km: 8 + k },
          { t: start + 70 * MIN, km: 10 },
        ]);
    }
    const endAt = (r: SeededRace) => new Date(r.clockStartMs + 2 * 60 * MIN);
    await t.app.db
      .update(races)
      .set({ clockStoppedAt: endAt(old), hasFinished: true, retentionDays: 30 })
      .where(eq(races.id, old.raceId));
    await t.app.db
      .update(races)
      .set({ clockStoppedAt: endAt(kept), hasFinished: true })
      .where(eq(races.id, kept.raceId));
    await t.app.db
      .update(races)
      .set({ clockStoppedAt: endAt(recent), hasFinished: true, retentionDays: 30 })
      .where(eq(races.id, recent.raceId));
    for (const r of [old, kept, recent])
      await t.app.events.publish({ type: 'race-updated', raceId: r.raceId });
    await expect
      .poll(async () => (await t.app.live.state(old.raceId)).clock.stopMs)
      .toBe(endAt(old).getTime());

    const board = async (raceId: number) =>
      (await call(t, 'GET', `/api/open/races/${raceId}/leaderboard`)).json<LeaderboardRow[]>();
    const before = await board(old.raceId);
    expect(before.map((r) => r.Status)).toEqual(['finished', 'finished']);
    const csvBefore = (await call(t, 'GET', `/api/open/races/${old.raceId}/results.csv`)).body;
    const fixCount = async (raceId: number) =>
      (await t.app.db.select({ n: count() }).from(positions).where(eq(positions.raceId, raceId)))[0].n;

    const job = new RetentionJob({ db: t.app.db, live: t.app.live, events: t.app.events, log: t.app.log });
    await job.runOnce();

    expect(await fixCount(old.raceId)).toBe(0);
    expect(await fixCount(kept.raceId)).toBe(3);
    expect(await fixCount(recent.raceId)).toBe(3);
    const [row] = await t.app.db.select().from(races).where(eq(races.id, old.raceId));
    expect(row.fixesDeletedAt).not.toBeNull();

    // Rebuilt from the kept results: the same leaderboard without positions, the same results file.
    await expect.poll(async () => (await t.app.live.state(old.raceId)).race.finalResults != null).toBe(true);
    const after = await board(old.raceId);
    const strip = (rows: LeaderboardRow[]) =>
      rows.map((r) => ({
        RunnerId: r.RunnerId,
        Rank: r.Rank,
        Status: r.Status,
        DistanceKm: r.DistanceKm,
        FinishTime: r.FinishTime,
      }));
    expect(strip(after)).toEqual(strip(before));
    expect(after.every((r) => r.Latitude === null && r.Longitude === null)).toBe(true);
    expect((await call(t, 'GET', `/api/open/races/${old.raceId}/results.csv`)).body).toBe(csvBefore);
    const pos = (await call(t, 'GET', `/api/open/races/${old.raceId}/positions`)).json<RunnerPositions[]>();
    expect(pos.every((p) => p.Latest === null && p.Trail.length === 0)).toBe(true);

    // A late fix of the purged race is deleted by the next run; the kept results are not rewritten.
    await t.app.db.insert(positions).values({
      deviceId: old.runners[0].deviceId,
      raceId: old.raceId,
      runnerId: old.runners[0].runnerId,
      fixTime: new Date(),
      ...pointAlong(100),
      source: 'osmand',
    });
    await job.runOnce();
    expect(await fixCount(old.raceId)).toBe(0);
    const [again] = await t.app.db
      .select()
      .from(races)
      .where(and(eq(races.id, old.raceId)));
    expect(again.fixesDeletedAt?.getTime()).toBe(row.fixesDeletedAt?.getTime());
    expect(strip(await board(old.raceId))).toEqual(strip(before));
  });
});
