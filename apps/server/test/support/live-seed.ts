import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/client';
import {
  courses,
  deviceAssignments,
  devices,
  positions,
  races,
  runners,
  type CourseGeometry,
} from '../../src/db/schema';

/**
 * Seeding for live-race tests, benches and browser tests: an approved, started race on a straight course heading
 * north, runners holding devices (assigned before the start), and `postFixes`, which stores fixes then publishes
 * them the way ingestion does (commit, then event) — or send real OsmAnd pings with `osmandUrl`.
 */

export const COURSE_START = { lat: 46.0, lon: 7.0 };
/** Degrees of latitude per metre near 46° N (cheap-ruler's ky there is ~111,170 m/deg). */
const DEG_PER_M = 1 / 111_170;

/** A straight course north from COURSE_START, one vertex every 100 m, climbing 1 m per 100 m. */
export function straightCourse(lengthM: number): CourseGeometry {
  const points: CourseGeometry['points'] = [];
  for (let d = 0; d <= lengthM; d += 100) {
    points.push([COURSE_START.lon, COURSE_START.lat + d * DEG_PER_M, 500 + d / 100]);
  }
  return {
    points,
    waypoints: [{ name: 'Aid 1', lat: COURSE_START.lat + 5000 * DEG_PER_M, lon: COURSE_START.lon }],
  };
}

/** The point `distanceM` along straightCourse (optionally `eastM` off the line). */
export function pointAlong(distanceM: number, eastM = 0): { lat: number; lon: number } {
  return {
    lat: COURSE_START.lat + distanceM * DEG_PER_M,
    lon: COURSE_START.lon + eastM / (111_320 * Math.cos((COURSE_START.lat * Math.PI) / 180)),
  };
}

export interface SeededRunner {
  runnerId: number;
  deviceId: number;
  trackingKey: string;
  bib: string;
}

export interface SeededRace {
  raceId: number;
  clockStartMs: number;
  runners: SeededRunner[];
}

export interface SeedOptions {
  runners: number;
  approved?: boolean;
  courseLengthM?: number;
  clockStartMs?: number;
  /** Appended to tracking keys so several races in one database do not collide. */
  keyPrefix?: string;
  /** The devices' own expected reporting interval (s): the leaderboard calls a runner stale after 3 × this. */
  expectedIntervalS?: number;
  /** Another course than straightCourse(courseLengthM) (the wire bench's winding course); tests leave it out. */
  course?: { name: string; geometry: CourseGeometry; lengthM: number; climbM: number; descentM: number };
}

export async function seedLiveRace(db: Db, opts: SeedOptions): Promise<SeededRace> {
  const clockStartMs = opts.clockStartMs ?? Date.now() - 60 * 60_000;
  const lengthM = opts.courseLengthM ?? 10_000;
  const [race] = await db
    .insert(races)
    .values({
      name: 'Live Test Race',
      location: 'Test Valley',
      directorId: 'dir-live',
      approved: opts.approved ?? true,
      hasStarted: true,
      startTime: new Date(clockStartMs),
      clockStartedAt: new Date(clockStartMs),
    })
    .returning({ id: races.id });
  const course = opts.course ?? {
    name: 'Straight north',
    geometry: straightCourse(lengthM),
    lengthM,
    climbM: lengthM / 100,
    descentM: 0,
  };
  await db.insert(courses).values({
    raceId: race.id,
    ...course,
    pointCount: course.geometry.points.length,
    hasElevation: true,
  });
  const seeded: SeededRunner[] = [];
  const prefix = opts.keyPrefix ?? `r${race.id}`;
  const genders = ['M', 'F'] as const;
  const BATCH = 500;
  for (let start = 0; start < opts.runners; start += BATCH) {
    const n = Math.min(BATCH, opts.runners - start);
    const runnerRows = await db
      .insert(runners)
      .values(
        Array.from({ length: n }, (_, k) => {
          const i = start + k + 1;
          return {
            raceId: race.id,
            firstName: `Runner${i}`,
            lastName: `Test${i}`,
            bibNumber: String(i),
            gender: genders[i % 2],
            age: 20 + (i % 50),
          };
        }),
      )
      .returning({ id: runners.id, bib: runners.bibNumber });
    const deviceRows = await db
      .insert(devices)
      .values(
        runnerRows.map((r) => ({
          name: `Tracker ${r.bib}`,
          trackingKey: `${prefix}-key-${r.bib}`,
          raceId: race.id,
          assignedRunnerId: r.id,
          expectedIntervalS: opts.expectedIntervalS ?? null,
        })),
      )
      .returning({ id: devices.id, key: devices.trackingKey, runnerId: devices.assignedRunnerId });
    // Who holds which device since when: ingestion attributes fixes by it.
    await db.insert(deviceAssignments).values(
      deviceRows.map((d) => ({
        deviceId: d.id,
        raceId: race.id,
        runnerId: d.runnerId!,
        assignedAt: new Date(clockStartMs - 60 * 60_000),
      })),
    );
    for (const d of deviceRows) {
      const r = runnerRows.find((x) => x.id === d.runnerId)!;
      seeded.push({ runnerId: r.id, deviceId: d.id, trackingKey: d.key, bib: r.bib! });
    }
  }
  return { raceId: race.id, clockStartMs, runners: seeded };
}

export interface FixInput {
  t: number;
  lat: number;
  lon: number;
  batteryPercent?: number;
}

/** Stores fixes of one runner and publishes them on the event bus after the insert committed (as ingestion does). */
export async function postFixes(
  app: FastifyInstance,
  raceId: number,
  runner: SeededRunner,
  fixes: FixInput[],
): Promise<void> {
  const rows = await app.db
    .insert(positions)
    .values(
      fixes.map((f) => ({
        deviceId: runner.deviceId,
        raceId,
        runnerId: runner.runnerId,
        fixTime: new Date(f.t),
        lat: f.lat,
        lon: f.lon,
        batteryPercent: f.batteryPercent ?? null,
        source: 'osmand',
      })),
    )
    .returning({ id: positions.id, fixTime: positions.fixTime, receivedAt: positions.receivedAt });
  await Promise.all(
    rows.map((row, k) =>
      app.events.publish({
        type: 'position',
        raceId,
        runnerId: runner.runnerId,
        deviceId: runner.deviceId,
        positionId: row.id,
        fixTime: row.fixTime.toISOString(),
        receivedAt: row.receivedAt.toISOString(),
        lat: fixes[k].lat,
        lon: fixes[k].lon,
        altitude: null,
        speed: null,
        batteryPercent: fixes[k].batteryPercent ?? null,
        batteryState: null,
        source: 'osmand',
      }),
    ),
  );
}

/** A real OsmAnd / Traccar Client ping URL (query form) for a seeded runner's device. */
export function osmandUrl(base: string, runner: SeededRunner, fix: FixInput): string {
  const q = new URLSearchParams({
    id: runner.trackingKey,
    lat: String(fix.lat),
    lon: String(fix.lon),
    timestamp: new Date(fix.t).toISOString(),
  });
  if (fix.batteryPercent !== undefined) q.set('batt', String(fix.batteryPercent));
  return `${base}/api/ingest/osmand?${q}`;
}
