import { and, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { courses, devices, races, runners } from '../db/schema';
import type { CoursePoint } from '@racebeacon/domain';
import type { SimRunner } from './simulator';

/** Course, runners with an OsmAnd device, and clock start of a race, read from the database. */
export async function findRaceForSimulation(
  db: Db,
  raceId: number,
): Promise<{ course: CoursePoint[]; runners: SimRunner[]; raceStart: Date }> {
  const [race] = await db.select().from(races).where(eq(races.id, raceId));
  if (!race) throw new Error(`No race ${raceId}.`);
  const [course] = await db.select().from(courses).where(eq(courses.raceId, raceId));
  if (!course) throw new Error(`Race ${raceId} has no course.`);
  const rows = await db
    .select({ key: devices.trackingKey, first: runners.firstName, last: runners.lastName })
    .from(devices)
    .innerJoin(runners, eq(runners.id, devices.assignedRunnerId))
    .where(
      and(eq(runners.raceId, raceId), eq(devices.source, 'osmand'), isNotNull(devices.assignedRunnerId)),
    );
  return {
    course: course.geometry.points,
    runners: rows.map((r) => ({ trackingKey: r.key, label: `${r.first} ${r.last}` })),
    raceStart: race.clockStartedAt ?? race.startTime ?? new Date(),
  };
}
