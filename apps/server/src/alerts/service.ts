import {
  alertSettingsSchema,
  sosOrHelpFromText,
  type Alert,
  type AlertKind,
  type AlertLogEntry,
  type AlertSettings,
  type AlertState,
  type RunnerAlertTransitions,
} from '@racebeacon/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { EventBus } from '../events/bus';
import { badRequest, conflict, notFound } from '../lib/errors';
import { isoOrNull } from '../lib/time';
import type { AuthUser } from '../types';
import * as repo from './repository';

/** A device message as ingestion recorded it (device_alerts), with what HQ shows of it. */
export interface DeviceAlertMessage {
  deviceId: number;
  raceId: number | null;
  runnerId: number | null;
  /** sos, help, help-cancel, sos-cancel, or message (an inReach free text, a help request if it has the keyword). */
  kind: string;
  at: string;
  message: string | null;
  lat: number | null;
  lon: number | null;
}

export function toAlert(v: repo.AlertView): Alert {
  const name = [v.firstName, v.lastName].filter(Boolean).join(' ');
  return {
    AlertId: v.id,
    RaceId: v.raceId,
    RunnerId: v.runnerId,
    BibNumber: v.bibNumber,
    RunnerName: v.runnerId === null ? null : name || null,
    DeviceId: v.deviceId,
    DeviceName: v.deviceName,
    Kind: v.kind as AlertKind,
    State: v.state as AlertState,
    RaisedAt: v.raisedAt.toISOString(),
    LastSeenAt: v.lastSeenAt.toISOString(),
    Latitude: v.lat,
    Longitude: v.lon,
    Message: v.message ?? '',
    AcknowledgedBy: v.acknowledgedBy,
    AcknowledgedAt: isoOrNull(v.acknowledgedAt),
    ResolvedBy: v.resolvedBy,
    ResolvedAt: isoOrNull(v.resolvedAt),
    Note: v.note,
  };
}

/** Who did it, as the log shows it: the name (or email) in the token, else its subject. */
export const actorOf = (user: AuthUser): string => user.name || user.email || user.id;

/** The race's thresholds: its own, over the defaults (a stored value that no longer validates is ignored). */
export function settingsOf(stored: Record<string, unknown> | null | undefined): AlertSettings {
  const parsed = alertSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : alertSettingsSchema.parse({});
}

const raceNotFound = (id: number) => notFound(`Race ${id} was not found.`);
const alertNotFound = (id: number) => notFound(`Alert ${id} was not found.`, 'alert_not_found');

