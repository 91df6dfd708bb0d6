import { and, asc, eq, gt, isNotNull } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { checkinEntries, checkpoints, positions, runnerStatusLog } from '../db/schema';

/**
 * What replay and the flow chart read beyond the live state: fixes with their arrival time, checkpoints, the history
 * of statuses set by people and aid-station check-ins (each with the time it was known).
 */

export interface ReceivedFixRow {
  id: number;
  runnerId: number;
  t: number;
  receivedMs: number;
  lat: number;
  lon: number;
  batteryPercent: number | null;
  batteryState: string | null;
  /** The accuracy the device reported (metres; null or absent: none): the matcher weighs the fix by it. */
  accuracy?: number | null;
}

/**
 * The race's attributed fixes with an id above `afterId`, in arrival order (then runner and fix time). The id range
 * uses the primary key, so reading what arrived since the last read stays cheap on a race of millions of fixes.
 */
export async function listReceivedFixes(db: DbOrTx, raceId: number, afterId = 0): Promise<ReceivedFixRow[]> {
  const rows = await db
    .select({
      id: positions.id,
      runnerId: positions.runnerId,
      fixTime: positions.fixTime,
      receivedAt: positions.receivedAt,
      lat: positions.lat,
      lon: positions.lon,
      batteryPercent: positions.batteryPercent,
      batteryState: positions.batteryState,
      accuracy: positions.accuracyM,
    })
    .from(positions)
    .where(and(eq(positions.raceId, raceId), isNotNull(positions.runnerId), gt(positions.id, afterId)))
    .orderBy(asc(positions.receivedAt), asc(positions.runnerId), asc(positions.fixTime));
  return rows.map((r) => ({
    id: r.id,
    runnerId: r.runnerId!,
    t: r.fixTime.getTime(),
    receivedMs: r.receivedAt.getTime(),
    lat: r.lat,
    lon: r.lon,
    batteryPercent: r.batteryPercent,
    batteryState: r.batteryState,
    accuracy: r.accuracy,
  }));
}

/** One status change (DNS/DNF/DSQ, or cleared: null) of a runner, at the time it was recorded. */
export interface StatusChangeRow {
  runnerId: number;
  status: string | null;
  distanceM: number | null;
  atMs: number;
}

/** Every status change of the race's runners, oldest first. */
export async function listStatusHistory(db: DbOrTx, raceId: number): Promise<StatusChangeRow[]> {
  const rows = await db
    .select({
      runnerId: runnerStatusLog.runnerId,
      status: runnerStatusLog.status,
      distanceM: runnerStatusLog.distanceM,
      at: runnerStatusLog.at,
    })
    .from(runnerStatusLog)
    .where(eq(runnerStatusLog.raceId, raceId))
    .orderBy(asc(runnerStatusLog.at), asc(runnerStatusLog.id));
  return rows.map((r) => ({
    runnerId: r.runnerId,
    status: r.status,
    distanceM: r.distanceM,
    atMs: r.at.getTime(),
  }));
}

/**
 * An aid-station check-in of a runner: when the runner was there (t), when the server was told (receivedMs), and
 * where the checkpoint is (the live race takes a check-in as a fix there, so the replay does too).
 */
export interface CheckinPassingRow {
  runnerId: number;
  checkpointId: number;
  t: number;
  receivedMs: number;
  lat: number;
  lon: number;
}

export async function listCheckinPassings(db: DbOrTx, raceId: number): Promise<CheckinPassingRow[]> {
  const rows = await db
    .select({
      runnerId: checkinEntries.runnerId,
      checkpointId: checkinEntries.checkpointId,
      time: checkinEntries.time,
      receivedAt: checkinEntries.receivedAt,
      lat: checkpoints.lat,
      lon: checkpoints.lon,
    })
    .from(checkinEntries)
    .innerJoin(checkpoints, eq(checkpoints.id, checkinEntries.checkpointId))
    .where(and(eq(checkinEntries.raceId, raceId), isNotNull(checkinEntries.runnerId)))
    .orderBy(asc(checkinEntries.time));
  return rows.map((r) => ({
    runnerId: r.runnerId!,
    checkpointId: r.checkpointId,
    t: r.time.getTime(),
    receivedMs: r.receivedAt.getTime(),
    lat: r.lat,
    lon: r.lon,
  }));
}
