import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors';
import { badRequest } from '../lib/errors';
import type { DeviceBatch } from './adapters/contract';
import { throwIfAllFailed, type IngestPipeline, type ValidBattery, type ValidFix } from './pipeline';
import type { IngestRateLimiter } from './rate-limit';
import type { BatchOutcome, BatteryOutcome, DeviceRef, DeviceSource } from './types';

export interface AcceptResult {
  /** One per fix of the batch, in order. */
  fixes: BatchOutcome[];
  /** One per battery-only report that was stored or named no device (`each` leaves invalid ones out). */
  batteries: BatteryOutcome[];
  /** Alerts recorded (not counting duplicates). */
  alerts: number;
  /** Fixes and battery reports left out by the rate limit (`each` only: `whole` refuses the request). */
  rateLimited: number;
  /** Something in the batch, or the credential of a batch without data, named no device of ours. */
  unknownDevice: boolean;
}

/** What an `each` batch left out (the first 20 of each kind), for the log. */
export interface SkippedSummary {
  rejected: DeviceBatch['rejected'];
  invalid: string[];
  failed: string[];
  unknown: number;
  rateLimited: number;
}

export interface IngestServiceOptions {
  pipeline: IngestPipeline;
  limiter: IngestRateLimiter;
  log: FastifyBaseLogger;
  /**
   * A text message from a device, checked for the claim code of a runner's own tracker waiting for proof
   * (devices/own-tracker-claim.ts); default: not checked.
   */
  onClaimText?: (device: DeviceRef, text: string) => Promise<unknown>;
}

/** The rate-limit key of a device: its credential or its first hardware id. */
function rateKey(ref: DeviceRef): string {
  if ('trackingKey' in ref) return ref.trackingKey;
  if ('deviceId' in ref) return `#${ref.deviceId}`;
  return (ref.hardwareIds[0] ?? '').toLowerCase();
}

const count = (outcomes: BatchOutcome[], status: BatchOutcome['status']) =>
  outcomes.filter((o) => o.status === status).length;

/**
 * What happens to a device batch once read, whatever the protocol, under one of two policies:
 * - `whole` (a device that is answered per request: OsmAnd, OwnTracks, LoRaWAN webhooks): the request is stored
 *   whole or not at all — 413 when it could never fit a rate-limit bucket, 400 invalid_position at the first bad
 *   value, 429 over the rate limit;
 * - `each` (a source that must not be refused for one bad message: inReach, SPOT, Meshtastic): every message is
 *   stored or skipped on its own, and only a database failing every write is an error (the source delivers again,
 *   which stores nothing twice).
 */
export class IngestService {
  constructor(private readonly opts: IngestServiceOptions) {}

  /**
   * `credential`: what the request authenticated with when the device is not named in the batch itself (OwnTracks'
   * password); checked even when the batch is empty, so a wrong one is refused whatever the message.
   */
  async acceptWhole(source: DeviceSource, batch: DeviceBatch, credential?: DeviceRef): Promise<AcceptResult> {
    const { pipeline, limiter } = this.opts;
    limiter.checkSize(batch.fixes.length);
    const fixes = batch.fixes.map((f): ValidFix => {
      const c = pipeline.checkFix(f);
      if (!c.ok) throw badRequest(c.problem, 'invalid_position');
      return c.value;
    });
    const batteries = batch.batteryOnly.map((r): ValidBattery => {
      const c = pipeline.checkBattery(r);
      if (!c.ok) throw badRequest(c.problem, 'invalid_position');
      return c.value;
    });
    const device = credential ?? batch.fixes[0]?.device ?? batch.batteryOnly[0]?.device;
    const n = fixes.length + batteries.length;
    if (device && n) limiter.check(source, rateKey(device), n);
    // One fix (a phone's ping, nearly every request): no arrays of promises.
    const outcomes =
      fixes.length === 1
        ? [await pipeline.store(fixes[0])]
        : await Promise.all(fixes.map((f) => pipeline.store(f)));
    const batteryOutcomes = batteries.length
      ? await Promise.all(batteries.map((r) => pipeline.recordBattery(r)))
      : [];
    let alerts = 0;
    for (const a of batch.alerts) if (await pipeline.recordAlert(a)) alerts++;
    for (const ref of batch.withoutPosition ?? []) await pipeline.recordWithoutPosition(ref);
    let unknownDevice =
      outcomes.some((o) => o.status === 'unknown_device') || batteryOutcomes.includes('unknown_device');
    if (!n && credential) unknownDevice = !(await pipeline.knowsDevice(credential));
    return { fixes: outcomes, batteries: batteryOutcomes, alerts, rateLimited: 0, unknownDevice };
  }

