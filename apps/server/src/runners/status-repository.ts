import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { races, runnerStatusLog, runners } from '../db/schema';

/** The SQL of runner statuses (DNS/DNF/DSQ) and their log. Accepts a transaction. */

export interface RunnerWithRace {
  id: number;
  raceId: number;
  directorId: string;
  status: string | null;
  statusReason: string | null;
  statusAt: Date | null;
  statusBy: string | null;
  statusDistanceM: number | null;
}

const statusColumns = {
  id: runners.id,
  raceId: runners.raceId,
  status: runners.status,
  statusReason: runners.statusReason,
  statusAt: runners.statusAt,
  statusBy: runners.statusBy,
  statusDistanceM: runners.statusDistanceM,
};

/** A runner with its race's director (for the owner-or-admin check), locked with `forUpdate` in a transaction. */
export async function findRunnerWithRace(
  db: DbOrTx,
  runnerId: number,
  forUpdate = false,
): Promise<RunnerWithRace | undefined> {
  const q = db
    .select({ ...statusColumns, directorId: races.directorId })
    .from(runners)
    .innerJoin(races, eq(races.id, runners.raceId))
    .where(eq(runners.id, runnerId));
  const [row] = forUpdate ? await q.for('update', { of: runners }) : await q;
  return row;
}

export interface StatusWrite {
  status: string | null;
  reason: string | null;
  at: Date;
  by: string | null;
  distanceM: number | null;
}

export async function updateRunnerStatus(
  db: DbOrTx,
  raceId: number,
  runnerId: number,
  w: StatusWrite,
): Promise<Omit<RunnerWithRace, 'directorId'> | undefined> {
  const [row] = await db
    .update(runners)
    .set({
      status: w.status,
      statusReason: w.reason,
      statusAt: w.at,
      statusBy: w.by,
      statusDistanceM: w.distanceM,
    })
    .where(and(eq(runners.raceId, raceId), eq(runners.id, runnerId)))
    .returning(statusColumns);
  return row;
}

export async function insertStatusLog(
  db: DbOrTx,
  raceId: number,
  runnerId: number,
  w: StatusWrite,
): Promise<void> {
  await db.insert(runnerStatusLog).values({
    raceId,
    runnerId,
    status: w.status,
    reason: w.reason,
    at: w.at,
    by: w.by,
    distanceM: w.distanceM,
  });
}

/** Every status change of the race's runners, oldest first, with the runner's bib and name. */
export async function listStatusLog(db: DbOrTx, raceId: number) {
  return db
    .select({
      runnerId: runnerStatusLog.runnerId,
      bibNumber: runners.bibNumber,
      firstName: runners.firstName,
      lastName: runners.lastName,
      status: runnerStatusLog.status,
      reason: runnerStatusLog.reason,
      at: runnerStatusLog.at,
      by: runnerStatusLog.by,
      distanceM: runnerStatusLog.distanceM,
    })
    .from(runnerStatusLog)
    .innerJoin(runners, eq(runners.id, runnerStatusLog.runnerId))
    .where(eq(runnerStatusLog.raceId, raceId))
    .orderBy(asc(runnerStatusLog.id));
}
