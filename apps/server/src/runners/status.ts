import type {
  ManualRunnerStatus,
  RunnerStatusInfo,
  RunnerStatusInput,
  RunnerStatusLogEntry,
} from '@racebeacon/domain';
import type { Db, DbOrTx } from '../db/client';
import { notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import * as racesRepo from '../races/repository';
import type { AuthUser } from '../types';
import * as repo from './status-repository';

/**
 * Runner statuses set by people — DNS, DNF, DSQ, or cleared — and their log (who, when, why, distance reached).
 * `writeRunnerStatus` is the one place a status is written (inside the caller's transaction: the director's PUT
 * here, an aid station's DNF check-in); the live leaderboard reads the status when the race is rebuilt on the
 * `race-updated` the caller announces after commit.
 */

/** One change of a runner's status. */
export interface RunnerStatusChange {
  raceId: number;
  runnerId: number;
  /** The new status, or null to clear it. */
  status: ManualRunnerStatus | null;
  reason: string | null;
  /** Who: a person's name / email / id, or e.g. "check-in". */
  by: string | null;
  at: Date;
  /** Distance reached along the course (m), kept with a DNF; null when unknown (ignored unless DNF). */
  distanceM: number | null;
}

/** How far along the course a runner is now (m), from the live state; null when not known. */
export type RunnerDistanceLookup = (raceId: number, runnerId: number) => Promise<number | null>;

const runnerNotFound = (id: number) => notFound(`Runner ${id} was not found.`, 'runner_not_found');

/**
 * Writes a runner's status and a log row, inside the caller's transaction. Returns false when the runner is not
 * in that race (nothing written). Setting the same status and reason again writes nothing and returns true. The
 * caller announces `race-updated` after commit (`RaceEvents.raceChanged(raceId)`).
 */
export async function writeRunnerStatus(tx: DbOrTx, change: RunnerStatusChange): Promise<boolean> {
  const current = await repo.findRunnerWithRace(tx, change.runnerId, true);
  if (!current || current.raceId !== change.raceId) return false;
  if (current.status === change.status && current.statusReason === change.reason) return true;
  const w: repo.StatusWrite = {
    status: change.status,
    reason: change.status === null ? null : change.reason,
    at: change.at,
    by: change.by,
    distanceM: change.status === 'DNF' ? change.distanceM : null,
  };
  await repo.updateRunnerStatus(tx, change.raceId, change.runnerId, w);
  // The log keeps the reason of a clearing too ("wrongly entered").
  await repo.insertStatusLog(tx, change.raceId, change.runnerId, { ...w, reason: change.reason });
  return true;
}

/**
 * Writes a status in its own transaction and announces the race change. For callers without a transaction of
 * their own; returns false when the runner is not in that race.
 */
export async function setRunnerStatus(
  db: Db,
  events: RaceEvents,
  change: RunnerStatusChange,
): Promise<boolean> {
  const ok = await db.transaction((tx) => writeRunnerStatus(tx, change));
  if (ok) await events.raceChanged(change.raceId);
  return ok;
}

const km = (m: number | null) => (m === null ? null : Math.round(m) / 1000);
const actorOf = (user: AuthUser): string => user.name || user.email || user.id;

function toStatusInfo(r: Omit<repo.RunnerWithRace, 'directorId'>): RunnerStatusInfo {
  return {
    RunnerId: r.id,
    RaceId: r.raceId,
    Status: (r.status as ManualRunnerStatus | null) ?? null,
    Reason: r.statusReason,
    StatusTime: r.statusAt ? r.statusAt.toISOString() : null,
    StatusBy: r.statusBy,
    DistanceKm: km(r.statusDistanceM),
  };
}

/** The director's (or an admin's) status changes and the status log. */
export class RunnerStatusService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    /** The live state's distance of a runner (a DNF keeps it); without one, a DNF records no distance. */
    private readonly distanceOf: RunnerDistanceLookup = async () => null,
  ) {}

  /** Sets or clears a runner's status: the race's director or an admin; 404 for anyone else. */
  async setStatus(
    user: AuthUser,
    runnerId: number,
    body: RunnerStatusInput,
    now = new Date(),
  ): Promise<RunnerStatusInfo> {
    const runner = await repo.findRunnerWithRace(this.db, runnerId);
    if (!runner || (runner.directorId !== user.id && !user.isAdmin)) throw runnerNotFound(runnerId);
    const distanceM = body.Status === 'DNF' ? await this.distanceOf(runner.raceId, runnerId) : null;
    const change: RunnerStatusChange = {
      raceId: runner.raceId,
      runnerId,
      status: body.Status,
      reason: body.Reason,
      by: actorOf(user),
      at: now,
      distanceM,
    };
    const row = await this.db.transaction(async (tx) => {
      // The runner may have been deleted or moved meanwhile.
      if (!(await writeRunnerStatus(tx, change))) throw runnerNotFound(runnerId);
      return repo.findRunnerWithRace(tx, runnerId);
    });
    await this.events.raceChanged(runner.raceId);
    return toStatusInfo(row!);
  }

  /** Every status change of the race's runners, oldest first: the race's director or an admin. */
  async statusLog(user: AuthUser, raceId: number): Promise<RunnerStatusLogEntry[]> {
    const race = await racesRepo.findRace(this.db, raceId);
    if (!race || (race.directorId !== user.id && !user.isAdmin)) {
      throw notFound(`Race ${raceId} was not found.`);
    }
    return (await repo.listStatusLog(this.db, raceId)).map((r) => ({
      RunnerId: r.runnerId,
      BibNumber: r.bibNumber,
      FirstName: r.firstName,
      LastName: r.lastName,
      Status: (r.status as ManualRunnerStatus | null) ?? null,
      Reason: r.reason,
      At: r.at.toISOString(),
      By: r.by,
      DistanceKm: km(r.distanceM),
    }));
  }
}
