import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { iso, rows, type Row } from './sql';

/** The SPOT shared-page feeds an administrator registered (the SPOT poll job reads them). */

export interface SpotFeedRow {
  id: number;
  feedId: string;
  feedPassword: string | null;
  lastPolledAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export const feedRow = (r: Row): SpotFeedRow => ({
  id: Number(r.id),
  feedId: String(r.feed_id),
  feedPassword: (r.feed_password as string | null) ?? null,
  lastPolledAt: r.last_polled_at ? iso(r.last_polled_at) : null,
  lastError: (r.last_error as string | null) ?? null,
  createdAt: iso(r.created_at),
});

export async function listSpotFeeds(db: DbOrTx): Promise<SpotFeedRow[]> {
  return (await rows(db, sql`SELECT * FROM spot_feeds ORDER BY id`)).map(feedRow);
}

/** null when the feed is already registered. */
export async function insertSpotFeed(
  db: DbOrTx,
  feedId: string,
  feedPassword: string | null,
): Promise<SpotFeedRow | null> {
  const res = await rows(
    db,
    sql`INSERT INTO spot_feeds (feed_id, feed_password) VALUES (${feedId}, ${feedPassword})
        ON CONFLICT (feed_id) DO NOTHING RETURNING *`,
  );
  return res.length ? feedRow(res[0]) : null;
}

export async function deleteSpotFeed(db: DbOrTx, id: number): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM spot_feeds WHERE id = ${id} RETURNING id`)).length > 0;
}
