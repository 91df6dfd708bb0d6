/** Display helpers of the live panel. */

export function formatPace(secPerKm: number | null): string {
  if (secPerKm === null || !Number.isFinite(secPerKm) || secPerKm <= 0) return '–';
  const s = Math.round(secPerKm);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} /km`;
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export function formatAgo(iso: string | null, now: number): string {
  if (!iso) return 'never';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return 'never';
  const min = Math.floor(Math.max(0, ms) / 60_000);
  if (min < 1) return 'just now';
  if (min < 120) return `${min} min ago`;
  return `${Math.floor(min / 60)} h ${min % 60} min ago`;
}

export function formatClock(iso: string | null): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? '–'
    : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
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
    : `${r.NextWaypoint} at ${r.NextWaypointKm.toFixed(1)} km`;
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
  const range = lo != null && hi != null && hi - lo >= 0.05 ? ` (${lo.toFixed(1)}–${hi.toFixed(1)})` : '';
  return `estimated ${km.toFixed(1)} km${range}`;
}

/** "Sat 6 Jun, 09:00": a start time a spectator can plan by. */
export function formatDateTime(iso: string | null): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? '–'
    : d.toLocaleString(undefined, {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
      });
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

export function formatKmValue(km: number | null): string {
  return km === null ? '–' : `${km.toFixed(2)} km`;
}

export const STATUS_LABEL: Record<string, string> = {
  'not-started': 'Not started',
  racing: 'Racing',
  finished: 'Finished',
  stale: 'No signal',
  'off-course': 'Off course',
  dnf: 'DNF',
  dsq: 'DSQ',
  dns: 'DNS',
  unfinished: 'Not finished',
};

export function runnerLabel(r: { BibNumber: string | null; RunnerId: number }): string {
  return r.BibNumber ? `#${r.BibNumber}` : `R${r.RunnerId}`;
}
