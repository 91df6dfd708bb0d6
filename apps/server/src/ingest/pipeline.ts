import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Db } from '../db/client';
import type { EventBus, LiveEvent } from '../events/bus';
import { deviceHolderAt, storeAlert, type StoredAlert } from './alert-repository';
import { countUplinkWithoutPosition, storeBattery } from './battery-repository';
import { DeviceStateWriter } from './device-state';
import { deviceExists, storeFixes } from './fix-repository';
import { GroupCommitter } from './group-commit';
import type {
  AlertInput,
  BatchOutcome,
  BatteryOutcome,
  BatteryReport,
  DeviceRef,
  FixInput,
  FixOutcome,
} from './types';
import { alertProblem, alertTimeProblem, batteryReportProblem, fixProblem } from './validate';

declare const checked: unique symbol;
/** A fix that passed `checkFix`: the only kind `store` takes, so each fix is validated exactly once. */
export type ValidFix = FixInput & { readonly [checked]: true };
/** A battery report that passed `checkBattery`. */
export type ValidBattery = BatteryReport & { readonly [checked]: true };

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * For batch sources that must not fail for one bad fix: throws the first error only when every fix that reached
 * the database failed (an outage: the caller answers an error and the source re-delivers, which is harmless);
 * otherwise the failures are per-fix and the caller logs them.
 */
export function throwIfAllFailed(outcomes: BatchOutcome[]) {
  const failed = outcomes.filter((o) => o.status === 'failed');
  const written = outcomes.filter((o) => o.status !== 'invalid' && o.status !== 'rate_limited');
  if (failed.length && failed.length === written.length) throw failed[0].error;
}

/** One string per device reference, for the group committer's quarantine of a device sending bad fixes. */
function deviceKey(ref: DeviceRef): string {
  if ('trackingKey' in ref) return `key:${ref.trackingKey}`;
  if ('deviceId' in ref) return `id:${ref.deviceId}`;
  return `hw:${ref.source}:${ref.hardwareIds.join(',').toLowerCase()}`;
}

const describeTime = (a: AlertInput) =>
  Number.isFinite(a.at.getTime()) ? a.at.toISOString() : String(a.sourceTime ?? 'missing');

export interface PipelineOptions {
  db: Db;
  events: EventBus;
  log: FastifyBaseLogger;
  /** Batches written at once: 1 on PGlite (one connection), a few on PostgreSQL. */
  concurrency: number;
  /** PostgreSQL pool: batches run as a prepared statement on it. */
  pool?: pg.Pool;
  maxBatch?: number;
  /** While a batch is being written, fewer fixes than this wait for it (group-commit.ts). */
  minBatchWhileBusy?: number;
  /**
   * Told of every device alert stored (not of duplicates), after it is stored and before `recordAlert` returns: race
   * HQ raises its SOS and HELP alerts here, within the device's request. A failure is logged, never the sender's.
   */
  onAlert?: (alert: StoredAlert & Pick<AlertInput, 'message' | 'lat' | 'lon'>) => Promise<unknown>;
  /**
   * Told of a free-text device message (an inReach text) sent by a device a race holds: race HQ raises a help
   * alert when it has the race's help keyword. Texts are not stored; a failure is logged, never the sender's.
   */
  onText?: (text: StoredAlert & Pick<AlertInput, 'message' | 'lat' | 'lon'>) => Promise<unknown>;
}

/**
 * The one way what a device reports enters the store, whatever its source. Fixes: validated once → (batched) one
 * statement that finds the device, attributes the fix to the runner holding it at fix time, inserts it
 * idempotently and moves the device's newest-fix fields only forward → the callers are resolved after commit →
 * published on the event bus. Alerts and battery-only reports: validated, stored, published the same way.
 */
export class IngestPipeline {
  private readonly committer: GroupCommitter<ValidFix, FixOutcome>;
  /** The devices' newest-fix columns, written after the acknowledgement (device-state.ts). */
  private readonly deviceState: DeviceStateWriter;
  private closed = false;

