import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { iso, rows, type Row } from '../ingest/sql';

/**
 * Runners' own trackers polled from their own feed (a MapShare page, a SPOT device's own feed id): which devices
 * are due, and a claim per device in the database that spaces polls cluster-wide and carries the back-off
 * (devices.feed_polled_at, feed_next_poll_at, feed_error). Times are the job's clock, so tests can move it.
 */

export type FeedKind = 'mapshare' | 'spot';

export interface DeviceFeedRow {
  id: number;
  source: string;
  hardwareId: string | null;
  feedId: string | null;
  feedPassword: string | null;
  lastPingTime: Date | null;
  /** Before this claim: the previous poll, its back-off and error (the next back-off doubles the last one). */
  prevPolledAt: Date | null;
  prevNextPollAt: Date | null;
  prevError: string | null;
}

const dateOrNull = (v: unknown): Date | null => (v ? new Date(iso(v)) : null);

const toRow = (r: Row): DeviceFeedRow => ({
  id: Number(r.id),
  source: String(r.source),
  hardwareId: (r.hardware_id as string | null) ?? null,
  feedId: (r.feed_id as string | null) ?? null,
  feedPassword: (r.feed_password as string | null) ?? null,
  lastPingTime: dateOrNull(r.last_ping_time),
  prevPolledAt: dateOrNull(r.prev_polled_at),
  prevNextPollAt: dateOrNull(r.prev_next_at),
  prevError: (r.prev_error as string | null) ?? null,
});

/** A device of this kind that has a feed to poll. */
const hasFeed = (kind: FeedKind) =>
  kind === 'mapshare'
    ? sql`d.source = 'mapshare' AND d.hardware_id IS NOT NULL`
    : sql`d.source = 'spot' AND d.feed_id IS NOT NULL`;

/**
 * Devices whose own feed is polled now: in an approved race (the device's race, or the race of its open hand-over)
 * that is not finished and starts within 24 hours (or has no start time yet, so the director's tracker check works
 * before the start), or started within the last 7 days; and for an hour after the race is ended, for satellite
 * messages that arrive late. Ids only, oldest poll first.
 */
export async function activeFeedDeviceIds(db: DbOrTx, kind: FeedKind, now: Date): Promise<number[]> {
  const t = now.toISOString();
  const res = await rows(
    db,
    sql`SELECT d.id FROM devices d
        WHERE ${hasFeed(kind)}
          AND EXISTS (
            SELECT 1 FROM races r
            WHERE r.approved
              AND (r.id = d.race_id OR r.id IN (SELECT da.race_id FROM device_assignments da
                                                WHERE da.device_id = d.id AND da.unassigned_at IS NULL))
              AND ((NOT r.has_finished
                    AND (r.start_time IS NULL OR r.start_time <= ${t}::timestamptz + interval '24 hours')
                    AND (NOT r.has_started OR r.clock_started_at IS NULL
                         OR r.clock_started_at >= ${t}::timestamptz - interval '7 days'))
                   OR (r.has_finished AND r.clock_stopped_at >= ${t}::timestamptz - interval '1 hour')))
        ORDER BY d.feed_polled_at ASC NULLS FIRST, d.id`,
  );
  return res.map((r) => Number(r.id));
}

/**
 * Claims a device's feed for one poll at `now`: only when nobody (no process) polled it within `minGapSeconds` and
 * its back-off has passed. Returns the device with its state before the claim, or null.
 */
export async function claimDeviceFeed(
  db: DbOrTx,
  id: number,
  now: Date,
  minGapSeconds: number,
): Promise<DeviceFeedRow | null> {
  const t = now.toISOString();
  const res = await rows(
    db,
    sql`WITH prev AS (SELECT id, feed_polled_at, feed_next_poll_at, feed_error FROM devices WHERE id = ${id} FOR UPDATE)
        UPDATE devices d SET feed_polled_at = ${t}::timestamptz
        FROM prev
        WHERE d.id = prev.id
          AND (prev.feed_polled_at IS NULL
               OR prev.feed_polled_at <= ${t}::timestamptz - make_interval(secs => ${minGapSeconds}))
          AND (prev.feed_next_poll_at IS NULL OR prev.feed_next_poll_at <= ${t}::timestamptz)
        RETURNING d.*, prev.feed_polled_at AS prev_polled_at, prev.feed_next_poll_at AS prev_next_at,
                  prev.feed_error AS prev_error`,
  );
  return res.length ? toRow(res[0]) : null;
}

/** After a poll: when the feed may be polled next, and why the poll failed (null: it worked). */
export async function finishDeviceFeedPoll(
  db: DbOrTx,
  id: number,
  nextPollAt: Date,
  error: string | null,
): Promise<void> {
  await db.execute(
    sql`UPDATE devices SET feed_next_poll_at = ${nextPollAt.toISOString()}::timestamptz, feed_error = ${error}
        WHERE id = ${id}`,
  );
}
