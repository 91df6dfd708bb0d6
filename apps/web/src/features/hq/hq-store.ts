import type { Alert, AlertKind, AlertLogEntry, AlertState } from './alert-types';
import { t, type TextKey } from '../../i18n';
import { ALERT_KIND_KEY } from '../../i18n/alert-detail';

/**
 * The HQ's alert state, as pure functions (unit-tested): every alert the screen knows by id, fed by the stream's
 * `alerts` snapshot (open and acknowledged), its `alert` events (one alert each, any state) and the resolved list.
 */

export type AlertMap = ReadonlyMap<number, Alert>;

const STATE_KEY = {
  open: 'hq.state.open',
  acknowledged: 'hq.state.acknowledged',
  resolved: 'hq.state.resolved',
} as const satisfies Record<AlertState, string>;

/** A label per key in the viewer's language, read when shown (`KIND_LABEL[kind]`). */
function translatedLabels<K extends string>(keys: Record<K, TextKey>): Record<K, string> {
  return new Proxy({} as Record<K, string>, {
    get: (_target, key) => (typeof key === 'string' && key in keys ? t(keys[key as K]) : undefined),
  });
}

export const KIND_LABEL: Record<AlertKind, string> = translatedLabels(ALERT_KIND_KEY);
export const STATE_LABEL: Record<AlertState, string> = translatedLabels(STATE_KEY);

/** The snapshot replaces every open and acknowledged alert; resolved ones already known are kept. */
export function applySnapshot(current: AlertMap, active: readonly Alert[]): AlertMap {
  const next = new Map<number, Alert>();
  for (const a of current.values()) if (a.State === 'resolved') next.set(a.AlertId, a);
  for (const a of active) next.set(a.AlertId, a);
  return next;
}

/** One alert's new state; a late copy of an older state never overwrites a newer one. */
export function upsertAlert(current: AlertMap, alert: Alert): AlertMap {
  const known = current.get(alert.AlertId);
  if (known && STATE_ORDER[known.State] > STATE_ORDER[alert.State]) return current;
  const next = new Map(current);
  next.set(alert.AlertId, alert);
  return next;
}

/** Adds resolved alerts (the `?state=resolved` list) without touching what the stream said. */
export function mergeResolved(current: AlertMap, resolved: readonly Alert[]): AlertMap {
  const next = new Map(current);
  for (const a of resolved) next.set(a.AlertId, a);
  return next;
}

const STATE_ORDER: Record<AlertState, number> = { open: 0, acknowledged: 1, resolved: 2 };
/** SOS first, then calls for help, then what the system noticed by itself. */
const KIND_ORDER: Record<AlertKind, number> = {
  sos: 0,
  help: 1,
  'off-course': 2,
  'no-movement': 3,
  'lost-signal': 4,
  'cutoff-risk': 5,
  'low-battery': 6,
};

const time = (iso: string | null) => (iso ? Date.parse(iso) || 0 : 0);

/** Open alerts first, then acknowledged; within each, SOS above every other kind, newest first. */
export function activeAlerts(alerts: AlertMap): Alert[] {
  return [...alerts.values()]
    .filter((a) => a.State !== 'resolved')
    .sort(
      (a, b) =>
        STATE_ORDER[a.State] - STATE_ORDER[b.State] ||
        KIND_ORDER[a.Kind] - KIND_ORDER[b.Kind] ||
        time(b.RaisedAt) - time(a.RaisedAt) ||
        b.AlertId - a.AlertId,
    );
}

/** Resolved alerts, most recently resolved first. */
export function resolvedAlerts(alerts: AlertMap): Alert[] {
  return [...alerts.values()]
    .filter((a) => a.State === 'resolved')
    .sort((a, b) => time(b.ResolvedAt) - time(a.ResolvedAt) || b.AlertId - a.AlertId);
}

/** Alerts nobody has acknowledged yet: the count in the page title. */
export function openCount(alerts: AlertMap): number {
  let n = 0;
  for (const a of alerts.values()) if (a.State === 'open') n++;
  return n;
}

/** Open SOS alerts, newest first: they drive the flashing banner. */
export function openSos(alerts: AlertMap): Alert[] {
  return activeAlerts(alerts).filter((a) => a.Kind === 'sos' && a.State === 'open');
}

/** "(2) Race HQ – Name": the tab shows how many alerts wait for someone, even behind other tabs. */
export function hqTitle(raceName: string, open: number): string {
  return `${open > 0 ? `(${open}) ` : ''}${t('hq.title')} – ${raceName}`;
}

/** Who an alert is about: "#12 Ada Lovelace", or the device when no runner holds it. */
export function alertSubject(a: Pick<Alert, 'BibNumber' | 'RunnerName' | 'DeviceName' | 'DeviceId'>): string {
  const runner = [a.BibNumber ? `#${a.BibNumber}` : null, a.RunnerName].filter(Boolean).join(' ');
  if (runner) return runner;
  return (
    a.DeviceName ?? (a.DeviceId !== null ? t('hq.device', { id: a.DeviceId }) : t('checkin.unknownRunner'))
  );
}

/** The log newest first. */
export function sortLog(entries: readonly AlertLogEntry[]): AlertLogEntry[] {
  return [...entries].sort((a, b) => time(b.At) - time(a.At));
}

/** "4 min ago" style age of an ISO time, against `now` (ms). */
export function ago(iso: string | null, now: number): string {
  if (!iso) return '-';
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return '-';
  if (ms < 60_000) return t('time.justNow');
  const min = Math.floor(ms / 60_000);
  if (min < 60) return t('time.minutesAgo', { min });
  const h = Math.floor(min / 60);
  if (h < 48) return t('time.hoursAgo', { h, min: min % 60 });
  return t('time.daysAgo', { days: Math.floor(h / 24) });
}

/** New alerts worth a sound: open SOS alerts in `next` that were not open SOS alerts in `prev`. */
export function newSosIds(prev: AlertMap, next: AlertMap): number[] {
  const ids: number[] = [];
  for (const a of next.values()) {
    if (a.Kind !== 'sos' || a.State !== 'open') continue;
    const before = prev.get(a.AlertId);
    if (!before || before.State !== 'open') ids.push(a.AlertId);
  }
  return ids;
}
