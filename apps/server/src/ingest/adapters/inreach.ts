import type { AlertInput, FixInput } from '../types';
import { cleanText, deviceIdProblem, isLatLon, num } from '../validate';

/** Garmin inReach IPC Outbound: {Version, Events:[{imei, messageCode, timeStamp (ms), point, status}]}. */

/** Position reports, locate responses and tracking start/interval/stop always carry a fix. */
const POSITION_CODES = new Set([0, 2, 10, 11, 12]);
/** Free text and SOS declare/confirm carry one when the device had a GPS fix. */
const FIX_IF_GPS_CODES = new Set([3, 4, 6]);
const ALERT_KINDS: Record<number, string> = { 4: 'sos', 6: 'sos', 7: 'sos-cancel' };

interface InreachEvent {
  imei?: unknown;
  messageCode?: unknown;
  timeStamp?: unknown;
  freeText?: unknown;
  point?: { latitude?: unknown; longitude?: unknown; altitude?: unknown; gpsFix?: unknown };
  status?: { lowBattery?: unknown };
}

export interface InreachParsed {
  fixes: FixInput[];
  alerts: AlertInput[];
  /** Events that could not be read (no usable IMEI, code or time), by index in `Events`, for the log. */
  rejected: { index: number; reason: string }[];
}

export function parseInreach(body: unknown): InreachParsed {
  const events = (body && typeof body === 'object' ? (body as { Events?: unknown }).Events : undefined) ?? [];
  const fixes: FixInput[] = [];
  const alerts: AlertInput[] = [];
  const rejected: InreachParsed['rejected'] = [];
  if (!Array.isArray(events)) return { fixes, alerts, rejected };
  for (const [index, raw] of (events as InreachEvent[]).entries()) {
    const reject = (reason: string) => rejected.push({ index, reason });
    if (!raw || typeof raw !== 'object') {
      reject('not an object');
      continue;
    }
    const imei = String(raw.imei ?? '').trim();
    const code = num(raw.messageCode);
    const ms = num(raw.timeStamp);
    if (!imei || code === undefined || ms === undefined || !Number.isFinite(ms)) {
      reject('imei, messageCode or timeStamp missing');
      continue;
    }
    const imeiProblem = deviceIdProblem(imei);
    if (imeiProblem) {
      reject(`imei: ${imeiProblem}`);
      continue;
    }
    // Beyond ±8.64e15 ms JavaScript has no date (1e20 → Invalid Date); the window is the pipeline's to check.
    const at = new Date(ms);
    if (!Number.isFinite(at.getTime())) {
      reject('timeStamp is not a time');
      continue;
    }
    const device = { source: 'inreach' as const, hardwareIds: [imei] };
    const p = raw.point ?? {};
    const gpsFix = num(p.gpsFix);
    const lat = num(p.latitude);
    const lon = num(p.longitude);
    const hasFix = gpsFix !== 0 && lat !== undefined && lon !== undefined;
    const usable = POSITION_CODES.has(code) || (FIX_IF_GPS_CODES.has(code) && (gpsFix ?? 0) > 0);
    const low = num(raw.status?.lowBattery);
    if (usable && hasFix) {
      fixes.push({
        device,
        source: 'inreach',
        fixTime: at,
        lat,
        lon,
        altitude: num(p.altitude) ?? null,
        // The unit of point.speed is not confirmed by Garmin's documentation; better none than a wrong one.
        speed: null,
        batteryPercent: null,
        batteryState: low === undefined ? null : low ? 'LOW' : 'GOOD',
      });
    }
    const kind = ALERT_KINDS[code];
    if (kind) {
      alerts.push({
        device,
        kind,
        at,
        // An SOS text is kept whatever it carries: NUL characters (which no text column holds) are dropped.
        message: cleanText(raw.freeText),
        lat: hasFix && isLatLon(lat, lon) ? lat : null,
        lon: hasFix && isLatLon(lat, lon) ? (lon ?? null) : null,
      });
    }
  }
  return { fixes, alerts, rejected };
}
