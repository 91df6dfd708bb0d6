import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { devices, runners } from '../db/schema';

export type RunnerRow = typeof runners.$inferSelect;
export type RunnerFields = Pick<
  typeof runners.$inferInsert,
  'firstName' | 'lastName' | 'bibNumber' | 'gender' | 'age' | 'emergencyContact' | 'phone' | 'hidePosition'
>;
/** A runner with the device it holds (from devices.assigned_runner_id, the single source of truth). */
export type RunnerWithDevice = RunnerRow & { deviceId: number | null; deviceName: string | null };

const runnerWithDevice = {
  id: runners.id,
  raceId: runners.raceId,
  firstName: runners.firstName,
  lastName: runners.lastName,
  bibNumber: runners.bibNumber,
  gender: runners.gender,
  age: runners.age,
  emergencyContact: runners.emergencyContact,
  phone: runners.phone,
  status: runners.status,
  statusReason: runners.statusReason,
  statusAt: runners.statusAt,
  statusBy: runners.statusBy,
  statusDistanceM: runners.statusDistanceM,
  hidePosition: runners.hidePosition,
  createdAt: runners.createdAt,
  deviceId: devices.id,
  deviceName: devices.name,
};

export async function listRunners(db: DbOrTx, raceId: number): Promise<RunnerWithDevice[]> {
  return db
    .select(runnerWithDevice)
    .from(runners)
    .leftJoin(devices, eq(devices.assignedRunnerId, runners.id))
    .where(eq(runners.raceId, raceId))
    .orderBy(asc(runners.lastName), asc(runners.firstName), asc(runners.id));
}

/** The fields an import compares, of every runner of the race (no device join, no order: 5,000 rows read fast). */
export async function listRunnersToMatch(db: DbOrTx, raceId: number) {
  return db
    .select({
      id: runners.id,
      bibNumber: runners.bibNumber,
      firstName: runners.firstName,
      lastName: runners.lastName,
      gender: runners.gender,
      age: runners.age,
      emergencyContact: runners.emergencyContact,
      phone: runners.phone,
    })
    .from(runners)
    .where(eq(runners.raceId, raceId));
}

export async function countRunners(db: DbOrTx, raceId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(runners).where(eq(runners.raceId, raceId));
  return Number(row?.n ?? 0);
}

export async function findRunner(
  db: DbOrTx,
  raceId: number,
  runnerId: number,
): Promise<RunnerWithDevice | undefined> {
  const [row] = await db
    .select(runnerWithDevice)
    .from(runners)
    .leftJoin(devices, eq(devices.assignedRunnerId, runners.id))
    .where(and(eq(runners.raceId, raceId), eq(runners.id, runnerId)));
  return row;
}

export async function findRunnerByBib(
  db: DbOrTx,
  raceId: number,
  bib: string,
): Promise<RunnerRow | undefined> {
  const [row] = await db
    .select()
    .from(runners)
    .where(and(eq(runners.raceId, raceId), eq(runners.bibNumber, bib)));
  return row;
}

export async function insertRunner(db: DbOrTx, raceId: number, values: RunnerFields): Promise<RunnerRow> {
  const [row] = await db
    .insert(runners)
    .values({ ...values, raceId })
    .returning();
  return row;
}

/**
 * Many runners in one statement (the CSV import; call it inside the import's transaction): one array parameter per
 * column through unnest, so 5,000 rows are 8 parameters and one round trip.
 */
export async function insertRunners(db: DbOrTx, raceId: number, values: RunnerFields[]): Promise<void> {
  if (values.length === 0) return;
  const col = <T>(f: (v: RunnerFields) => T) => sql.param(values.map(f));
  await db.execute(sql`
    INSERT INTO runners (race_id, first_name, last_name, bib_number, gender, age, emergency_contact, phone)
    SELECT ${raceId}::int, * FROM unnest(
      ${col((v) => v.firstName)}::text[], ${col((v) => v.lastName)}::text[], ${col((v) => v.bibNumber ?? null)}::text[],
      ${col((v) => v.gender ?? 'M')}::text[], ${col((v) => v.age ?? null)}::int[],
      ${col((v) => v.emergencyContact ?? null)}::text[], ${col((v) => v.phone ?? null)}::text[])`);
}

/**
 * Many runners of a race changed in one statement (the CSV import). The HQ fields change only where given
 * (`emergencyContact`/`phone` present in the values, null included), as on a single edit.
 */
export async function updateRunners(
  db: DbOrTx,
  raceId: number,
  changes: { id: number; values: RunnerFields }[],
): Promise<void> {
  if (changes.length === 0) return;
  const col = <T>(f: (c: { id: number; values: RunnerFields }) => T) => sql.param(changes.map(f));
  await db.execute(sql`
    UPDATE runners AS r SET
      first_name = u.first_name, last_name = u.last_name, bib_number = u.bib_number, gender = u.gender, age = u.age,
      emergency_contact = CASE WHEN u.set_contact THEN u.emergency_contact ELSE r.emergency_contact END,
      phone = CASE WHEN u.set_phone THEN u.phone ELSE r.phone END
    FROM unnest(
      ${col((c) => c.id)}::int[], ${col((c) => c.values.firstName)}::text[], ${col((c) => c.values.lastName)}::text[],
      ${col((c) => c.values.bibNumber ?? null)}::text[], ${col((c) => c.values.gender ?? 'M')}::text[],
      ${col((c) => c.values.age ?? null)}::int[],
      ${col((c) => c.values.emergencyContact !== undefined)}::boolean[], ${col((c) => c.values.emergencyContact ?? null)}::text[],
      ${col((c) => c.values.phone !== undefined)}::boolean[], ${col((c) => c.values.phone ?? null)}::text[]
    ) AS u(id, first_name, last_name, bib_number, gender, age, set_contact, emergency_contact, set_phone, phone)
    WHERE r.id = u.id AND r.race_id = ${raceId}::int`);
}

export async function updateRunner(
  db: DbOrTx,
  raceId: number,
  runnerId: number,
  values: RunnerFields,
): Promise<RunnerRow | undefined> {
  const [row] = await db
    .update(runners)
    .set(values)
    .where(and(eq(runners.raceId, raceId), eq(runners.id, runnerId)))
    .returning();
  return row;
}

export async function deleteRunner(db: DbOrTx, raceId: number, runnerId: number): Promise<boolean> {
  const rows = await db
    .delete(runners)
    .where(and(eq(runners.raceId, raceId), eq(runners.id, runnerId)))
    .returning({ id: runners.id });
  return rows.length > 0;
}
