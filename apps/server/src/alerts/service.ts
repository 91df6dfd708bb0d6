import type {
  Alert,
  AlertKind,
  AlertLogEntry,
  AlertSettings,
  AlertState,
  RunnerAlertTransitions,
} from '@racebeacon/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { EventBus } from '../events/bus';
import { badRequest, conflict, notFound } from '../lib/errors';
import type { AuthUser } from '../types';
import type { AlertWriter } from './alert-writer';
import { actorOf, toAlert, toLogEntry } from './api-shape';
import { reattributeRaceAlerts } from './attribution';
import { alertFromDeviceMessage, type DeviceAlertMessage } from './device-messages';
import * as repo from './repository';
import { settingsOf } from './settings';
import { listUnraisedDeviceAlerts } from './reconcile';
import { applySweepTransitions } from './sweep';

const raceNotFound = (id: number) => notFound(`Race ${id} was not found.`);
const alertNotFound = (id: number) => notFound(`Alert ${id} was not found.`, 'alert_not_found');

export interface AlertServiceOptions {
  db: Db;
  events: EventBus;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
}

/**
 * Race HQ alerts: who may see and act on them (the race's director and admins; alerts of devices holding no race:
 * admins), raising them from device messages (SOS, HELP, help keyword) and from the sweep's transitions, and every
 * change of state written to the log in the same transaction. Each change is announced on the bus after commit
 * (`alert-changed`), so the HQ streams of every process pass it on.
 */
export class AlertService {
  private readonly db: Db;
  /** Raising and resolving without a person (device messages, the sweep) write and announce through this. */
  private readonly writer: AlertWriter;

  constructor(private readonly opts: AlertServiceOptions) {
    this.db = opts.db;
    this.writer = { db: opts.db, announce: (raceId, alertId) => this.announce(raceId, alertId) };
  }

  // ---------------------------------------------------------------- access

  /** The race's settings row when the caller is its director or an admin; 404 otherwise (as director routes do). */
  private async raceFor(user: AuthUser, raceId: number) {
    const row = await repo.findRaceSettings(this.db, raceId);
    if (!row || (row.directorId !== user.id && !user.isAdmin)) throw raceNotFound(raceId);
    return row;
  }

  /** An alert the caller may act on: of their race, or any alert for an admin. 404 otherwise. */
  private async checkAlertAccess(user: AuthUser, alertId: number) {
    const view = await repo.findAlertView(this.db, alertId);
    if (!view) throw alertNotFound(alertId);
    if (user.isAdmin) return view;
    if (view.raceId === null) throw alertNotFound(alertId);
    const race = await repo.findRaceSettings(this.db, view.raceId);
    if (!race || race.directorId !== user.id) throw alertNotFound(alertId);
    return view;
  }

  /** Checks that the caller may watch the race's HQ (for the stream, before it is opened). */
  async checkRaceAccess(user: AuthUser, raceId: number): Promise<void> {
    await this.raceFor(user, raceId);
  }

  // ---------------------------------------------------------------- reads

  async listRaceAlerts(user: AuthUser, raceId: number, state?: AlertState): Promise<Alert[]> {
    await this.raceFor(user, raceId);
    return (await repo.listAlerts(this.db, { raceId, states: state ? [state] : undefined })).map(toAlert);
  }

  /** Open and acknowledged alerts of a race (what an HQ stream starts with). */
  async activeRaceAlerts(raceId: number): Promise<Alert[]> {
    return (await repo.listAlerts(this.db, { raceId, states: ['open', 'acknowledged'] })).map(toAlert);
  }

  /** Open and acknowledged alerts of every race and of devices in no race (what the admins' stream starts with). */
  async activeAllAlerts(): Promise<Alert[]> {
    return (await repo.listAlerts(this.db, { states: ['open', 'acknowledged'] })).map(toAlert);
  }

  /** Every alert, of every race and of devices that hold none (admins). */
  async listAllAlerts(state?: AlertState): Promise<Alert[]> {
    return (await repo.listAlerts(this.db, { states: state ? [state] : undefined })).map(toAlert);
  }

  async getAlert(alertId: number): Promise<Alert | null> {
    const v = await repo.findAlertView(this.db, alertId);
    return v ? toAlert(v) : null;
  }

  async raceLog(user: AuthUser, raceId: number): Promise<AlertLogEntry[]> {
    await this.raceFor(user, raceId);
    return (await repo.listRaceLog(this.db, raceId)).map(toLogEntry);
  }

  // ---------------------------------------------------------------- settings

  async getSettings(user: AuthUser, raceId: number): Promise<AlertSettings> {
    return settingsOf((await this.raceFor(user, raceId)).alertSettings);
  }

