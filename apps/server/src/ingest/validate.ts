import { DEVICE_SOURCES, type AlertInput, type DeviceRef, type FixInput } from './types';

/** How far in the future a device clock may be before its fix is refused. */
export const MAX_FUTURE_MS = 10 * 60 * 1000;

/**
 * Limits of the columns a fix is stored in (`positions`, `devices` in db/schema.ts), so that a value is refused
 * here, before it joins a group-commit batch, and never by the database (where it would fail the batch):
 * - `real` (battery_percent): finite, |v| ≤ FLT_MAX, and 0 or |v| ≥ FLT_MIN. PostgreSQL refuses what a float4
 *   cannot hold (`1e39`, and `1e-50`, which underflows); a value below FLT_MIN is refused rather than rounded to 0
 *   so that nonsense never reads as "battery empty". A battery is also 0–100 %, which is stricter still.
 * - `double precision` (lat, lon, altitude, speed): finite (JavaScript numbers are doubles).
 * - `integer` (device ids): 1 … 2^31 − 1.
 * - `text` (tracking key, hardware ids, battery state, alert message): no NUL (U+0000, which PostgreSQL text
 *   cannot hold), no unpaired UTF-16 surrogate (not valid in the JSON the batch statement reads), bounded length.
 * - `timestamptz` (fix time): a valid time from 2000 to 10 minutes ahead — well inside PostgreSQL's range.
 */
export const REAL_MAX = 3.4028234663852886e38;
export const REAL_MIN_NORMAL = 1.1754943508222875e-38;
export const INT_MAX = 2 ** 31 - 1;
/** Tracking keys are 43 characters, IMEIs 15, DevEUIs 16: anything this long is not a device of ours. */
export const MAX_DEVICE_ID_LENGTH = 200;
export const MAX_BATTERY_STATE_LENGTH = 32;
export const MAX_ALERT_MESSAGE_LENGTH = 2000;
const EARLIEST = Date.UTC(2000, 0, 1);

/** null when a `real` column can hold v. */
export function realProblem(v: number): string | null {
  if (!Number.isFinite(v)) return 'is not a finite number';
  const a = Math.abs(v);
  if (a > REAL_MAX || (a !== 0 && a < REAL_MIN_NORMAL)) return 'is outside the range a 4-byte float can hold';
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** null when a text column can hold s (and it is at most max characters). */
export function textProblem(s: unknown, max: number): string | null {
  if (typeof s !== 'string') return 'is not text';
  if (s.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(s)) return 'is not valid Unicode';
  if (s.length > max) return `is longer than ${max} characters`;
  return null;
}

/**
 * Free text from a device (SOS messages, battery states): NUL characters removed, cut to max, unpaired surrogates
 * (also one left by the cut) replaced by U+FFFD; null when empty.
 */
export function cleanText(v: unknown, max = MAX_ALERT_MESSAGE_LENGTH): string | null {
  if (typeof v !== 'string') return null;
  const s = v
    .replaceAll('\u0000', '')
    .slice(0, max)
    .replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
  return s === '' ? null : s;
}

/** A device id as a source reports it (tracking key, IMEI, DevEUI, ESN) that could name one of our devices. */
export function deviceIdProblem(id: string): string | null {
  const p = textProblem(id, MAX_DEVICE_ID_LENGTH);
  return p ? `The device id ${p}.` : null;
}

function deviceRefProblem(ref: DeviceRef): string | null {
  if ('trackingKey' in ref) return deviceIdProblem(ref.trackingKey);
  if ('deviceId' in ref)
    return Number.isInteger(ref.deviceId) && ref.deviceId >= 1 && ref.deviceId <= INT_MAX
      ? null
      : 'The device id is not a valid id.';
  if (!DEVICE_SOURCES.includes(ref.source)) return 'The device source is unknown.';
  if (!Array.isArray(ref.hardwareIds) || !ref.hardwareIds.length) return 'The device id is missing.';
  for (const h of ref.hardwareIds) {
    const p = deviceIdProblem(h);
    if (p) return p;
  }
  return null;
}

function timeProblem(at: Date, now: number, what: string): string | null {
  const t = at instanceof Date ? at.getTime() : NaN;
  if (!Number.isFinite(t)) return `The ${what} is not a valid timestamp.`;
  if (t > now + MAX_FUTURE_MS) return `The ${what} is more than 10 minutes in the future.`;
  if (t < EARLIEST) return `The ${what} is before the year 2000.`;
  return null;
}

function latLonProblem(lat: unknown, lon: unknown): string | null {
  if (typeof lat !== 'number' || !Number.isFinite(lat) || Math.abs(lat) > 90)
    return 'Latitude must be a number between -90 and 90.';
  if (typeof lon !== 'number' || !Number.isFinite(lon) || Math.abs(lon) > 180)
    return 'Longitude must be a number between -180 and 180.';
  return null;
}

/** Coordinates an alert may carry; an SOS with broken coordinates is still recorded, without them. */
export const isLatLon = (lat: unknown, lon: unknown): lat is number => latLonProblem(lat, lon) === null;

/** A battery percentage: 0–100 (and so within what the `real` column holds); null/undefined = not reported. */
export function batteryProblem(v: number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || realProblem(v) || v < 0 || v > 100)
    return 'The battery must be a percentage between 0 and 100.';
  return null;
}