  constructor(private readonly opts: PipelineOptions) {
    this.deviceState = new DeviceStateWriter({ db: opts.db, pool: opts.pool, log: opts.log });
    this.committer = new GroupCommitter<ValidFix, FixOutcome>({
      write: (items) => this.write(items),
      concurrency: opts.concurrency,
      maxBatch: opts.maxBatch ?? 500,
      minBatchWhileBusy: opts.minBatchWhileBusy,
      // All that waits in one statement: PostgreSQL's CPU, shared with the server, is what limits ingest, and a
      // statement costs it ~0.7 ms whatever its size (128 waiting fixes: one statement of 128, not two of 64).
      spread: false,
      onBatchError: (err, size) =>
        opts.log.warn({ err, size }, 'ingest batch failed; writing it in halves to isolate the bad fix'),
      // A device whose fix the database refused is written apart from the others for a minute.
      key: (f) => deviceKey(f.device),
    });
  }

  /** The one check of a fix against the columns it is stored in (validate.ts). */
  checkFix(fix: FixInput): Checked<ValidFix> {
    const problem = fixProblem(fix);
    return problem ? { ok: false, problem } : { ok: true, value: fix as ValidFix };
  }

  checkBattery(report: BatteryReport): Checked<ValidBattery> {
    const problem = batteryReportProblem(report);
    return problem ? { ok: false, problem } : { ok: true, value: report as ValidBattery };
  }

  /** Stores one checked fix (joining the next group-commit batch); settles after its batch committed. */
  store(fix: ValidFix): Promise<FixOutcome> {
    return this.committer.submit(fix);
  }

  /**
   * A batch from a source that cannot be answered per fix (inReach, SPOT, MQTT): invalid fixes are skipped, and a
   * fix the database refuses fails alone (`failed`) instead of failing the batch. Oldest first, so a backlog
   * arrives in the order the device recorded it.
   */
  async storeEach(fixes: FixInput[]): Promise<BatchOutcome[]> {
    const out: BatchOutcome[] = new Array<BatchOutcome>(fixes.length);
    const valid: [number, ValidFix][] = [];
    fixes.forEach((f, i) => {
      const c = this.checkFix(f);
      if (c.ok) valid.push([i, c.value]);
      else out[i] = { status: 'invalid', message: c.problem };
    });
    valid.sort((a, b) => a[1].fixTime.getTime() - b[1].fixTime.getTime());
    await Promise.all(
      valid.map(async ([i, fix]) => {
        try {
          out[i] = await this.store(fix);
        } catch (error) {
          out[i] = { status: 'failed', error };
        }
      }),
    );
    return out;
  }

  /**
   * Stores an alert once and publishes it; null when a duplicate, for an unknown device, or invalid (logged,
   * nothing stored). An alert whose own time is unusable (unreadable, before 2000, far in the future) is never
   * dropped for it: it is recorded at its receive time, and the bad time is logged.
   */
  async recordAlert(a: AlertInput): Promise<StoredAlert | null> {
    const now = Date.now();
    const timeProblem = alertTimeProblem(a, now);
    const alert = timeProblem ? { ...a, at: new Date(now) } : a;
    const problem = alertProblem(alert, now);
    if (problem) {
      this.opts.log.warn({ kind: a.kind, device: a.device, problem }, 'alert refused');
      return null;
    }
    if (timeProblem) {
      this.opts.log.warn(
        { kind: a.kind, device: a.device, sourceTime: describeTime(a), problem: timeProblem },
        'alert with an unusable time: recorded at its receive time',
      );
    }
    const stored = await storeAlert(this.opts.db, alert, { atReceiveTime: timeProblem !== null });
    if (stored) {
      const { raceId, runnerId, deviceId, kind, at } = stored;
      await this.publish([{ type: 'alert', raceId, runnerId, deviceId, kind, at }]);
      if (this.opts.onAlert) {
        try {
          await this.opts.onAlert({ ...stored, message: alert.message, lat: alert.lat, lon: alert.lon });
        } catch (err) {
          this.opts.log.error({ err, kind, deviceId }, 'race HQ alert not raised for a stored device alert');
        }
      }
    }
    return stored;
  }

