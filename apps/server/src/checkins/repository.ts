import { and, asc, count, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { races, runners } from '../db/schema';
import { checkinEntries, checkinLinks, checkpoints } from '../db/schema-race-ops';

/** Check-in links (token stored hashed) and entries (one row per EntryId and race), and what the live race reads. */

export interface CheckpointRow {
  id: number;
  raceId: number;
  name: string;
  distanceM: number;
  lat: number;
  lon: number;
}

export async function findCheckpoint(
  db: DbOrTx,
  raceId: number,
  checkpointId: number,
): Promise<CheckpointRow | null> {
  const [row] = await db
    .select({
      id: checkpoints.id,
      raceId: checkpoints.raceId,
      name: checkpoints.name,
      distanceM: checkpoints.distanceM,
      lat: checkpoints.lat,
      lon: checkpoints.lon,
    })
    .from(checkpoints)
    .where(and(eq(checkpoints.id, checkpointId), eq(checkpoints.raceId, raceId)));
  return row ?? null;
}

export interface LinkRow {
  id: number;
  raceId: number;
  checkpointId: number;
  checkpointName: string;
  label: string | null;
  createdAt: Date;
  createdBy: string | null;
  revokedAt: Date | null;
  entries: number;
}

const linkColumns = {
  id: checkinLinks.id,
  raceId: checkinLinks.raceId,
  checkpointId: checkinLinks.checkpointId,
  checkpointName: checkpoints.name,
  label: checkinLinks.label,
  createdAt: checkinLinks.createdAt,
  createdBy: checkinLinks.createdBy,
  revokedAt: checkinLinks.revokedAt,
};

export async function insertLink(
  db: DbOrTx,
  v: { raceId: number; checkpointId: number; tokenHash: string; label: string | null; createdBy: string },
): Promise<number> {
  const [row] = await db.insert(checkinLinks).values(v).returning({ id: checkinLinks.id });
  return row.id;
}

/** A race's links with the number of entries each brought, oldest first. */
export async function listLinks(db: DbOrTx, raceId: number, linkId?: number): Promise<LinkRow[]> {
  const entries = db
    .select({ linkId: checkinEntries.linkId, n: count().as('n') })
    .from(checkinEntries)
    .where(and(eq(checkinEntries.raceId, raceId), isNotNull(checkinEntries.linkId)))
    .groupBy(checkinEntries.linkId)
    .as('e');
  return db
    .select({ ...linkColumns, entries: sql<number>`coalesce(${entries.n}, 0)::int` })
    .from(checkinLinks)
    .innerJoin(checkpoints, eq(checkpoints.id, checkinLinks.checkpointId))
    .leftJoin(entries, eq(entries.linkId, checkinLinks.id))
    .where(
      and(eq(checkinLinks.raceId, raceId), linkId === undefined ? undefined : eq(checkinLinks.id, linkId)),
    )
    .orderBy(asc(checkinLinks.id));
}

/** Revokes a link of the race (kept as it was when already revoked); false when there is no such link. */
export async function revokeLink(db: DbOrTx, raceId: number, linkId: number, at: Date): Promise<boolean> {
  const rows = await db
    .update(checkinLinks)
    .set({ revokedAt: sql`coalesce(${checkinLinks.revokedAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(checkinLinks.id, linkId), eq(checkinLinks.raceId, raceId)))
    .returning({ id: checkinLinks.id });
  return rows.length > 0;
}

export interface ActiveLink {
  linkId: number;
  raceId: number;
  raceName: string;
  raceApproved: boolean;
  startTime: Date | null;
  clockStartedAt: Date | null;
  /** End Race: from then on only a director's correction changes results. */
  clockStoppedAt: Date | null;
  hasFinished: boolean;
  checkpoint: CheckpointRow;
}

/** The link with this token hash if it is not revoked, with its race and checkpoint. */
export async function findActiveLink(db: DbOrTx, tokenHash: string): Promise<ActiveLink | null> {
  const [row] = await db
    .select({
      linkId: checkinLinks.id,
      raceId: races.id,
      raceName: races.name,
      raceApproved: races.approved,
      startTime: races.startTime,
      clockStartedAt: races.clockStartedAt,
      clockStoppedAt: races.clockStoppedAt,
      hasFinished: races.hasFinished,
      cpId: checkpoints.id,
      cpName: checkpoints.name,
      cpDistanceM: checkpoints.distanceM,
      cpLat: checkpoints.lat,
      cpLon: checkpoints.lon,
    })
    .from(checkinLinks)
    .innerJoin(races, eq(races.id, checkinLinks.raceId))
    .innerJoin(checkpoints, eq(checkpoints.id, checkinLinks.checkpointId))
    .where(and(eq(checkinLinks.tokenHash, tokenHash), isNull(checkinLinks.revokedAt)));
  if (!row) return null;
  return {
    linkId: row.linkId,
    raceId: row.raceId,
    raceName: row.raceName,
    raceApproved: row.raceApproved,
    startTime: row.startTime,
    clockStartedAt: row.clockStartedAt,
    clockStoppedAt: row.clockStoppedAt,
    hasFinished: row.hasFinished,
    checkpoint: {
      id: row.cpId,
      raceId: row.raceId,
      name: row.cpName,
      distanceM: row.cpDistanceM,
      lat: row.cpLat,
      lon: row.cpLon,
    },
  };
}

/** The runners a volunteer can pick: those with a bib, by bib. */
export async function listBibRunners(db: DbOrTx, raceId: number) {
  return db
    .select({
      id: runners.id,
      bibNumber: runners.bibNumber,
      firstName: runners.firstName,
      lastName: runners.lastName,
      status: runners.status,
    })
    .from(runners)
    .where(and(eq(runners.raceId, raceId), isNotNull(runners.bibNumber)))
    .orderBy(asc(runners.bibNumber));
}

/** Whether a volunteer checked the runner in (or out) at the race's finish. */
export async function hasFinishCheckin(db: DbOrTx, raceId: number, runnerId: number): Promise<boolean> {
  const [row] = await db
    .select({ n: count() })
    .from(checkinEntries)
    .innerJoin(checkpoints, eq(checkpoints.id, checkinEntries.checkpointId))
    .where(
      and(
        eq(checkinEntries.raceId, raceId),
        eq(checkinEntries.runnerId, runnerId),
        eq(checkpoints.kind, 'finish'),
        sql`${checkinEntries.kind} <> 'dnf'`,
      ),
    );
  return Number(row?.n ?? 0) > 0;
}

/** The race's finish checkpoint, or null (no course). */
export async function findFinishCheckpointId(db: DbOrTx, raceId: number): Promise<number | null> {
  const [row] = await db
    .select({ id: checkpoints.id })
    .from(checkpoints)
    .where(and(eq(checkpoints.raceId, raceId), eq(checkpoints.kind, 'finish')));
  return row?.id ?? null;
}

/** The runner wearing this bib in the race, or null. */
export async function findBibRunner(db: DbOrTx, raceId: number, bib: string) {
  const [row] = await db
    .select({
      id: runners.id,
      bibNumber: runners.bibNumber,
      firstName: runners.firstName,
      lastName: runners.lastName,
      status: runners.status,
    })
    .from(runners)
    .where(and(eq(runners.raceId, raceId), eq(runners.bibNumber, bib)));
  return row ?? null;
}

export interface EntryRow {
  bibNumber: string;
  kind: string;
  time: Date;
  answer: Record<string, unknown> | null;
}

export async function findEntry(db: DbOrTx, raceId: number, entryId: string): Promise<EntryRow | null> {
  const [row] = await db
    .select({
      bibNumber: checkinEntries.bibNumber,
      kind: checkinEntries.kind,
      time: checkinEntries.time,
      answer: checkinEntries.answer,
    })
    .from(checkinEntries)
    .where(and(eq(checkinEntries.raceId, raceId), eq(checkinEntries.entryId, entryId)));
  return row ?? null;
}

/**
 * Stores an entry unless its EntryId is already stored for the race (ON CONFLICT on the unique index: of concurrent
 * identical posts exactly one inserts; the others wait for it and insert nothing). True when this call stored it.
 */
export async function insertEntryOnce(
  db: DbOrTx,
  v: {
    entryId: string;
    linkId: number;
    raceId: number;
    checkpointId: number;
    runnerId: number;
    bibNumber: string;
    kind: string;
    time: Date;
    receivedAt: Date;
    answer: Record<string, unknown>;
  },
): Promise<boolean> {
  const rows = await db
    .insert(checkinEntries)
    .values(v)
    .onConflictDoNothing({ target: [checkinEntries.raceId, checkinEntries.entryId] })
    .returning({ id: checkinEntries.id });
  return rows.length > 0;
}

/** A runner's check-in at a checkpoint, as a fix of the live race (at the checkpoint, at the check-in time). */
export interface CheckinFixRow {
  runnerId: number;
  t: number;
  lat: number;
  lon: number;
  checkpointId: number;
  kind: string;
}

/** Every check-in of the race with a runner, in runner then time order (merged into the live race's fixes). */
export async function listCheckinFixes(db: DbOrTx, raceId: number): Promise<CheckinFixRow[]> {
  const rows = await db
    .select({
      runnerId: checkinEntries.runnerId,
      time: checkinEntries.time,
      lat: checkpoints.lat,
      lon: checkpoints.lon,
      checkpointId: checkinEntries.checkpointId,
      kind: checkinEntries.kind,
    })
    .from(checkinEntries)
    .innerJoin(checkpoints, eq(checkpoints.id, checkinEntries.checkpointId))
    .where(and(eq(checkinEntries.raceId, raceId), isNotNull(checkinEntries.runnerId)))
    .orderBy(asc(checkinEntries.runnerId), asc(checkinEntries.time));
  return rows.map((r) => ({
    runnerId: r.runnerId!,
    t: r.time.getTime(),
    lat: r.lat,
    lon: r.lon,
    checkpointId: r.checkpointId,
    kind: r.kind,
  }));
}
