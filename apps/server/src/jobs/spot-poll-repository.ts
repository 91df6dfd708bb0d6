import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { rows } from '../ingest/sql';
import { feedRow, type SpotFeedRow } from '../ingest/spot-feed-repository';

/** When SPOT feeds are polled: the races that need them, and a claim per feed that spaces polls cluster-wide. */

/**
 * Claims a feed for polling: succeeds only if nobody (no process) polled it within `minGapSeconds`, so several
 * server processes never poll one feed more often than SPOT allows.
 */
export async function claimSpotFeed(
  db: DbOrTx,
  id: number,
  minGapSeconds: number,
): Promise<SpotFeedRow | null> {
  const res = await rows(
    db,
    sql`UPDATE spot_feeds SET last_polled_at = now()
        WHERE id = ${id}
          AND (last_polled_at IS NULL OR last_polled_at <= now() - make_interval(secs => ${minGapSeconds}))
        RETURNING *`,
  );
  return res.length ? feedRow(res[0]) : null;
}

export async function setSpotFeedError(db: DbOrTx, id: number, error: string | null): Promise<void> {
  await db.execute(sql`UPDATE spot_feeds SET last_error = ${error} WHERE id = ${id}`);
}

/**
 * Races during which SPOT feeds must be polled: live (started, not finished) or starting within the hour, and
 * using at least one SPOT device.
 */
export async function activeSpotRaceIds(db: DbOrTx): Promise<number[]> {
  const res = await rows(
    db,
    sql`SELECT r.id FROM races r
        WHERE NOT r.has_finished
          AND (r.has_started OR (r.start_time IS NOT NULL AND r.start_time <= now() + interval '1 hour'
                                 AND r.start_time >= now() - interval '1 day'))
          AND (EXISTS (SELECT 1 FROM devices d WHERE d.source = 'spot' AND d.race_id = r.id)
               OR EXISTS (SELECT 1 FROM device_assignments da JOIN devices d ON d.id = da.device_id
                          WHERE da.race_id = r.id AND d.source = 'spot' AND da.unassigned_at IS NULL))
        ORDER BY r.id`,
  );
  return res.map((r) => Number(r.id));
}