  async putSettings(user: AuthUser, raceId: number, settings: AlertSettings): Promise<AlertSettings> {
    await this.raceFor(user, raceId);
    const keyword = settings.HelpKeyword ? settings.HelpKeyword : null;
    // A lone surrogate is no text (jsonb refuses it): a 400, not a failure of ours.
    if (keyword !== null && Buffer.from(keyword, 'utf8').toString('utf8') !== keyword)
      throw badRequest('HelpKeyword is not valid Unicode text.', 'validation_error');
    const value = { ...settings, HelpKeyword: keyword };
    await repo.saveRaceSettings(this.db, raceId, value);
    // The leaderboard's stale threshold follows LostSignalFactor: live viewers get the race rebuilt.
    await this.opts.events
      .publish({ type: 'race-updated', raceId })
      .catch((err: unknown) => this.opts.log.warn({ err }, 'publish failed'));
    return settingsOf(value);
  }

  /** A race's thresholds, for the sweep and the help keyword (defaults for an unknown race). */
  async raceSettings(raceId: number): Promise<AlertSettings> {
    return settingsOf((await repo.findRaceSettings(this.db, raceId))?.alertSettings);
  }

  // ---------------------------------------------------------------- people act

  async acknowledge(user: AuthUser, alertId: number, note: string | null): Promise<Alert> {
    return this.changeState(user, alertId, note, 'acknowledged');
  }

  async resolve(user: AuthUser, alertId: number, note: string | null): Promise<Alert> {
    return this.changeState(user, alertId, note, 'resolved');
  }

  /** A person acknowledges or resolves an alert they may act on: the change and its log line in one transaction. */
  private async changeState(
    user: AuthUser,
    alertId: number,
    note: string | null,
    state: 'acknowledged' | 'resolved',
  ): Promise<Alert> {
    await this.checkAlertAccess(user, alertId);
    const at = new Date();
    const by = actorOf(user);
    const raceId = await this.db.transaction(async (tx) => {
      const row = await repo.findAlertForUpdate(tx, alertId);
      if (!row) throw alertNotFound(alertId);
      if (row.state === 'resolved') throw conflict('This alert is already resolved.', 'alert_resolved');
      if (state === 'acknowledged') {
        if (row.state === 'acknowledged')
          throw conflict(
            `This alert was already acknowledged by ${row.acknowledgedBy ?? 'someone'}.`,
            'alert_already_acknowledged',
          );
        await repo.acknowledgeAlert(tx, alertId, { by, at, note });
      } else {
        await repo.resolveAlert(tx, alertId, { by, at, note });
      }
      await repo.insertLog(tx, { alertId, state, at, by, note });
      return row.raceId;
    });
    await this.announce(raceId, alertId);
    return (await this.getAlert(alertId))!;
  }

  // ---------------------------------------------------------------- devices raise and the sweep

  /** A device message ingestion recorded (SOS, HELP, their cancels, a help keyword): see `alertFromDeviceMessage`. */
  async fromDevice(m: DeviceAlertMessage): Promise<number | null> {
    return alertFromDeviceMessage(this.writer, (raceId) => this.raceSettings(raceId), m);
  }

  /**
   * Raises the device SOS/HELP messages of the last 24 h that no HQ alert covers (raising them failed after they
   * were stored): see `listUnraisedDeviceAlerts`. Returns how many were raised or refreshed.
   */
  async reconcileDeviceAlerts(nowMs: number): Promise<number> {
    let n = 0;
    for (const m of await listUnraisedDeviceAlerts(this.db, nowMs))
      if ((await this.fromDevice(m)) !== null) n++;
    return n;
  }

  /**
   * After a race's hand-overs changed: its device messages and the HQ alerts raised from them go to the runner who
   * held the device at their time (see `reattributeRaceAlerts`); each alert changed is announced. Returns how many.
   */
  async reattributeRace(raceId: number): Promise<number> {
    const changed = await reattributeRaceAlerts(this.db, raceId);
    for (const a of changed) await this.announce(a.raceId, a.id);
    return changed.length;
  }

  /** Applies one sweep of a race's transitions: see `applySweepTransitions`. */
  async applySweep(
    raceId: number,
    transitions: RunnerAlertTransitions[],
    devices: Map<number, number | null>,
    nowMs: number,
  ): Promise<{ raised: number; resolved: number; refreshed: number }> {
    return applySweepTransitions(this.writer, raceId, transitions, devices, nowMs);
  }

  /** Unresolved alerts of a race’s runners (and resolved cutoff-risk ones), as the domain’s sweep reads them. */
  async openRefs(raceId: number): Promise<Map<number, { kind: AlertKind; state: AlertState }[]>> {
    const out = new Map<number, { kind: AlertKind; state: AlertState }[]>();
    // A resolved cutoff-risk is listed too: it is raised once per runner (the domain's nextAlertTransitions).
    for (const a of await repo.listSweepRefs(this.db, raceId, ['cutoff-risk'])) {
      if (a.runnerId === null) continue;
      let list = out.get(a.runnerId);
      if (!list) out.set(a.runnerId, (list = []));
      list.push({ kind: a.kind as AlertKind, state: a.state as AlertState });
    }
    return out;
  }

  /** After commit: every process's HQ streams of the race pass the alert on. A bus failure is logged. */
  private async announce(raceId: number | null, alertId: number) {
    await this.opts.events
      .publish({ type: 'alert-changed', raceId, alertId })
      .catch((err: unknown) => this.opts.log.warn({ err, alertId }, 'alert publish failed'));
  }
}
