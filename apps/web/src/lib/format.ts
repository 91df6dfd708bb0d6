/**
 * Display helpers shared by every screen. Distances, heights, paces and dates are src/i18n/format.ts (locale and
 * units); screens call it directly.
 */
import { t } from '../i18n';
import { formatDateTimeMedium } from '../i18n/format';

export const yn = (value: boolean): string => (value ? t('races.yes') : t('races.no'));

/** StartTime in the viewer's locale and time zone, or a dash when there is none. */
export function formatDateTime(iso: string | null | undefined): string {
  return formatDateTimeMedium(iso, '-');
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The start time as a local ISO string ("YYYY-MM-DDTHH:mm:ss±hh:mm"). The editor shows its first 16 characters
 * ("YYYY-MM-DDTHH:mm"), which is exactly what a datetime-local input takes, in the viewer's own time zone.
 */
export function toLocalIso(iso: string): string {
  const d = new Date(iso);
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}` +
    `:${pad(d.getSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

export function startTimeEditorValue(iso: string | null): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  return toLocalIso(iso).slice(0, 16);
}

/** A datetime-local value (viewer's zone) as an ISO instant for the API, or null when empty. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
