import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { courses, deviceAssignments, devices, races, runners, settings, users } from '../db/schema';
import { demoCourse } from './course';

export const DEMO_SETTING_KEY = 'demo.race';
/** Used when the embedded provider's demo director does not exist (external identity provider). */
export const FALLBACK_DIRECTOR_ID = 'demo-director-1';
const DIRECTOR_EMAIL = 'director1@racebeacon.example';

const FIRST = [
  ['Léa', 'F'],
  ['Hugo', 'M'],
  ['Chloé', 'F'],
  ['Lucas', 'M'],
  ['Manon', 'F'],
  ['Nathan', 'M'],
  ['Emma', 'F'],
  ['Louis', 'M'],
  ['Camille', 'F'],
  ['Jules', 'M'],
  ['Sarah', 'F'],
  ['Gabriel', 'M'],
  ['Inès', 'F'],
  ['Arthur', 'M'],
  ['Zoé', 'F'],
  ['Tom', 'M'],
  ['Alice', 'F'],
  ['Noah', 'M'],
  ['Julia', 'F'],
  ['Paul', 'M'],
  ['Anna', 'F'],
  ['Marco', 'M'],
  ['Sofia', 'F'],
  ['Kilian', 'M'],
  ['Heidi', 'F'],
  ['Jonas', 'M'],
  ['Elin', 'F'],
  ['Mateo', 'M'],
  ['Nora', 'F'],
  ['Felix', 'M'],
] as const;
const LAST = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
  'Simon',
  'Laurent',
  'Lefebvre',
  'Michel',
  'Garcia',
  'Rossi',
  'Bianchi',
  'Müller',
  'Schmid',
  'Keller',
  'Favre',
  'Perret',
  'Rey',
  'Berthod',
  'Jornet',
  'Lindqvist',
  'Hansen',
  'Costa',
  'Novak',
  'Weber',
];

export interface DemoRace {
  raceId: number;
  course: [number, number, number | null][];
  raceStart: Date;
  runners: { trackingKey: string; label: string }[];
}

/** The demo race recorded on an earlier start, if it is still there and not finished. */
export async function findDemoRace(db: Db): Promise<DemoRace | null> {
  const [s] = await db.select().from(settings).where(eq(settings.key, DEMO_SETTING_KEY));
  const raceId = (s?.value as { raceId?: number } | undefined)?.raceId;
  if (!raceId) return null;
  const [race] = await db.select().from(races).where(eq(races.id, raceId));
  if (!race || race.hasFinished || !race.clockStartedAt) return null;
  const [course] = await db.select().from(courses).where(eq(courses.raceId, raceId));
  if (!course) return null;
  const rows = await db
    .select({ key: devices.trackingKey, first: runners.firstName, last: runners.lastName })
    .from(devices)
    .innerJoin(runners, eq(runners.id, devices.assignedRunnerId))
    .where(eq(devices.raceId, raceId));
  return {
    raceId,
    course: course.geometry.points,
    raceStart: race.clockStartedAt,
    runners: rows.map((r) => ({ trackingKey: r.key, label: `${r.first} ${r.last}` })),
  };
}

/**
 * Seeds the demo on a fresh install (no races yet): an approved race started 45 minutes ago with a course,
 * 30 runners, and an OsmAnd device per runner assigned before the start. Returns null if races already exist.
 */
export async function seedDemo(db: Db, now = new Date()): Promise<DemoRace | null> {
  return db.transaction(async (tx) => {
    const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(races);
    if (Number(n) > 0) return null;
    const [director] = await tx
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.email}) = ${DIRECTOR_EMAIL}`);
    const start = new Date(now.getTime() - 45 * 60_000);
    const [race] = await tx
      .insert(races)
      .values({
        name: 'Demo: Tour des Aiguilles 32K',
        description:
          'A demonstration race with simulated runners carrying phones running Traccar Client. Positions arrive every 2.5 minutes.',
        location: 'Chamonix-Mont-Blanc, France',
        startTime: start,
        clockStartedAt: start,
        hasStarted: true,
        approved: true,
        directorId: director?.id ?? FALLBACK_DIRECTOR_ID,
      })
      .returning();
    const c = demoCourse();
    await tx.insert(courses).values({
      raceId: race.id,
      name: 'Tour des Aiguilles 32K',
      fileName: 'tour-des-aiguilles-32k.gpx',
      geometry: c.geometry,
      lengthM: c.lengthM,
      climbM: c.climbM,
      descentM: c.descentM,
      pointCount: c.geometry.points.length,
      hasElevation: true,
    });
    const assignedAt = new Date(start.getTime() - 30 * 60_000);
    const out: DemoRace['runners'] = [];
    for (let i = 0; i < FIRST.length; i++) {
      const [first, gender] = FIRST[i];
      const last = LAST[(i * 7) % LAST.length];
      const [runner] = await tx
        .insert(runners)
        .values({
          raceId: race.id,
          firstName: first,
          lastName: last,
          bibNumber: String(101 + i),
          gender,
          age: 22 + ((i * 13) % 38),
        })
        .returning();
      const trackingKey = randomBytes(24).toString('base64url');
      const [device] = await tx
        .insert(devices)
        .values({
          name: `Demo phone ${String(i + 1).padStart(2, '0')}`,
          source: 'osmand',
          trackingKey,
          raceId: race.id,
          assignedRunnerId: runner.id,
        })
        .returning();
      await tx
        .insert(deviceAssignments)
        .values({ deviceId: device.id, raceId: race.id, runnerId: runner.id, assignedAt });
      out.push({ trackingKey, label: `${first} ${last}` });
    }
    await tx
      .insert(settings)
      .values({ key: DEMO_SETTING_KEY, value: { raceId: race.id } })
      .onConflictDoUpdate({ target: settings.key, set: { value: { raceId: race.id } } });
    return { raceId: race.id, course: c.geometry.points, raceStart: start, runners: out };
  });
}
