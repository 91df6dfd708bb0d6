import type { Race, RaceInput } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { conflict, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import { isoOrNull } from '../lib/time';
import * as repo from './repository';

/** Row → API entity. */
export function toRace(r: repo.RaceRow): Race {
  return {
    RaceId: r.id,
    Name: r.name,
    Description: r.description,
    Location: r.location,
    StartTime: isoOrNull(r.startTime),
    HasStarted: r.hasStarted,
    HasFinished: r.hasFinished,
    Approved: r.approved,
    DirectorId: r.directorId,
    ClockStartedAt: isoOrNull(r.clockStartedAt),
    ClockStoppedAt: isoOrNull(r.clockStoppedAt),
    PublicDelayMin: r.publicDelayMin,
    TrailsPublic: r.trailsPublic,
    RetentionDays: r.retentionDays,
  };
}

const raceNotFound = (id: number) => notFound(`Race ${id} was not found.`);

/** The parsed race body (raceBodySchema): Approved/HasStarted/HasFinished/DirectorId never reach here. */
function toFields(body: RaceInput): repo.RaceFields {
  return {
    name: body.Name,
    description: body.Description,
    location: body.Location,
    startTime: body.StartTime === null ? null : new Date(body.StartTime),
    // Privacy settings: absent in the body, unchanged (a create takes the column defaults).
    ...(body.PublicDelayMin !== undefined ? { publicDelayMin: body.PublicDelayMin } : {}),
    ...(body.TrailsPublic !== undefined ? { trailsPublic: body.TrailsPublic } : {}),
    ...(body.RetentionDays !== undefined ? { retentionDays: body.RetentionDays } : {}),
  };
}

/**
 * Races: who may see and change them, and the race clock. Every change live viewers can see is announced through
 * `events` after it committed.
 */
export class RaceService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
  ) {}

  // --- public ---

  async listPublicRaces(opts: { notStartedOnly?: boolean } = {}): Promise<Race[]> {
    const rows = await repo.listRaces(this.db, { approved: true, notStarted: opts.notStartedOnly });
    return rows.map(toRace);
  }

  /** An approved race, or 404: unapproved races do not exist for the public. */
  async getApprovedRace(id: number): Promise<repo.RaceRow> {
    const row = await repo.findRace(this.db, id);
    if (!row || !row.approved) throw raceNotFound(id);
    return row;
  }

  async getPublicRace(id: number): Promise<Race> {
    return toRace(await this.getApprovedRace(id));
  }

  // --- director ---

  /** The caller's race, or 404 (another director's race is indistinguishable from a missing one). */
  async getOwnedRace(directorId: string, id: number): Promise<repo.RaceRow> {
    const row = await repo.findRace(this.db, id);
    if (!row || row.directorId !== directorId) throw raceNotFound(id);
    return row;
  }

  /** A race the caller runs (its director) or oversees (an admin), or 404 like getOwnedRace. */
  async getManagedRace(user: { id: string; isAdmin: boolean }, id: number): Promise<repo.RaceRow> {
    const row = await repo.findRace(this.db, id);
    if (!row || (row.directorId !== user.id && !user.isAdmin)) throw raceNotFound(id);
    return row;
  }

  async getDirectorRace(directorId: string, id: number): Promise<Race> {
    return toRace(await this.getOwnedRace(directorId, id));
  }

  async listDirectorRaces(directorId: string): Promise<Race[]> {
    return (await repo.listRaces(this.db, { directorId })).map(toRace);
  }

  /** A new race is unapproved, so nobody watches it yet: nothing to announce. */
  async createRace(directorId: string, body: RaceInput): Promise<Race> {
    return toRace(await repo.insertRace(this.db, { ...toFields(body), directorId }));
  }

  async updateRace(directorId: string, id: number, body: RaceInput): Promise<Race> {
    await this.getOwnedRace(directorId, id);
    const row = await repo.updateRace(this.db, id, toFields(body));
    if (!row) throw raceNotFound(id);
    await this.events.raceChanged(id);
    return toRace(row);
  }

  async deleteRace(directorId: string, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await repo.findRaceForUpdate(tx, id);
      if (!row || row.directorId !== directorId) throw raceNotFound(id);
      await repo.deleteRaceCascade(tx, id, new Date());
    });
    await this.events.raceChanged(id);
  }

  /**
   * Start: only an approved race that has not started. The race clock starts at StartTime when that is already
   * past (a director pressing Start late must not shift everyone's times), otherwise now.
   */
  async startRace(directorId: string, id: number, now = new Date()): Promise<Race> {
    const race = await this.db.transaction(async (tx) => {
      const row = await repo.findRaceForUpdate(tx, id);
      if (!row || row.directorId !== directorId) throw raceNotFound(id);
      if (!row.approved)
        throw conflict('This race is not approved yet; an administrator must approve it first.');
      if (row.hasStarted) throw conflict('This race has already been started.');
      const clockStartedAt = row.startTime && row.startTime.getTime() <= now.getTime() ? row.startTime : now;
      return toRace((await repo.updateRace(tx, id, { hasStarted: true, clockStartedAt }))!);
    });
    await this.events.raceChanged(id);
    return race;
  }

  async endRace(directorId: string, id: number, now = new Date()): Promise<Race> {
    const race = await this.db.transaction(async (tx) => {
      const row = await repo.findRaceForUpdate(tx, id);
      if (!row || row.directorId !== directorId) throw raceNotFound(id);
      if (!row.hasStarted) throw conflict('This race has not been started, so it cannot be ended.');
      if (row.hasFinished) throw conflict('This race has already ended.');
      return toRace((await repo.updateRace(tx, id, { hasFinished: true, clockStoppedAt: now }))!);
    });
    await this.events.raceChanged(id);
    return race;
  }
}
