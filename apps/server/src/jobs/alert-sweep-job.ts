import { sweepRaceAlerts } from '@racebeacon/domain';
import type { FastifyBaseLogger } from 'fastify';
import { listRunningRaceIds } from '../alerts/repository';
import type { AlertService } from '../alerts/service';
import type { Db } from '../db/client';
import { HttpError } from '../lib/errors';
import type { LiveService } from '../live/service';
import type { Job } from './runner';

export const ALERT_SWEEP_JOB = 'alert-sweep';

export interface AlertSweepJobOptions {
  db: Db;
  live: Pick<LiveService, 'alertSubjects'>;
  alerts: AlertService;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  /** Pause between sweeps (ALERT_SWEEP_SECONDS). */
  everyMs: number;
  /** The clock the rules are evaluated at (tests move it). */
  now?: () => number;
}

/**
 * First the reconciliation of device SOS/HELP messages stored without their HQ alert. Then the self-clearing alerts (no-movement, lost-signal, low-battery, off-course): every race whose clock runs is
 * swept every `everyMs` — each runner evaluated by the domain's rules on the live state (the runner's recent fixes
 * as the course matcher placed them, battery, the device's expected interval), and the result applied: new
 * conditions raised, those still holding refreshed, cleared ones resolved. One process of the cluster runs it (the
 * job lock); the partial unique index on open alerts keeps even an overlap during a hand-over from raising twice.
 */
export class AlertSweepJob implements Job {
  readonly name = ALERT_SWEEP_JOB;
  readonly everyMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: AlertSweepJobOptions) {
    this.everyMs = opts.everyMs;
    this.now = opts.now ?? Date.now;
  }

  async runOnce(signal?: AbortSignal): Promise<void> {
    const { db, live, alerts, log } = this.opts;
    // A device SOS/HELP stored while raising its HQ alert failed is raised here (see listUnraisedDeviceAlerts).
    const reconciled = await alerts.reconcileDeviceAlerts(this.now());
    if (reconciled)
      log.warn({ reconciled }, 'race HQ: raised device alerts that had not been raised when stored');
    for (const raceId of await listRunningRaceIds(db)) {
      if (signal?.aborted) return;
      const nowMs = this.now();
      let subjects;
      try {
        subjects = await live.alertSubjects(raceId, nowMs);
      } catch (err) {
        // Deleted or unapproved meanwhile: nothing to watch.
        if (err instanceof HttpError && err.statusCode === 404) continue;
        throw err;
      }
      const [settings, open] = await Promise.all([alerts.raceSettings(raceId), alerts.openRefs(raceId)]);
      const transitions = sweepRaceAlerts(
        subjects.map((s) => ({ runnerId: s.runnerId, input: s.input, open: open.get(s.runnerId) ?? [] })),
        settings,
        nowMs,
      );
      const devices = new Map(subjects.map((s) => [s.runnerId, s.deviceId]));
      await alerts.applySweep(raceId, transitions, devices, nowMs);
    }
  }
}
