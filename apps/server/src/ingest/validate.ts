import type { FixInput } from './types';

/** How far in the future a device clock may be before its fix is refused. */
export const MAX_FUTURE_MS = 10 * 60 * 1000;

/** The one place fixes are checked: null when acceptable, else a human message. */
export function fixProblem(fix: FixInput, now = Date.now()): string | null {
  const { lat, lon, fixTime } = fix;
  if (typeof lat !== 'number' || !Number.isFinite(lat) || Math.abs(lat) > 90)
    return 'Latitude must be a number between -90 and 90.';
  if (typeof lon !== 'number' || !Number.isFinite(lon) || Math.abs(lon) > 180)
    return 'Longitude must be a number between -180 and 180.';
  const t = fixTime instanceof Date ? fixTime.getTime() : NaN;
  if (!Number.isFinite(t)) return 'The fix time is not a valid timestamp.';
  if (t > now + MAX_FUTURE_MS) return 'The fix time is more than 10 minutes in the future.';
  if (t < Date.UTC(2000, 0, 1)) return 'The fix time is before the year 2000.';
  for (const [name, v] of [
    ['altitude', fix.altitude],
    ['speed', fix.speed],
    ['battery', fix.batteryPercent],
  ] as const) {
    if (v !== null && v !== undefined && !Number.isFinite(v)) return `The ${name} must be a number.`;
  }
  return null;
}

/** A number from a query/form/JSON value, or undefined when absent or empty; NaN when present but not numeric. */
export function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? undefined : Number(v);
  return NaN;
}
