import type { Race } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { conflict, notFound } from '../lib/errors';
import * as repo from '../repositories/races';
import { toRace } from './dto';

/** Parsed race body (see raceBodySchema): Approved/HasStarted/HasFinished/DirectorId never reach here. */
export interface RaceInput {
  Name: string;
  Description: string;
  Location: string;
  StartTime: string | null;
}

const raceNotFound = (id: number) => notFound(`Race ${id} was not found.`);

function toFields(body: RaceInput): repo.RaceFields {
  return {
    name: body.Name,
    description: body.Description,
    location: body.Location,
    startTime: body.StartTime === null ? null : new Date(body.StartTime),
  };
}

// --- public ---

export async function listPublicRaces(db: Db, opts: { notStartedOnly?: boolean } = {}): Promise<Race[]> {
  const rows = await repo.listRaces(db, { approved: true, notStarted: opts.notStartedOnly });
  return rows.map(toRace);
}

/** An approved race, or 404: unapproved races do not exist for the public. */
export async function getApprovedRace(db: Db, id: number): Promise<repo.RaceRow> {
  const row = await repo.findRace(db, id);
  if (!row || !row.approved) throw raceNotFound(id);
  return row;
}

// --- director ---

/** The caller's race, or 404 (another director's race is indistinguishable from a missing one). */
export async function getOwnedRace(db: Db, directorId: string, id: number): Promise<repo.RaceRow> {
  const row = await repo.findRace(db, id);
  if (!row || row.directorId !== directorId) throw raceNotFound(id);
  return row;
}

export async function listDirectorRaces(db: Db, directorId: string): Promise<Race[]> {
  return (await repo.listRaces(db, { directorId })).map(toRace);
}

export async function createRace(db: Db, directorId: string, body: RaceInput): Promise<Race> {
  return toRace(await repo.insertRace(db, { ...toFields(body), directorId }));
}

export async function updateRace(db: Db, directorId: string, id: number, body: RaceInput): Promise<Race> {
  await getOwnedRace(db, directorId, id);
  const row = await repo.updateRace(db, id, toFields(body));
  if (!row) throw raceNotFound(id);
  return toRace(row);
}

export async function deleteRace(db: Db, directorId: string, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await repo.findRaceForUpdate(tx, id);
    if (!row || row.directorId !== directorId) throw raceNotFound(id);
    await repo.deleteRaceCascade(tx, id, new Date());
  });
}

/**
 * Start: only an approved race that has not started. The race clock starts at StartTime when that is already
 * past (a director pressing Start late must not shift everyone's times), otherwise now.
 */
export async function startRace(db: Db, directorId: string, id: number, now = new Date()): Promise<Race> {
  return db.transaction(async (tx) => {
    const race = await repo.findRaceForUpdate(tx, id);
    if (!race || race.directorId !== directorId) throw raceNotFound(id);
    if (!race.approved)
      throw conflict('This race is not approved yet; an administrator must approve it first.');
    if (race.hasStarted) throw conflict('This race has already been started.');
    const clockStartedAt = race.startTime && race.startTime.getTime() <= now.getTime() ? race.startTime : now;
    const row = await repo.updateRace(tx, id, { hasStarted: true, clockStartedAt });
    return toRace(row!);
  });
}

export async function endRace(db: Db, directorId: string, id: number, now = new Date()): Promise<Race> {
  return db.transaction(async (tx) => {
    const race = await repo.findRaceForUpdate(tx, id);
    if (!race || race.directorId !== directorId) throw raceNotFound(id);
    if (!race.hasStarted) throw conflict('This race has not been started, so it cannot be ended.');
    if (race.hasFinished) throw conflict('This race has already ended.');
    const row = await repo.updateRace(tx, id, { hasFinished: true, clockStoppedAt: now });
    return toRace(row!);
  });
}

// --- admin: race requests ---

export async function listPendingRaces(db: Db): Promise<Race[]> {
  return (await repo.listRaces(db, { approved: false })).map(toRace);
}

/** Approving an approved race is harmless: it answers the race unchanged. */
export async function approveRace(db: Db, id: number): Promise<Race> {
  const race = await repo.findRace(db, id);
  if (!race) throw raceNotFound(id);
  if (race.approved) return toRace(race);
  return toRace((await repo.updateRace(db, id, { approved: true }))!);
}
