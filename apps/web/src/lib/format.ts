/** Display helpers shared by every screen. */

export const yn = (value: boolean): string => (value ? 'Y' : 'N');

/** StartTime in the viewer's local format and time zone, or a dash when there is none. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '-';
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
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

export function formatKm(metres: number): string {
  return `${(metres / 1000).toFixed(metres < 10_000 ? 2 : 1)} km`;
}

export function formatMetres(metres: number): string {
  return `${Math.round(metres).toLocaleString()} m`;
}
