import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { racePrivacy, type RacePrivacy } from '@racebeacon/domain';
import type { DbOrTx } from '../db/client';
import { courses, devices, positions, races, runners, type CourseGeometry } from '../db/schema';

/** What the live race needs from the database, read in one go when a race's live state is (re)built. */

export interface LiveRaceRow {
  id: number;
  approved: boolean;
  startTime: Date | null;
  hasStarted: boolean;
  hasFinished: boolean;
  clockStartedAt: Date | null;
  clockStoppedAt: Date | null;
  /** The race's alert thresholds (null: the defaults); LostSignalFactor sets when a runner goes stale. */
  alertSettings?: Record<string, unknown> | null;
  /** Who runs it (the director and admins read the race live, without the privacy rules). */
  directorId?: string;
  /** Privacy (privacy/): the public delay and whether trails are public. */
  publicDelayMin?: number;
  trailsPublic?: boolean;
  /** Retention: the results kept when the race's fixes were deleted (jobs/retention-job.ts); shown from then on. */
  finalResults?: { Rows: unknown[]; Splits: unknown[] } | null;
}

export interface LiveRunnerRow {
  id: number;
  firstName: string;
  lastName: string;
  bibNumber: string | null;
  gender: string;
  age: number | null;
  batteryState: string | null;
  batteryPercent: number | null;
  /** The device the runner holds now, its source and its own expected interval (null: the source's). */
  deviceId?: number | null;
  deviceSource?: string | null;
  expectedIntervalS?: number | null;
  /** A status set by people ('DNS' | 'DNF' | 'DSQ') and the distance a DNF reached (m). */
  status?: string | null;
  statusDistanceM?: number | null;
  /** Privacy: no dot or trail for the public. */
  hidePosition?: boolean;
}

export interface LiveFixRow {
  runnerId: number;
  t: number;
  lat: number;
  lon: number;
  batteryPercent: number | null;
  batteryState: string | null;
  /** The accuracy the device reported (metres; null or absent: none): the matcher weighs the fix by it. */
  accuracy?: number | null;
}

export async function findLiveRace(db: DbOrTx, raceId: number): Promise<LiveRaceRow | null> {
  const [row] = await db
    .select({
      id: races.id,
      approved: races.approved,
      startTime: races.startTime,
      hasStarted: races.hasStarted,
      hasFinished: races.hasFinished,
      clockStartedAt: races.clockStartedAt,
      clockStoppedAt: races.clockStoppedAt,
      alertSettings: races.alertSettings,
      directorId: races.directorId,
      publicDelayMin: races.publicDelayMin,
      trailsPublic: races.trailsPublic,
      finalResults: races.finalResults,
    })
    .from(races)
    .where(eq(races.id, raceId));
  return row ?? null;
}

export async function findCourseGeometry(db: DbOrTx, raceId: number): Promise<CourseGeometry | null> {
  const [row] = await db
    .select({ geometry: courses.geometry })
    .from(courses)
    .where(eq(courses.raceId, raceId));
  return row?.geometry ?? null;
}

/** Runners of the race with the battery of the device they hold now (if any). */
export async function listLiveRunners(db: DbOrTx, raceId: number): Promise<LiveRunnerRow[]> {
  return db
    .select({
      id: runners.id,
      firstName: runners.firstName,
      lastName: runners.lastName,
      bibNumber: runners.bibNumber,
      gender: runners.gender,
      age: runners.age,
      batteryState: devices.batteryState,
      batteryPercent: devices.batteryPercent,
      deviceId: devices.id,
      deviceSource: devices.source,
      expectedIntervalS: devices.expectedIntervalS,
      status: runners.status,
      statusDistanceM: runners.statusDistanceM,
      hidePosition: runners.hidePosition,
    })
    .from(runners)
    .leftJoin(devices, eq(devices.assignedRunnerId, runners.id))
    .where(eq(runners.raceId, raceId))
    .orderBy(asc(runners.id));
}

/** Every attributed fix of the race, in runner then fix-time order. */
export async function listRaceFixes(db: DbOrTx, raceId: number): Promise<LiveFixRow[]> {
  const rows = await db
    .select({
      runnerId: positions.runnerId,
      fixTime: positions.fixTime,
      lat: positions.lat,
      lon: positions.lon,
      batteryPercent: positions.batteryPercent,
      batteryState: positions.batteryState,
      accuracy: positions.accuracyM,
    })
    .from(positions)
    .where(and(eq(positions.raceId, raceId), isNotNull(positions.runnerId)))
    .orderBy(asc(positions.runnerId), asc(positions.fixTime));
  return rows.map((r) => ({
    runnerId: r.runnerId!,
    t: r.fixTime.getTime(),
    lat: r.lat,
    lon: r.lon,
    batteryPercent: r.batteryPercent,
    batteryState: r.batteryState,
    accuracy: r.accuracy,
  }));
}

/**
 * The race's privacy as stored now (its settings and the runners who hide their position): read on every
 * `race-updated`, ahead of the rebuild, so a privacy change applies before its answer (live/race-cache.ts).
 */
export async function findRacePrivacy(db: DbOrTx, raceId: number): Promise<RacePrivacy | null> {
  const [race] = await db
    .select({ publicDelayMin: races.publicDelayMin, trailsPublic: races.trailsPublic })
    .from(races)
    .where(eq(races.id, raceId));
  if (!race) return null;
  const hidden = await db
    .select({ id: runners.id })
    .from(runners)
    .where(and(eq(runners.raceId, raceId), eq(runners.hidePosition, true)));
  return racePrivacy(
    race,
    hidden.map((r) => ({ id: r.id, hidePosition: true })),
  );
}
