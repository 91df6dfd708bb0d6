import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCheckpoints } from '../src/checkpoints/repository';
import { checkpoints, courses } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';
import { seedLiveRace } from './support/live-seed';

/** A straight course north with named waypoints; `extra` adds <wpt> elements. */
function gpx(wpts: { name: string; lat: number; lon?: number }[]): string {
  const pts = [];
  for (let i = 0; i <= 30; i++) pts.push(`<trkpt lat="${(46 + i * 0.001).toFixed(4)}" lon="7.0000"></trkpt>`);
  return `<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><metadata><name>T</name></metadata>${wpts
    .map((w) => `<wpt lat="${w.lat}" lon="${w.lon ?? 7}"><name>${w.name}</name></wpt>`)
    .join('')}<trk><trkseg>${pts.join('')}</trkseg></trk></gpx>`;
}

describe.each(dbKinds)('checkpoints and cutoffs (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  const upload = (raceId: number, body: string, token = alice) => {
    const { payload, headers } = multipartFile(body);
    return call(t, 'POST', `/api/director/course/${raceId}`, { token, payload, headers });
  };

  it('builds start, the waypoints on the course and finish when the course is uploaded', async () => {
    const raceId = await createRace(t, alice, { Name: 'CP' }, { approve: true, adminToken: admin });
    expect((await upload(raceId, gpxFixture('gpx11-two-segments.gpx'))).statusCode).toBe(201);
    const res = await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`);
    expect(res.statusCode).toBe(200);
    const list = res.json();
    // "Start & Finish" lies at 0 m: it is the start, not a checkpoint of its own.
    expect(list.map((c: { Name: string }) => c.Name)).toEqual(['Start', 'Aid station 1', 'Finish']);
    expect(list[0]).toEqual({
      CheckpointId: expect.any(Number),
      Name: 'Start',
      DistanceKm: 0,
      CutoffTime: null,
    });
    expect(list[1].DistanceKm).toBeCloseTo(1.001, 3);
    expect(list[2].DistanceKm).toBeGreaterThan(1.3);
    expect(list[2].DistanceKm).toBeLessThan(1.315);
  });

  it('keeps cutoffs and ids by name across a re-upload; drops waypoints off the course; delete removes them', async () => {
    const raceId = await createRace(t, alice, { Name: 'Re-upload' }, { approve: true, adminToken: admin });
    await upload(
      raceId,
      gpx([
        { name: 'Col', lat: 46.01 },
        { name: 'Refuge', lat: 46.02 },
      ]),
    );
    const first = (await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`)).json();
    expect(first.map((c: { Name: string }) => c.Name)).toEqual(['Start', 'Col', 'Refuge', 'Finish']);
    const col = first[1];
    const set = await call(t, 'PUT', `/api/director/races/${raceId}/checkpoints/${col.CheckpointId}`, {
      token: alice,
      body: { CutoffTime: '2026-06-01T10:30:00+02:00' },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ ...col, CutoffTime: '2026-06-01T08:30:00.000Z' });

    // Re-upload: Col moved, Refuge gone, a hut 5 km east is off the course, a new Lake.
    await upload(
      raceId,
      gpx([
        { name: 'Lake', lat: 46.005 },
        { name: 'Col', lat: 46.015 },
        { name: 'Hut', lat: 46.01, lon: 7.07 },
      ]),
    );
    const second = (await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`)).json();
    expect(second.map((c: { Name: string }) => c.Name)).toEqual(['Start', 'Lake', 'Col', 'Finish']);
    expect(second[2]).toMatchObject({
      CheckpointId: col.CheckpointId,
      CutoffTime: '2026-06-01T08:30:00.000Z',
    });
    expect(second[2].DistanceKm).toBeGreaterThan(col.DistanceKm);
    expect(second[0].CheckpointId).toBe(first[0].CheckpointId);

    const clear = await call(t, 'PUT', `/api/director/races/${raceId}/checkpoints/${col.CheckpointId}`, {
      token: admin,
      body: { CutoffTime: null },
    });
    expect(clear.statusCode).toBe(200);
    expect(clear.json().CutoffTime).toBeNull();

    const [course] = await t.database.db.select().from(courses).where(eq(courses.raceId, raceId));
    expect(
      (await call(t, 'DELETE', `/api/director/course/${raceId}/${course.id}`, { token: alice })).statusCode,
    ).toBe(200);
    expect((await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`)).json()).toEqual([]);
  });

  it('an aid station passed out and back is two checkpoints, one per pass', async () => {
    const raceId = await createRace(t, alice, { Name: 'Out and back' }, { approve: true, adminToken: admin });
    const out = [];
    for (let i = 0; i <= 30; i++) out.push(46 + i * 0.001);
    const lats = [...out, ...out.slice(0, -1).reverse()];
    const body = `<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="46.01" lon="7"><name>Aid</name></wpt><trk><trkseg>${lats
      .map((lat) => `<trkpt lat="${lat.toFixed(4)}" lon="7.0000"></trkpt>`)
      .join('')}</trkseg></trk></gpx>`;
    expect((await upload(raceId, body)).statusCode).toBe(201);
    const list = (await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`)).json();
    expect(list.map((c: { Name: string }) => c.Name)).toEqual(['Start', 'Aid', 'Aid (2)', 'Finish']);
    const [, aid, back, finish] = list;
    expect(aid.DistanceKm).toBeCloseTo(1.11, 1);
    // The second pass is as far from the finish as the first is from the start.
    expect(finish.DistanceKm - back.DistanceKm).toBeCloseTo(aid.DistanceKm, 2);
  });

  it('answers bad cutoffs, unknown checkpoints and other directors without writing', async () => {
    const raceId = await createRace(t, alice, { Name: 'Bad' });
    await upload(raceId, gpx([{ name: 'Col', lat: 46.01 }]));
    const [cp] = await t.database.db.select().from(checkpoints).where(eq(checkpoints.raceId, raceId));
    const put = (body: unknown, token = alice, id = cp.id) =>
      call(t, 'PUT', `/api/director/races/${raceId}/checkpoints/${id}`, { token, body });
    for (const body of [
      {},
      { CutoffTime: 'tomorrow' },
      { CutoffTime: 1234 },
      { CutoffTime: '2026-06-01T10:00:00' },
    ]) {
      const res = await put(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({
        error: expect.any(String),
        message: expect.stringContaining('CutoffTime'),
      });
    }
    expect((await put({ CutoffTime: null }, alice, 2_000_000)).json()).toMatchObject({
      error: 'checkpoint_not_found',
    });
    expect((await put({ CutoffTime: '2026-06-01T10:00:00Z' }, bob)).statusCode).toBe(404);
    expect((await put({ CutoffTime: '2026-06-01T10:00:00Z' })).statusCode).toBe(200);
    // Not approved: not public, but the director reads them.
    expect((await call(t, 'GET', `/api/open/races/${raceId}/checkpoints`)).statusCode).toBe(404);
    const mine = await call(t, 'GET', `/api/director/races/${raceId}/checkpoints`, { token: alice });
    expect(mine.json().map((c: { CutoffTime: string | null }) => c.CutoffTime)).toEqual([
      '2026-06-01T10:00:00.000Z',
      null,
      null,
    ]);
    const rows = await t.database.db.select().from(checkpoints).where(eq(checkpoints.raceId, raceId));
    expect(rows.filter((r) => r.cutoffTime !== null)).toHaveLength(1);
  });

  it('builds the checkpoints of a course stored before checkpoints existed on first read', async () => {
    const seeded = await seedLiveRace(t.database.db, { runners: 1, keyPrefix: `cp-${kind}-` });
    expect(
      await t.database.db.select().from(checkpoints).where(eq(checkpoints.raceId, seeded.raceId)),
    ).toHaveLength(0);
    // Two readers at once build them once.
    const [a, b] = await Promise.all([
      listCheckpoints(t.database.db, seeded.raceId),
      listCheckpoints(t.database.db, seeded.raceId),
    ]);
    // The seed's course is laid out with a rounded metres-per-degree: within 10 m.
    expect(a.map((c) => [c.kind, c.name, Math.round(c.distanceM / 10) * 10])).toEqual([
      ['start', 'Start', 0],
      ['waypoint', 'Aid 1', 5000],
      ['finish', 'Finish', 10000],
    ]);
    expect(b.map((c) => c.id)).toEqual(a.map((c) => c.id));
  });
});
