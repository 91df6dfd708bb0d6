import { and, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { LeaderboardRow, RunnerSplits } from '@racebeacon/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { positions, races } from '../db/schema';
import type { EventBus } from '../events/bus';
import { HttpError } from '../lib/errors';
import type { LiveService } from '../live/service';
import type { Job } from './runner';

export const RETENTION_JOB = 'retention';

export interface RetentionJobOptions {
  db: Db;
  live: Pick<LiveService, 'leaderboard' | 'splits'>;
  events: Pick<EventBus, 'publish'>;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  /** Pause between runs (default one hour: retention is counted in days). */
  everyMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

/**
 * Retention of runners' positions (issue 15, privacy of runners): the fixes of a race whose director set
 * `RetentionDays` are deleted that many days after the race's end (End Race: `clock_stopped_at`); without it they
 * are kept. The results stay: before deleting, the race's final leaderboard (without positions) and splits are kept
 * on the race (`final_results`), which the live race shows from then on (live/race-live.ts), so the leaderboard, the
 * results file and the text view are unchanged. Fixes that arrive later (a late tracker) are deleted by the next run.
 */
export class RetentionJob implements Job {
  readonly name = RETENTION_JOB;
  readonly everyMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: RetentionJobOptions) {
    this.everyMs = opts.everyMs ?? 60 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  async runOnce(signal?: AbortSignal): Promise<void> {
    const { db, log } = this.opts;
    const now = new Date(this.now());
    const due = await db
      .select({ id: races.id, kept: races.fixesDeletedAt })
      .from(races)
      .where(
        and(
          isNotNull(races.retentionDays),
          isNotNull(races.clockStoppedAt),
          lte(sql`${races.clockStoppedAt} + ${races.retentionDays} * interval '1 day'`, now),
        ),
      );
    for (const race of due) {
      if (signal?.aborted) return;
      if (race.kept) {
        // Already done: only fixes that arrived since (rarely any).
        const late = await db
          .delete(positions)
          .where(eq(positions.raceId, race.id))
          .returning({ id: positions.id });
        if (late.length) log.info({ raceId: race.id, deleted: late.length }, 'retention: late fixes deleted');
        continue;
      }
      const results = await this.finalResults(race.id);
      const deleted = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(races)
          .set({ fixesDeletedAt: now, finalResults: results })
          .where(and(eq(races.id, race.id), isNull(races.fixesDeletedAt)))
          .returning({ id: races.id });
        if (!row) return 0; // another run got there first
        const gone = await tx
          .delete(positions)
          .where(eq(positions.raceId, race.id))
          .returning({ id: positions.id });
        return gone.length;
      });
      log.info({ raceId: race.id, deleted }, 'retention: fixes of an ended race deleted, results kept');
      // Every process rebuilds the race's live state: from the kept results now.
      await this.opts.events.publish({ type: 'race-updated', raceId: race.id });
    }
  }

  /** The race's results as they are now, without any position (a race not public has none to keep). */
  private async finalResults(raceId: number): Promise<{ Rows: LeaderboardRow[]; Splits: RunnerSplits[] }> {
    try {
      const [rows, splits] = await Promise.all([
        this.opts.live.leaderboard(raceId, {}),
        this.opts.live.splits(raceId),
      ]);
      return {
        Rows: rows.map((r) => ({
          ...r,
          Latitude: null,
          Longitude: null,
          EstimatedLatitude: null,
          EstimatedLongitude: null,
        })),
        Splits: splits,
      };
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 404) return { Rows: [], Splits: [] };
      throw err;
    }
  }
}
