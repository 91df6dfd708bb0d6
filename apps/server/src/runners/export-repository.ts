import { and, asc, eq, lte } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { positions } from '../db/schema';

/** What the exports read beyond the runner list and the live race: one runner's stored fixes. */

/**
 * A runner's fixes in the race the server received at or before `until` (the public delay counts from arrival, not
 * from the device's clock), in fix-time order.
 */
export async function listRunnerTrack(db: DbOrTx, raceId: number, runnerId: number, until: Date) {
  return db
    .select({ t: positions.fixTime, lat: positions.lat, lon: positions.lon, ele: positions.altitude })
    .from(positions)
    .where(
      and(eq(positions.raceId, raceId), eq(positions.runnerId, runnerId), lte(positions.receivedAt, until)),
    )
    .orderBy(asc(positions.fixTime));
}
