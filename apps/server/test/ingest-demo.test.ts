import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { waitFor } from './ingest-fixtures';
import { courses, deviceAssignments, devices, positions, races, runners } from '../src/db/schema';
import { seedDemo } from '../src/demo/seed';
import { demoCourse } from '../src/demo/course';

describe('demo course', () => {
  it('is a closed trail loop of 20–50 km with real climbing', () => {
    const c = demoCourse();
    expect(c.lengthM).toBeGreaterThan(20_000);
    expect(c.lengthM).toBeLessThan(50_000);
    expect(c.climbM).toBeGreaterThan(800);
    const pts = c.geometry.points;
    expect(pts[0]).toEqual(pts[pts.length - 1]);
    expect(pts.every(([lon, lat, ele]) => Math.abs(lat) <= 90 && Math.abs(lon) <= 180 && ele !== null)).toBe(
      true,
    );
  });
});

describe.each(dbKinds)('demo on a fresh install (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind, { DEMO: 'on' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  it('seeds an approved, started race with a course and 25+ runners, each holding an OsmAnd device', async () => {
    const [race] = await t.app.db.select().from(races);
    expect(race).toMatchObject({ approved: true, hasStarted: true, hasFinished: false });
    expect(race.clockStartedAt!.getTime()).toBeLessThan(Date.now());
    const [course] = await t.app.db.select().from(courses).where(eq(courses.raceId, race.id));
    expect(course.pointCount).toBeGreaterThan(100);
    const rs = await t.app.db.select().from(runners).where(eq(runners.raceId, race.id));
    expect(rs.length).toBeGreaterThanOrEqual(25);
    const ds = await t.app.db.select().from(devices).where(eq(devices.raceId, race.id));
    expect(ds).toHaveLength(rs.length);
    expect(ds.every((d) => d.source === 'osmand' && d.assignedRunnerId !== null)).toBe(true);
    const history = await t.app.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.raceId, race.id));
    expect(history).toHaveLength(rs.length);
    expect(await seedDemo(t.app.db)).toBeNull(); // never twice
  });

  it('runs the simulator over real HTTP: every runner gets positions on the course, attributed to them', async () => {
    const [race] = await t.app.db.select().from(races);
    const perRunner = await waitFor(
      () =>
        t.app.db
          .select({ runnerId: positions.runnerId, n: sql<number>`count(*)::int` })
          .from(positions)
          .where(eq(positions.raceId, race.id))
          .groupBy(positions.runnerId),
      (rows) => rows.filter((r) => r.runnerId !== null && Number(r.n) >= 5).length >= 25,
      30_000,
    );
    expect(perRunner.every((r) => r.runnerId !== null)).toBe(true);
    const sample = await t.app.db.select().from(positions).where(eq(positions.raceId, race.id)).limit(50);
    // Within a few km of Chamonix, where the demo course is.
    for (const p of sample) {
      expect(Math.abs(p.lat - 45.93)).toBeLessThan(0.1);
      expect(Math.abs(p.lon - 6.9)).toBeLessThan(0.15);
      expect(p.source).toBe('osmand');
      expect(p.fixTime.getTime()).toBeGreaterThanOrEqual(race.clockStartedAt!.getTime());
    }
  });
});

describe('demo off', () => {
  it('DEMO=off seeds nothing', async () => {
    const t = await createTestApp('pglite', { DEMO: 'off' });
    try {
      expect(await t.app.db.select().from(races)).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});
