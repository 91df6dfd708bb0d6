import type { PublicRunner, Runner } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { conflict, notFound } from '../lib/errors';
import { isUniqueViolation } from '../repositories/db-errors';
import * as devicesRepo from '../repositories/devices';
import * as repo from '../repositories/runners';
import { toPublicRunner, toRunner } from './dto';
import { getApprovedRace, getOwnedRace } from './races';

/** Parsed runner body (runnerBodySchema): RunnerId/RaceId/DeviceId in a PUT body are ignored. */
export interface RunnerInput {
  FirstName: string;
  LastName: string;
  BibNumber: string | null;
  Gender: 'M' | 'F';
  Age: number | null;
}

const toFields = (b: RunnerInput): repo.RunnerFields => ({
  firstName: b.FirstName,
  lastName: b.LastName,
  bibNumber: b.BibNumber,
  gender: b.Gender,
  age: b.Age,
});

const duplicateBib = (bib: string) =>
  conflict(`Bib number ${bib} is already taken in this race.`, 'duplicate_bib');
const runnerNotFound = (id: number) => notFound(`Runner ${id} was not found in this race.`);

export async function listPublicRunners(db: Db, raceId: number): Promise<PublicRunner[]> {
  await getApprovedRace(db, raceId);
  return (await repo.listRunners(db, raceId)).map(toPublicRunner);
}

export async function listDirectorRunners(db: Db, directorId: string, raceId: number): Promise<Runner[]> {
  await getOwnedRace(db, directorId, raceId);
  return (await repo.listRunners(db, raceId)).map(toRunner);
}

/** Bib numbers are unique per race: checked first for a clear message, and by the unique index under races. */
async function ensureBibFree(db: Db, raceId: number, bib: string | null, exceptRunnerId?: number) {
  if (bib === null) return;
  const other = await repo.findRunnerByBib(db, raceId, bib);
  if (other && other.id !== exceptRunnerId) throw duplicateBib(bib);
}

export async function createRunner(
  db: Db,
  directorId: string,
  raceId: number,
  body: RunnerInput,
): Promise<Runner> {
  await getOwnedRace(db, directorId, raceId);
  await ensureBibFree(db, raceId, body.BibNumber);
  try {
    const row = await repo.insertRunner(db, raceId, toFields(body));
    return toRunner({ ...row, deviceId: null, deviceName: null });
  } catch (err) {
    if (isUniqueViolation(err) && body.BibNumber !== null) throw duplicateBib(body.BibNumber);
    throw err;
  }
}

export async function updateRunner(
  db: Db,
  directorId: string,
  raceId: number,
  runnerId: number,
  body: RunnerInput,
): Promise<Runner> {
  await getOwnedRace(db, directorId, raceId);
  await ensureBibFree(db, raceId, body.BibNumber, runnerId);
  try {
    const row = await repo.updateRunner(db, raceId, runnerId, toFields(body));
    if (!row) throw runnerNotFound(runnerId);
  } catch (err) {
    if (isUniqueViolation(err) && body.BibNumber !== null) throw duplicateBib(body.BibNumber);
    throw err;
  }
  return toRunner((await repo.findRunner(db, raceId, runnerId))!);
}

/** Deleting a runner frees the device they held and closes its hand-over row, in one transaction. */
export async function deleteRunner(
  db: Db,
  directorId: string,
  raceId: number,
  runnerId: number,
): Promise<void> {
  await getOwnedRace(db, directorId, raceId);
  await db.transaction(async (tx) => {
    const held = await devicesRepo.findDeviceHeldBy(tx, runnerId);
    if (held && held.raceId === raceId) {
      await devicesRepo.closeOpenAssignment(tx, held.id, new Date());
      await devicesRepo.updateDevice(tx, held.id, { assignedRunnerId: null });
    }
    if (!(await repo.deleteRunner(tx, raceId, runnerId))) throw runnerNotFound(runnerId);
  });
}
