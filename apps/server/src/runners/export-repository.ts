import { and, asc, eq, isNotNull, lte } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { positions, runners } from '../db/schema';

/** What the exports read beyond the runner list: statuses people set, and one runner's stored fixes. */

/** RunnerId → the status a person set (DNS, DNF, DSQ), for the runners of the race that have one. */
export async function listSetStatuses(db: DbOrTx, raceId: number): Promise<Map<number, string>> {
  const rows = await db
    .select({ id: runners.id, status: runners.status })
    .from(runners)
    .where(and(eq(runners.raceId, raceId), isNotNull(runners.status)));
  return new Map(rows.map((r) => [r.id, r.status!]));
}

/** A runner's fixes in the race taken at or before `until`, in fix-time order. */
export async function listRunnerTrack(db: DbOrTx, raceId: number, runnerId: number, until: Date) {
  return db
    .select({ t: positions.fixTime, lat: positions.lat, lon: positions.lon, ele: positions.altitude })
    .from(positions)
    .where(and(eq(positions.raceId, raceId), eq(positions.runnerId, runnerId), lte(positions.fixTime, until)))
    .orderBy(asc(positions.fixTime));
}
