import type { Checkpoint, CheckpointKind, SplitCheckpoint } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import * as racesRepo from '../races/repository';
import type { RaceService } from '../races/service';
import type { AuthUser } from '../types';
import * as repo from './repository';

export function toCheckpoint(row: repo.CheckpointRow): Checkpoint {
  return {
    CheckpointId: row.id,
    Name: row.name,
    DistanceKm: Math.round(row.distanceM) / 1000,
    CutoffTime: row.cutoffTime ? row.cutoffTime.toISOString() : null,
  };
}

/** A checkpoint as the domain's splits and cutoff rules read it. */
export function toSplitCheckpoint(row: repo.CheckpointRow): SplitCheckpoint {
  return {
    id: row.id,
    kind: row.kind as CheckpointKind,
    name: row.name,
    distanceM: row.distanceM,
    cutoffMs: row.cutoffTime ? row.cutoffTime.getTime() : null,
  };
}

/** A race the caller may run as HQ (its director or an admin); 404 otherwise, as every director route answers. */
export async function raceForOwnerOrAdmin(db: Db, user: AuthUser, raceId: number) {
  const race = await racesRepo.findRace(db, raceId);
  if (!race || (race.directorId !== user.id && !user.isAdmin))
    throw notFound(`Race ${raceId} was not found.`);
  return race;
}

/**
 * Checkpoints: the course's start, named waypoints and finish (built by the course upload, see repository.ts), read
 * publicly, with cutoffs the race's director (or an admin) sets. A cutoff change is announced to live viewers.
 */
export class CheckpointService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly races: RaceService,
  ) {}

  async listPublic(raceId: number): Promise<Checkpoint[]> {
    await this.races.getApprovedRace(raceId);
    return (await repo.listCheckpoints(this.db, raceId)).map(toCheckpoint);
  }

  async listForDirector(user: AuthUser, raceId: number): Promise<Checkpoint[]> {
    await raceForOwnerOrAdmin(this.db, user, raceId);
    return (await repo.listCheckpoints(this.db, raceId)).map(toCheckpoint);
  }

  async setCutoff(
    user: AuthUser,
    raceId: number,
    checkpointId: number,
    cutoffTime: string | null,
  ): Promise<Checkpoint> {
    await raceForOwnerOrAdmin(this.db, user, raceId);
    // Built on first read for a course older than checkpoints, so an id from the list can be set at once.
    await repo.listCheckpoints(this.db, raceId);
    const row = await repo.setCutoff(
      this.db,
      raceId,
      checkpointId,
      cutoffTime === null ? null : new Date(cutoffTime),
    );
    if (!row)
      throw notFound(`Checkpoint ${checkpointId} was not found in race ${raceId}.`, 'checkpoint_not_found');
    await this.events.raceChanged(raceId);
    return toCheckpoint(row);
  }
}