  async acceptEach(source: DeviceSource, batch: DeviceBatch): Promise<AcceptResult> {
    const { pipeline, limiter, log } = this.opts;
    const fixes: BatchOutcome[] = batch.fixes.map(() => ({ status: 'rate_limited' }));
    const allowed = [...batch.fixes.keys()].filter((i) =>
      limiter.allow(source, rateKey(batch.fixes[i].device)),
    );
    const outcomes = await pipeline.storeEach(allowed.map((i) => batch.fixes[i]));
    allowed.forEach((i, k) => (fixes[i] = outcomes[k]));
    throwIfAllFailed(outcomes);

    let alerts = 0;
    const alertErrors: unknown[] = [];
    for (const a of batch.alerts) {
      try {
        if (await pipeline.recordAlert(a)) alerts++;
      } catch (err) {
        alertErrors.push(err);
        if (!isDatabaseUnavailable(err))
          log.error({ err, kind: a.kind, device: a.device }, 'alert not stored');
      }
    }
    if (alertErrors.length && alertErrors.length === batch.alerts.length) throw alertErrors[0];
    // Texts are no alerts of the device (not counted): race HQ looks for the help keyword in them.
    for (const m of batch.texts ?? []) {
      await this.claimText(m.device, m.message);
      await pipeline.recordText(m);
    }
    for (const ref of batch.withoutPosition ?? []) await pipeline.recordWithoutPosition(ref);

    const batteries: BatteryOutcome[] = [];
    let batteriesLimited = 0;
    for (const r of batch.batteryOnly) {
      const c = pipeline.checkBattery(r);
      if (!c.ok) log.debug({ device: r.device, problem: c.problem }, 'battery report refused');
      else if (!limiter.allow(source, rateKey(r.device))) batteriesLimited++;
      else batteries.push(await pipeline.recordBattery(c.value));
    }
    return {
      fixes,
      batteries,
      alerts,
      rateLimited: batch.fixes.length - allowed.length + batteriesLimited,
      unknownDevice: count(outcomes, 'unknown_device') > 0 || batteries.includes('unknown_device'),
    };
  }

  /** Checks a device's text message for a claim code (never throws: a failure is logged). */
  async claimText(device: DeviceRef, text: string | null | undefined): Promise<void> {
    if (!text || !this.opts.onClaimText) return;
    try {
      await this.opts.onClaimText(device, text);
    } catch (err) {
      this.opts.log.warn({ err, device }, 'claim code of a text message not checked');
    }
  }

  /**
   * Writes the devices' newest-fix columns this process noted (they follow an acknowledged fix within a second,
   * device-state.ts): for a reader that wants them now, e.g. a test right after a ping.
   */
  flushDeviceState(): Promise<void> {
    return this.opts.pipeline.flushDeviceState();
  }

  /** What an `each` batch left out, for the log; null when nothing was. */
  skipped(batch: DeviceBatch, result: AcceptResult): SkippedSummary | null {
    const invalid = result.fixes.flatMap((o) => (o.status === 'invalid' ? [o.message] : []));
    const failed = result.fixes.flatMap((o) => (o.status === 'failed' ? [String(o.error)] : []));
    const unknown = count(result.fixes, 'unknown_device');
    if (!batch.rejected.length && !invalid.length && !failed.length && !unknown && !result.rateLimited)
      return null;
    return {
      rejected: batch.rejected.slice(0, 20),
      invalid: invalid.slice(0, 20),
      failed: failed.slice(0, 20),
      unknown,
      rateLimited: result.rateLimited,
    };
  }
}