  /** Hands a free-text message of a device held by a race to `onText` (nothing is stored). */
  async recordText(m: AlertInput): Promise<void> {
    const { onText, db, log } = this.opts;
    if (!onText || !m.message || alertTimeProblem(m, Date.now())) return;
    try {
      const holder = await deviceHolderAt(db, m.device, m.at);
      if (!holder?.raceId) return;
      const at = m.at.toISOString();
      await onText({ ...holder, id: 0, kind: 'message', at, message: m.message, lat: m.lat, lon: m.lon });
    } catch (err) {
      log.error({ err, device: m.device }, 'race HQ: a device text message not checked for the help keyword');
    }
  }

  /**
   * Stores a battery level reported without a position on its device and publishes it (live viewers see it like
   * the battery of a fix). Its time is when it was received: such reports carry no fix time.
   */
  async recordBattery(report: ValidBattery): Promise<BatteryOutcome> {
    const at = new Date();
    // The fixes noted before this report are written first: their battery must not overwrite this newer one.
    await this.deviceState.flush();
    const stored = await storeBattery(this.opts.db, report, at);
    if (!stored) return 'unknown_device';
    await this.publish([
      {
        type: 'battery',
        ...stored,
        at: at.toISOString(),
        batteryPercent: report.batteryPercent,
        batteryState: report.batteryState,
        source: report.source,
      },
    ]);
    return 'stored';
  }

  /**
   * Counts an uplink that carried no position on its device (battery-repository.ts); false for an unknown device.
   * Never the sender's error: a failure is logged and the uplink answered as before.
   */
  async recordWithoutPosition(ref: DeviceRef): Promise<boolean> {
    try {
      return await countUplinkWithoutPosition(this.opts.db, ref);
    } catch (err) {
      this.opts.log.warn({ err, device: ref }, 'uplink without a position not counted on its device');
      return false;
    }
  }

  /** Whether a device has this reference (a credential presented without a position). */
  knowsDevice(ref: DeviceRef): Promise<boolean> {
    return deviceExists(this.opts.db, ref);
  }

  /** Writes the devices' newest-fix columns noted so far (tests, readers wanting this process's latest). */
  flushDeviceState(): Promise<void> {
    return this.deviceState.flush();
  }

  async close() {
    this.closed = true;
    await this.committer.drain();
    await this.deviceState.close();
  }

  /**
   * Writes a batch. On PostgreSQL the statement announces the fixes it stored itself (pg_notify in its transaction,
   * see fix-repository.ts), so they only need delivering here: a stored fix reaches every process even when this one
   * dies before answering; without that, a ping acked just before a kill -9 could be missing from the others' live
   * state (the NOTIFY used to go out on a later turn of the event loop, after the answer).
   */
  private async write(items: ValidFix[]): Promise<FixOutcome[]> {
    const notify = this.opts.pool ? (this.opts.events.positionNotify() ?? undefined) : undefined;
    const stored = await storeFixes(this.opts.db, items, this.opts.pool, notify);
    const events: LiveEvent[] = [];
    let published: Set<number> | null = null;
    const out = stored.map((row): FixOutcome => {
      if (row.deviceId === null) return { status: 'unknown_device' };
      const f = items[row.idx];
      // Committed: the device's newest-fix columns follow within a second (only ever forward).
      this.deviceState.note({
        deviceId: row.deviceId,
        t: f.fixTime.getTime(),
        lat: f.lat,
        lon: f.lon,
        batteryPercent: f.batteryPercent ?? null,
        batteryState: f.batteryState ?? null,
      });
      if (row.positionId === null) return { status: 'duplicate', deviceId: row.deviceId };
      // Two copies of one fix in the same batch share a row: publish it once.
      if (!published?.has(row.positionId)) {
        (published ??= new Set()).add(row.positionId);
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
          accuracy: f.accuracy ?? null,
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
    if (notify) this.opts.events.deliverLocal(events);
    else void this.publish(events);
    return out;
  }

  /**
   * After commit; a bus failure must not turn a stored report into an error for its sender. Resolves once the
   * other processes have been told (awaited before an alert or battery report is answered, so an ack never comes
   * before its NOTIFY); never rejects.
   */
  private async publish(events: LiveEvent[]): Promise<void> {
    if (this.closed && !events.length) return;
    await Promise.all(
      events.map((e) =>
        this.opts.events.publish(e).catch((err: unknown) => this.opts.log.warn({ err }, 'publish failed')),
      ),
    );
  }
}