const describeDeviceMessage = (kind: 'sos' | 'help', text: string | null) => {
  const what = kind === 'sos' ? 'SOS sent from the device' : 'Help requested from the device';
  return text ? `${what}: ${text}` : what;
};

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

  constructor(private readonly opts: AlertServiceOptions) {
    this.db = opts.db;
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
    return (await repo.listRaceLog(this.db, raceId)).map((r) => ({
      AlertId: r.alertId,
      State: r.state as AlertState,
      At: r.at.toISOString(),
      By: r.by,
      Note: r.note,
    }));
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
    await this.checkAlertAccess(user, alertId);
    const at = new Date();
    const by = actorOf(user);
    const raceId = await this.db.transaction(async (tx) => {
      const row = await repo.findAlertForUpdate(tx, alertId);
      if (!row) throw alertNotFound(alertId);
      if (row.state === 'resolved') throw conflict('This alert is already resolved.', 'alert_resolved');
      if (row.state === 'acknowledged')
        throw conflict(
          `This alert was already acknowledged by ${row.acknowledgedBy ?? 'someone'}.`,
          'alert_already_acknowledged',
        );
      await repo.acknowledgeAlert(tx, alertId, { by, at, note });
      await repo.insertLog(tx, { alertId, state: 'acknowledged', at, by, note });
      return row.raceId;
    });
    await this.announce(raceId, alertId);
    return (await this.getAlert(alertId))!;
  }

  async resolve(user: AuthUser, alertId: number, note: string | null): Promise<Alert> {
    await this.checkAlertAccess(user, alertId);
    const at = new Date();
    const by = actorOf(user);
    const raceId = await this.db.transaction(async (tx) => {
      const row = await repo.findAlertForUpdate(tx, alertId);
      if (!row) throw alertNotFound(alertId);
      if (row.state === 'resolved') throw conflict('This alert is already resolved.', 'alert_resolved');
      await repo.resolveAlert(tx, alertId, { by, at, note });
      await repo.insertLog(tx, { alertId, state: 'resolved', at, by, note });
      return row.raceId;
    });
    await this.announce(raceId, alertId);
    return (await this.getAlert(alertId))!;
  }

  // ---------------------------------------------------------------- devices raise

  /**
   * A device message ingestion recorded: an SOS or HELP raises an open alert for the runner holding the device at
   * that time (or for the device itself when it holds no race), or refreshes the one already open; HELP-CANCEL
   * resolves an open help; an SOS cancelled on the device stays open (a person resolves it) but says so; an inReach
   * text containing the race's help keyword is a help request. Returns the alert changed, if any.
   */
  async fromDevice(m: DeviceAlertMessage): Promise<number | null> {
    const at = new Date(m.at);
    const subject = { runnerId: m.runnerId, deviceId: m.deviceId };
    let kind: 'sos' | 'help' | null = null;
    if (m.kind === 'sos' || m.kind === 'help') kind = m.kind;
    else if (m.kind === 'message' && m.raceId !== null) {
      kind = sosOrHelpFromText(m.message, (await this.raceSettings(m.raceId)).HelpKeyword);
    }
    if (kind) {
      const raised = await this.raise({
        raceId: m.raceId,
        runnerId: m.runnerId,
        deviceId: m.deviceId,
        kind,
        at,
        lat: m.lat,
        lon: m.lon,
        message: describeDeviceMessage(kind, m.message),
      });
      return raised;
    }
    if (m.kind === 'help-cancel') {
      const open = await repo.findActiveAlert(this.db, subject, 'help');
      if (!open) return null;
      const done = await this.db.transaction(async (tx) => {
        const note = 'Cancelled on the device (HELP-CANCEL).';
        if (!(await repo.resolveAlert(tx, open.id, { by: null, at, note }))) return false;
        await repo.insertLog(tx, { alertId: open.id, state: 'resolved', at, by: null, note });
        return true;
      });
      if (!done) return null;
      await this.announce(open.raceId, open.id);
      return open.id;
    }
    if (m.kind === 'sos-cancel') {
      const open = await repo.findActiveAlert(this.db, subject, 'sos');
      if (!open) return null;
      const message = `${open.message ?? 'SOS'} — cancelled on the device at ${at.toISOString()}; confirm with the runner before resolving.`;
      if (await repo.touchAlert(this.db, open.id, { at, lat: m.lat, lon: m.lon, message }))
        await this.announce(open.raceId, open.id);
      return open.id;
    }
    return null;
  }

  /** Raises an open alert (logged as raised), or refreshes the unresolved one of the same subject and kind. */
  private async raise(a: repo.NewAlert): Promise<number | null> {
    const inserted = await this.db.transaction(async (tx) => {
      const row = await repo.insertAlertIfNone(tx, a);
      if (row) await repo.insertLog(tx, { alertId: row.id, state: 'open', at: a.at, by: null, note: null });
      return row;
    });
    if (inserted) {
      await this.announce(a.raceId, inserted.id);
      return inserted.id;
    }
    const open = await repo.findActiveAlert(this.db, a, a.kind);
    if (!open) return null;
    if (await repo.touchAlert(this.db, open.id, { at: a.at, lat: a.lat, lon: a.lon }))
      await this.announce(open.raceId, open.id);
    return open.id;
  }

  // ---------------------------------------------------------------- the sweep

  /**
   * Applies one sweep of a race: raises the new conditions, refreshes those still holding, resolves the
   * self-clearing alerts whose condition cleared. `devices`: the device each runner holds (the alert names it).
   */
  async applySweep(
    raceId: number,
    transitions: RunnerAlertTransitions[],
    devices: Map<number, number | null>,
    nowMs: number,
  ): Promise<{ raised: number; resolved: number; refreshed: number }> {
    const now = new Date(nowMs);
    const counts = { raised: 0, resolved: 0, refreshed: 0 };
    if (!transitions.length) return counts;
    const active = await repo.listActiveRaceAlerts(this.db, raceId);
    const byKey = new Map(active.map((a) => [`${a.runnerId}:${a.kind}`, a]));
    for (const t of transitions) {
      const deviceId = devices.get(t.runnerId) ?? null;
      for (const c of t.raise) {
        const row = await this.db.transaction(async (tx) => {
          const r = await repo.insertAlertIfNone(tx, {
            raceId,
            runnerId: t.runnerId,
            deviceId,
            kind: c.kind,
            at: now,
            lat: c.lat,
            lon: c.lon,
            message: c.message,
          });
          if (r) await repo.insertLog(tx, { alertId: r.id, state: 'open', at: now, by: null, note: null });
          return r;
        });
        if (row) {
          counts.raised++;
          await this.announce(raceId, row.id);
        }
      }
      for (const c of t.ongoing) {
        const open = byKey.get(`${t.runnerId}:${c.kind}`);
        if (!open) continue;
        if (
          await repo.touchAlert(this.db, open.id, { at: now, lat: c.lat, lon: c.lon, message: c.message })
        ) {
          counts.refreshed++;
          await this.announce(raceId, open.id);
        }
      }
      for (const kind of t.resolve) {
        const open = byKey.get(`${t.runnerId}:${kind}`);
        if (!open) continue;
        const done = await this.db.transaction(async (tx) => {
          if (!(await repo.resolveAlert(tx, open.id, { by: null, at: now, note: null }))) return false;
          await repo.insertLog(tx, { alertId: open.id, state: 'resolved', at: now, by: null, note: null });
          return true;
        });
        if (done) {
          counts.resolved++;
          await this.announce(raceId, open.id);
        }
      }
    }
    return counts;
  }

  /** Unresolved alerts of a race's runners, as the domain's sweep reads them. */
  async openRefs(raceId: number): Promise<Map<number, { kind: AlertKind; state: AlertState }[]>> {
    const out = new Map<number, { kind: AlertKind; state: AlertState }[]>();
    for (const a of await repo.listActiveRaceAlerts(this.db, raceId)) {
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