/** The one place fixes are checked: null when acceptable, else a human message. */
export function fixProblem(fix: FixInput, now = Date.now()): string | null {
  const where = latLonProblem(fix.lat, fix.lon);
  if (where) return where;
  const when = timeProblem(fix.fixTime, now, 'fix time');
  if (when) return when;
  for (const [name, v] of [
    ['altitude', fix.altitude],
    ['speed', fix.speed],
    ['accuracy', fix.accuracy],
    ['heading', fix.heading],
  ] as const) {
    if (v !== null && v !== undefined && (typeof v !== 'number' || !Number.isFinite(v)))
      return `The ${name} must be a number.`;
  }
  return batteryReportProblem(fix);
}

/** A battery level reported with or without a position: null when acceptable, else a human message. */
export function batteryReportProblem(
  r: Pick<FixInput, 'device' | 'source' | 'batteryPercent' | 'batteryState'>,
): string | null {
  const battery = batteryProblem(r.batteryPercent);
  if (battery) return battery;
  if (r.batteryState !== null && r.batteryState !== undefined) {
    const p = textProblem(r.batteryState, MAX_BATTERY_STATE_LENGTH);
    if (p) return `The battery state ${p}.`;
  }
  if (!DEVICE_SOURCES.includes(r.source)) return 'The source is unknown.';
  return deviceRefProblem(r.device);
}

/**
 * What is wrong with an alert's own time, null when it is usable. Such an alert is still recorded, at its receive
 * time (see IngestPipeline.recordAlert): an SOS is never dropped for its timestamp.
 */
export function alertTimeProblem(a: AlertInput, now = Date.now()): string | null {
  return timeProblem(a.at, now, 'alert time');
}

/** Alerts (SOS, HELP) are checked the same way before they reach the database: null when acceptable. */
export function alertProblem(a: AlertInput, now = Date.now()): string | null {
  const when = alertTimeProblem(a, now);
  if (when) return when;
  if (a.lat !== null || a.lon !== null) {
    const where = latLonProblem(a.lat, a.lon);
    if (where) return where;
  }
  if (a.message !== null) {
    const p = textProblem(a.message, MAX_ALERT_MESSAGE_LENGTH);
    if (p) return `The message ${p}.`;
  }
  const p = textProblem(a.kind, MAX_BATTERY_STATE_LENGTH);
  if (p) return `The alert kind ${p}.`;
  return deviceRefProblem(a.device);
}

/** A number from a query/form/JSON value, or undefined when absent or empty; NaN when present but not numeric. */
export function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? undefined : Number(v);
  return NaN;
}

/** Larger than any accuracy a position is worth keeping with (a country): a value beyond it is not an accuracy. */
export const MAX_ACCURACY_M = 1_000_000;

/**
 * An accuracy in metres as a device reported it, or null: a value that is not one (negative, not finite, absurd) is
 * dropped, never a reason to refuse the position it came with.
 */
export function accuracyOf(v: unknown): number | null {
  const n = num(v);
  return n !== undefined && Number.isFinite(n) && n >= 0 && n <= MAX_ACCURACY_M ? n : null;
}

/** A heading in degrees (0 ≤ h < 360, 360 read as 0), or null: a value that is not one is dropped, as above. */
export function headingOf(v: unknown): number | null {
  const n = num(v);
  return n !== undefined && Number.isFinite(n) && n >= 0 && n <= 360 ? n % 360 : null;
}
