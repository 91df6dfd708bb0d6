import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { courses, deviceAssignments, devices, races, runners } from '../db/schema';

export type RaceRow = typeof races.$inferSelect;
export type NewRace = Pick<
  typeof races.$inferInsert,
  | 'name'
  | 'description'
  | 'location'
  | 'startTime'
  | 'directorId'
  | 'publicDelayMin'
  | 'trailsPublic'
  | 'retentionDays'
>;
export type RaceFields = Pick<
  typeof races.$inferInsert,
  'name' | 'description' | 'location' | 'startTime' | 'publicDelayMin' | 'trailsPublic' | 'retentionDays'
>;

// Races with a start time first (soonest first), then those without, in creation order.
const raceOrder = [sql`${races.startTime} asc nulls last`, asc(races.id)];

export async function listRaces(
  db: DbOrTx,
  filter: { approved?: boolean; notStarted?: boolean; directorId?: string },
) {
  const conds = [];
  if (filter.approved !== undefined) conds.push(eq(races.approved, filter.approved));
  if (filter.notStarted) conds.push(eq(races.hasStarted, false));
  if (filter.directorId !== undefined) conds.push(eq(races.directorId, filter.directorId));
  return db
    .select()
    .from(races)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(...raceOrder);
}

export async function findRace(db: DbOrTx, id: number): Promise<RaceRow | undefined> {
  const [row] = await db.select().from(races).where(eq(races.id, id));
  return row;
}

/** Same, locking the row until the transaction ends (start/end/delete decide on its current state). */
export async function findRaceForUpdate(db: DbOrTx, id: number): Promise<RaceRow | undefined> {
  const [row] = await db.select().from(races).where(eq(races.id, id)).for('update');
  return row;
}

export async function insertRace(db: DbOrTx, values: NewRace): Promise<RaceRow> {
  const [row] = await db.insert(races).values(values).returning();
  return row;
}

export async function updateRace(
  db: DbOrTx,
  id: number,
  values: Partial<
    Pick<
      RaceRow,
      | 'name'
      | 'description'
      | 'location'
      | 'startTime'
      | 'hasStarted'
      | 'hasFinished'
      | 'approved'
      | 'clockStartedAt'
      | 'clockStoppedAt'
      | 'publicDelayMin'
      | 'trailsPublic'
      | 'retentionDays'
    >
  >,
): Promise<RaceRow | undefined> {
  const [row] = await db
    .update(races)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(races.id, id))
    .returning();
  return row;
}

/**
 * Removes a race and everything that belongs only to it. Devices survive, freed: their race and runner links are
 * cleared and any open hand-over row is closed first (the FKs would cascade, but the device row must be freed
 * explicitly so it is immediately available to other races).
 */
export async function deleteRaceCascade(db: DbOrTx, id: number, now: Date): Promise<void> {
  await db
    .update(deviceAssignments)
    .set({ unassignedAt: now })
    .where(and(eq(deviceAssignments.raceId, id), sql`${deviceAssignments.unassignedAt} is null`));
  await db.update(devices).set({ raceId: null, assignedRunnerId: null }).where(eq(devices.raceId, id));
  await db.delete(courses).where(eq(courses.raceId, id));
  await db.delete(runners).where(eq(runners.raceId, id));
  await db.delete(races).where(eq(races.id, id));
}
