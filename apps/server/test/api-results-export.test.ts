import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseCsv,
  parseGpx,
  type Checkpoint,
  type LeaderboardRow,
  type RunnerSplits,
} from '@racebeacon/domain';
import { positions, races, runners } from '../src/db/schema';
import { createTestApp, type TestContext } from './support/app';
import { call } from './support/api';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe.each(dbKinds)('results CSV and GPX tracks (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  // whole minutes, so that the expected times are exact
  const start = Math.floor(Date.now() / MIN) * MIN - 120 * MIN;

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 4, clockStartMs: start, courseLengthM: 10_000 });
    await t.app.db.update(races).set({ name: 'Trail des Cimes' }).where(eq(races.id, race.raceId));
    const [r1, r2, r3, r4] = race.runners;
    // Runner 2 finishes first (50 min), runner 1 second (62 min); runner 3 stops at 4 km; runner 4 never starts.
    // Fixes are stored out of time order: the track must come back sorted.
    await postFixes(t.app, race.raceId, r1, [
      { t: start + 30 * MIN, ...pointAlong(5000) },
      { t: start + 10 * MIN, ...pointAlong(1600) },
      { t: start + 62 * MIN, ...pointAlong(10_000) },
      { t: start + 45 * MIN, ...pointAlong(7500) },
    ]);
    await postFixes(t.app, race.raceId, r2, [
      { t: start + 20 * MIN, ...pointAlong(4000) },
      { t: start + 50 * MIN, ...pointAlong(10_000) },
    ]);
    await postFixes(t.app, race.raceId, r3, [
      { t: start + 15 * MIN, ...pointAlong(2000) },
      { t: start + 35 * MIN, ...pointAlong(4000) },
    ]);
    await t.app.db.update(runners).set({ status: 'DNF' }).where(eq(runners.id, r3.runnerId));
    await t.app.db.update(runners).set({ status: 'DNS' }).where(eq(runners.id, r4.runnerId));
    const director = await t.issuer.director('dir-live');
    const ended = await call(t, 'PUT', `/api/director/races/end/${race.raceId}`, { token: director });
    expect(ended.statusCode).toBe(200);
  });
  afterAll(async () => t?.close());

  it('results.csv of a finished race: exact rows, BOM, attachment', async () => {
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/results.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="results-trail-des-cimes\.csv"/,
    );
    expect(res.body.charCodeAt(0)).toBe(0xfeff);
    const lines = res.body.split('\r\n');
    expect(lines.at(-1)).toBe('');
    const table = parseCsv(res.body).records.map((r) => r.fields);
    expect(table[0]).toEqual([
      'Rank',
      'BibNumber',
      'FirstName',
      'LastName',
      'Gender',
      'Age',
      'Status',
      'FinishTime',
      'Elapsed',
      'DistanceKm',
      'Start (0.0 km)',
      'Aid 1 (5.0 km)',
      'Finish (10.0 km)',
    ]);
    // One column per checkpoint: the passing times of GET …/splits.
    const checkpoints = (await call(t, 'GET', `/api/open/races/${race.raceId}/checkpoints`)).json<
      Checkpoint[]
    >();
    const splits = (await call(t, 'GET', `/api/open/races/${race.raceId}/splits`)).json<RunnerSplits[]>();
    expect(checkpoints.map((c) => c.Name)).toEqual(['Start', 'Aid 1', 'Finish']);
    for (const r of race.runners) {
      const row = table.find((x) => x[1] === r.bib)!;
      const mine = splits.find((s) => s.RunnerId === r.runnerId)?.Splits ?? [];
      expect(row.slice(10)).toEqual(
        checkpoints.map((c) => {
          const at = mine.find((s) => s.CheckpointId === c.CheckpointId)?.PassingTime;
          return at ? iso(Date.parse(at)) : '';
        }),
      );
    }
    // runner 1 passed Aid 1 (5 km) with the fix at 30 min, and runner 3 never did
    expect(table.find((x) => x[1] === '1')![11]).toBe(iso(start + 30 * MIN));
    expect(table.find((x) => x[1] === '3')![11]).toBe('');
    const rows = table.map((row) => row.slice(0, 10));
    const byBib = new Map(rows.slice(1).map((row) => [row[1], row]));
    expect(rows.slice(1).map((row) => row[1])).toEqual(['2', '1', '3', '4']);
    // Finish times and elapsed are the live leaderboard's (the domain places the finish between fixes).
    const board = (await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard`)).json<
      LeaderboardRow[]
    >();
    const finish = (bib: string) => board.find((r) => r.BibNumber === bib)!;
    const elapsed = (s: number) =>
      `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(Math.round(s % 60)).padStart(2, '0')}`;
    for (const [bib, rank, first, last, gender, age] of [
      ['2', '1', 'Runner2', 'Test2', 'M', '22'],
      ['1', '2', 'Runner1', 'Test1', 'F', '21'],
    ]) {
      const row = finish(bib);
      expect(row.FinishTime).not.toBeNull();
      expect(byBib.get(bib)).toEqual([
        rank,
        bib,
        first,
        last,
        gender,
        age,
        'finished',
        iso(Date.parse(row.FinishTime!)),
        elapsed(row.ElapsedSeconds!),
        '10',
      ]);
    }
    // runner 2 finished with their fix at 50 min; runner 1 between 45 and 62 min
    expect(byBib.get('2')?.[7]).toBe(iso(start + 50 * MIN));
    expect(Date.parse(byBib.get('1')![7])).toBeGreaterThan(start + 45 * MIN);
    expect(Date.parse(byBib.get('1')![7])).toBeLessThanOrEqual(start + 62 * MIN);
    expect(byBib.get('3')?.slice(1, 7)).toEqual(['3', 'Runner3', 'Test3', 'F', '23', 'dnf']);
    expect(byBib.get('3')?.[7]).toBe('');
    expect(Number(byBib.get('3')?.[9])).toBeCloseTo(4, 1);
    expect(byBib.get('4')).toEqual(['', '4', 'Runner4', 'Test4', 'M', '24', 'dns', '', '', '']);
  });

  it('results.csv is public only for approved races', async () => {
    const hidden = await seedLiveRace(t.app.db, { runners: 1, approved: false, keyPrefix: `hidden-${kind}` });
    const res = await call(t, 'GET', `/api/open/races/${hidden.raceId}/results.csv`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
    const track = await call(
      t,
      'GET',
      `/api/open/races/${hidden.raceId}/runners/${hidden.runners[0].runnerId}/track.gpx`,
    );
    expect(track.statusCode).toBe(404);
  });

  it('track.gpx: valid GPX 1.1 with one trk, the fixes in time order', async () => {
    const r1 = race.runners[0];
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/runners/${r1.runnerId}/track.gpx`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gpx+xml; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="trail-des-cimes-1-runner1-test1\.gpx"/,
    );
    expect(res.body).toMatch(/<gpx version="1\.1"[^>]* xmlns="http:\/\/www\.topografix\.com\/GPX\/1\/1"/);
    expect(res.body.match(/<trk>/g)).toHaveLength(1);
    const gpx = parseGpx(res.body);
    expect(gpx.version).toBe('1.1');
    expect(gpx.kind).toBe('track');
    const expected = [1600, 5000, 7500, 10_000].map((d) => pointAlong(d));
    expect(gpx.points.map(([lon, lat]) => [lat, lon])).toEqual(expected.map((p) => [p.lat, p.lon]));
    const times = [...res.body.matchAll(/<time>([^<]+)<\/time>/g)].map((m) => m[1]);
    expect(times).toEqual([10, 30, 45, 62].map((m) => iso(start + m * MIN)));
  });

  it('track.gpx follows the race’s privacy: hidden runner, private trails, public delay; unknown runner', async () => {
    const [r1, r2] = race.runners;
    const url = (runnerId: number) => `/api/open/races/${race.raceId}/runners/${runnerId}/track.gpx`;
    expect((await call(t, 'GET', url(2_000_000_000))).statusCode).toBe(404);

    await t.app.db.update(runners).set({ hidePosition: true }).where(eq(runners.id, r2.runnerId));
    expect((await call(t, 'GET', url(r2.runnerId))).statusCode).toBe(404);
    await t.app.db.update(runners).set({ hidePosition: false }).where(eq(runners.id, r2.runnerId));

    await t.app.db.update(races).set({ trailsPublic: false }).where(eq(races.id, race.raceId));
    expect((await call(t, 'GET', url(r1.runnerId))).statusCode).toBe(404);
    await t.app.db.update(races).set({ trailsPublic: true }).where(eq(races.id, race.raceId));

    // Fixes received within the public delay are left out: the delay counts from arrival, not from the fix time.
    // All were stored just now, so a 70 min delay leaves none.
    await t.app.db.update(races).set({ publicDelayMin: 70 }).where(eq(races.id, race.raceId));
    expect((await call(t, 'GET', url(r1.runnerId))).body).not.toContain('<trkpt');
    // Received a second after they were taken (the race started 120 min ago; a 70 min delay keeps 10, 30, 45).
    await t.app.db
      .update(positions)
      .set({ receivedAt: sql`${positions.fixTime} + interval '1 second'` })
      .where(eq(positions.runnerId, r1.runnerId));
    const delayed = await call(t, 'GET', url(r1.runnerId));
    expect(parseGpx(delayed.body).points).toHaveLength(3);
    await t.app.db.update(races).set({ publicDelayMin: 0 }).where(eq(races.id, race.raceId));
  });
});
