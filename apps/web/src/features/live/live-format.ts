/**
 * Display helpers of the live panel, in the viewer's language, locale and units: the formats are src/i18n/format.ts,
 * the words the catalogue's. A component using them calls `useI18n()` so it renders again when either changes.
 */
import { t } from '../../i18n';
import {
  distanceUnit,
  formatClock,
  formatDayTime,
  formatDistance,
  formatDistanceNumber,
  formatDuration,
  formatPace,
  formatPercent,
} from '../../i18n/format';

export {
  formatClock,
  formatDuration,
  formatPace,
  formatPercent,
  formatDistance,
  formatDistanceNumber,
  distanceUnit,
};

export function formatAgo(iso: string | null, now: number): string {
  if (!iso) return t('time.never');
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return t('time.never');
  const min = Math.floor(Math.max(0, ms) / 60_000);
  if (min < 1) return t('time.justNow');
  if (min < 120) return t('time.minutesAgo', { min });
  return t('time.hoursAgo', { h: Math.floor(min / 60), min: min % 60 });
}

/** "14:20 (14:05–14:40)": an ETA with its range when the server gives one; "–" without an ETA. */
export function formatEtaRange(eta: string | null, earliest?: string | null, latest?: string | null): string {
  if (!eta) return '–';
  const at = formatClock(eta);
  return earliest && latest ? `${at} (${formatClock(earliest)}–${formatClock(latest)})` : at;
}

/** "Aid 2 · 14:05 (13:55–14:20)" (or "Aid 2 at 14.0 km" with no ETA yet); null when no waypoint lies ahead. */
export function formatNextWaypoint(r: {
  NextWaypoint: string | null;
  NextWaypointKm: number | null;
  EtaNextWaypoint: string | null;
  EtaNextWaypointEarliest?: string | null;
  EtaNextWaypointLatest?: string | null;
}): string | null {
  if (!r.NextWaypoint) return null;
  if (r.EtaNextWaypoint)
    return `${r.NextWaypoint} · ${formatEtaRange(r.EtaNextWaypoint, r.EtaNextWaypointEarliest, r.EtaNextWaypointLatest)}`;
  return r.NextWaypointKm === null
    ? r.NextWaypoint
    : t('live.waypointAt', { name: r.NextWaypoint, distance: formatDistance(r.NextWaypointKm, 1) });
}

/**
 * "estimated 12.4 km (11.9–12.8)": a silent runner's estimated distance now (never a fix; null when there is none).
 */
export function formatEstimate(r: {
  EstimatedDistanceKm?: number | null;
  EstimatedDistanceKmMin?: number | null;
  EstimatedDistanceKmMax?: number | null;
}): string | null {
  const km = r.EstimatedDistanceKm;
  if (km === null || km === undefined) return null;
  const lo = r.EstimatedDistanceKmMin;
  const hi = r.EstimatedDistanceKmMax;
  const range =
    lo != null && hi != null && hi - lo >= 0.05
      ? ` (${formatDistanceNumber(lo, 1)}–${formatDistanceNumber(hi, 1)})`
      : '';
  return `${t('live.estimated', { distance: formatDistance(km, 1) })}${range}`;
}

/** "Sat 6 Jun, 09:00": a start time a spectator can plan by. */
export function formatDateTime(iso: string | null): string {
  return formatDayTime(iso);
}

/** At or below this a reported percentage reads as low (shown emphasised). */
export const LOW_BATTERY_PERCENT = 20;

/**
 * A device's battery as the server reports it (BatteryState): a percentage when the device sends one ("81%"), else
 * its own word (SPOT's "LOW" or "GOOD"). A percentage is shown as a whole one, "81%", so a director can tell 81 %
 * from 16 %; the word only when that is all the device says. `low`: worth a look (≤ 20 % or the word LOW).
 */
export function formatBattery(state: string | null | undefined): { text: string; low: boolean } | null {
  const s = state?.trim();
  if (!s) return null;
  const percent = /^(\d+(?:\.\d+)?)\s*%?$/.exec(s);
  if (percent) {
    const n = Math.min(100, Math.max(0, Math.round(Number(percent[1]))));
    return { text: `${n}%`, low: n <= LOW_BATTERY_PERCENT };
  }
  const word = s.toUpperCase();
  return { text: word, low: word === 'LOW' };
}

/** A distance given in km, two decimals, in km or miles: "12.50 km", "12,50 km", "7.77 mi". */
export function formatKmValue(km: number | null): string {
  return formatDistance(km, 2);
}

const STATUS_KEY = {
  'not-started': 'status.notStarted',
  racing: 'status.racing',
  finished: 'status.finished',
  stale: 'status.stale',
  'off-course': 'status.offCourse',
  dnf: 'status.dnf',
  dsq: 'status.dsq',
  dns: 'status.dns',
  unfinished: 'status.unfinished',
} as const;

/** A runner status's label in the viewer's language (read when shown: `STATUS_LABEL[status]`). */
export const STATUS_LABEL: Record<string, string> = new Proxy({} as Record<string, string>, {
  get: (_target, status) =>
    typeof status === 'string' && status in STATUS_KEY
      ? t(STATUS_KEY[status as keyof typeof STATUS_KEY])
      : undefined,
});

/** A runner status's label in the viewer's language (the status itself when it has none). */
export function statusLabel(status: string): string {
  return STATUS_LABEL[status] ?? status;
}

export function runnerLabel(r: { BibNumber: string | null; RunnerId: number }): string {
  return r.BibNumber ? `#${r.BibNumber}` : `R${r.RunnerId}`;
}
