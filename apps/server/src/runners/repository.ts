import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { devices, runners } from '../db/schema';

export type RunnerRow = typeof runners.$inferSelect;
export type RunnerFields = Pick<
  typeof runners.$inferInsert,
  'firstName' | 'lastName' | 'bibNumber' | 'gender' | 'age' | 'emergencyContact' | 'phone'
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

/** Many runners in one statement (the CSV import; call it inside the import's transaction). */
export async function insertRunners(db: DbOrTx, raceId: number, values: RunnerFields[]): Promise<number> {
  if (values.length === 0) return 0;
  const rows = await db
    .insert(runners)
    .values(values.map((v) => ({ ...v, raceId })))
    .returning({ id: runners.id });
  return rows.length;
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
