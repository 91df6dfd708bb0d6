import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Db } from '../db/client';
import type { EventBus, LiveEvent } from '../events/bus';
import { badRequest } from '../lib/errors';
import { GroupCommitter } from './group-commit';
import { storeAlert, type StoredAlert } from './alert-repository';
import { storeFixes } from './fix-repository';
import type { AlertInput, FixInput, FixOutcome } from './types';
import { alertProblem, fixProblem } from './validate';

/**
 * Per fix of a batch source: stored/duplicate/unknown, `invalid` (refused by validation, never sent to the
 * database) or `failed` (the database refused it alone — its batch was bisected — or could not be reached).
 */
export type BatchOutcome =
  FixOutcome | { status: 'invalid'; message: string } | { status: 'failed'; error: unknown };

/**
 * For batch sources that must not fail for one bad fix: throws the first error only when every fix that reached
 * the database failed (an outage: the caller answers an error and the source re-delivers, which is harmless);
 * otherwise the failures are per-fix and the caller logs them.
 */
export function throwIfAllFailed(outcomes: BatchOutcome[]) {
  const failed = outcomes.filter((o) => o.status === 'failed');
  if (failed.length && failed.length === outcomes.filter((o) => o.status !== 'invalid').length)
    throw failed[0].error;
}

/** One string per device reference, for the group committer's quarantine of a device sending bad fixes. */
function deviceKey(ref: FixInput['device']): string {
  if ('trackingKey' in ref) return `key:${ref.trackingKey}`;
  if ('deviceId' in ref) return `id:${ref.deviceId}`;
  return `hw:${ref.source}:${ref.hardwareIds.join(',').toLowerCase()}`;
}

export interface PipelineOptions {
  db: Db;
  events: EventBus;
  log: FastifyBaseLogger;
  /** Batches written at once: 1 on PGlite (one connection), a few on PostgreSQL. */
  concurrency: number;
  /** PostgreSQL pool: batches run as a prepared statement on it. */
  pool?: pg.Pool;
  maxBatch?: number;
}

/**
 * The one way a position enters the store, whatever its source: validate → (batched) one statement that finds the
 * device, attributes the fix to the runner holding it at fix time, inserts it idempotently and moves the device's
 * newest-fix fields only forward → resolve the callers after commit → publish on the event bus.
 */
export class IngestPipeline {
  private readonly committer: GroupCommitter<FixInput, FixOutcome>;
  private closed = false;

  constructor(private readonly opts: PipelineOptions) {
    this.committer = new GroupCommitter<FixInput, FixOutcome>({
      write: (items) => this.write(items),
      concurrency: opts.concurrency,
      maxBatch: opts.maxBatch ?? 500,
      onBatchError: (err, size) =>
        opts.log.warn({ err, size }, 'ingest batch failed; writing it in halves to isolate the bad fix'),
      // A device whose fix the database refused is written apart from the others for a minute.
      key: (f) => deviceKey(f.device),
    });
  }

  /** One fix from an HTTP client: invalid → 400 (nothing stored). */
  async ingest(fix: FixInput): Promise<FixOutcome> {
    const problem = fixProblem(fix);
    if (problem) throw badRequest(problem, 'invalid_position');
    return this.committer.submit(fix);
  }

  /**
   * A batch from a source that cannot be answered per fix (inReach, SPOT, MQTT): invalid fixes are skipped, and a
   * fix the database refuses fails alone (`failed`) instead of failing the batch.
   */
  async ingestMany(fixes: FixInput[]): Promise<BatchOutcome[]> {
    const out: BatchOutcome[] = new Array<BatchOutcome>(fixes.length);
    const valid: number[] = [];
    fixes.forEach((f, i) => {
      const problem = fixProblem(f);
      if (problem) out[i] = { status: 'invalid', message: problem };
      else valid.push(i);
    });
    // Oldest first, so a backlog arrives in the order the device recorded it.
    valid.sort((a, b) => fixes[a].fixTime.getTime() - fixes[b].fixTime.getTime());
    await Promise.all(
      valid.map(async (i) => {
        try {
          out[i] = await this.committer.submit(fixes[i]);
        } catch (error) {
          out[i] = { status: 'failed', error };
        }
      }),
    );
    return out;
  }

  /** Stores an alert once; null when a duplicate, for an unknown device, or invalid (logged, nothing stored). */
  async recordAlert(a: AlertInput): Promise<StoredAlert | null> {
    const problem = alertProblem(a);
    if (problem) {
      this.opts.log.warn({ kind: a.kind, device: a.device, problem }, 'alert refused');
      return null;
    }
    const stored = await storeAlert(this.opts.db, a);
    if (stored) {
      this.publish([
        {
          type: 'alert',
          raceId: stored.raceId,
          runnerId: stored.runnerId,
          deviceId: stored.deviceId,
          kind: stored.kind,
          at: stored.at,
        },
      ]);
    }
    return stored;
  }

  async close() {
    this.closed = true;
    await this.committer.drain();
  }

  private async write(items: FixInput[]): Promise<FixOutcome[]> {
    const stored = await storeFixes(this.opts.db, items, this.opts.pool);
    const events: LiveEvent[] = [];
    const published = new Set<number>();
    const out = stored.map((row): FixOutcome => {
      if (row.deviceId === null) return { status: 'unknown_device' };
      if (row.positionId === null) return { status: 'duplicate', deviceId: row.deviceId };
      const f = items[row.idx];
      // Two copies of one fix in the same batch share a row: publish it once.
      if (!published.has(row.positionId)) {
        published.add(row.positionId);
        events.push({
          type: 'position',
          raceId: row.raceId,
          runnerId: row.runnerId,
          deviceId: row.deviceId,
          positionId: row.positionId,
          fixTime: f.fixTime.toISOString(),
          receivedAt: row.receivedAt ?? new Date().toISOString(),
          lat: f.lat,
          lon: f.lon,
          altitude: f.altitude ?? null,
          speed: f.speed ?? null,
          batteryPercent: f.batteryPercent ?? null,
          batteryState: f.batteryState ?? null,
          source: f.source,
        });
      }
      return {
        status: 'stored',
        positionId: row.positionId,
        deviceId: row.deviceId,
        raceId: row.raceId,
        runnerId: row.runnerId,
      };
    });
    this.publish(events);
    return out;
  }

  /** After commit; a bus failure must not turn a stored fix into an error for its sender. */
  private publish(events: LiveEvent[]) {
    if (this.closed && !events.length) return;
    for (const e of events) {
      this.opts.events.publish(e).catch((err: unknown) => this.opts.log.warn({ err }, 'publish failed'));
    }
  }
}
