import type { AlertInput, FixInput } from '../types';
import { cleanText, deviceIdProblem, headingOf, isLatLon, num } from '../validate';
import { readBatch, type AdapterResult, type DeviceBatch } from './contract';

/** Garmin inReach IPC Outbound: {Version, Events:[{imei, messageCode, timeStamp (ms), point, status}]}. */

/** Position reports, locate responses and tracking start/interval/stop always carry a fix. */
const POSITION_CODES = new Set([0, 2, 10, 11, 12]);
/** Free text and SOS declare/confirm carry one when the device had a GPS fix. */
const FIX_IF_GPS_CODES = new Set([3, 4, 6]);
const ALERT_KINDS: Record<number, string> = { 4: 'sos', 6: 'sos', 7: 'sos-cancel' };
/** A free-text message (race HQ looks for the race's help keyword in it). */
const FREE_TEXT_CODE = 3;

interface InreachEvent {
  imei?: unknown;
  messageCode?: unknown;
  timeStamp?: unknown;
  freeText?: unknown;
  point?: { latitude?: unknown; longitude?: unknown; altitude?: unknown; gpsFix?: unknown; course?: unknown };
  status?: { lowBattery?: unknown };
}

/**
 * Every event of a batch that can be read. An event without a usable IMEI or message code is rejected (no device
 * could be named); one without a usable time gives no position, but its alert is kept — an SOS is never dropped
 * for its timestamp: the pipeline records it at its receive time.
 */
export function parseInreach(body: unknown): DeviceBatch {
  const events = (body && typeof body === 'object' ? (body as { Events?: unknown }).Events : undefined) ?? [];
  const fixes: FixInput[] = [];
  const alerts: AlertInput[] = [];
  const texts: AlertInput[] = [];
  const rejected: DeviceBatch['rejected'] = [];
  const batch = (received: number): DeviceBatch => ({
    fixes,
    alerts,
    texts,
    batteryOnly: [],
    rejected,
    received,
  });
  if (!Array.isArray(events)) return batch(0);
  for (const [index, raw] of (events as InreachEvent[]).entries()) {
    const reject = (reason: string) => rejected.push({ index, reason });
    if (!raw || typeof raw !== 'object') {
      reject('not an object');
      continue;
    }
    const imei = String(raw.imei ?? '').trim();
    const code = num(raw.messageCode);
    if (!imei || code === undefined) {
      reject('imei or messageCode missing');
      continue;
    }
    const imeiProblem = deviceIdProblem(imei);
    if (imeiProblem) {
      reject(`imei: ${imeiProblem}`);
      continue;
    }
    // Beyond ±8.64e15 ms JavaScript has no date (1e20 → Invalid Date); the window is the pipeline's to check.
    const ms = num(raw.timeStamp);
    const at = new Date(ms ?? NaN);
    const timed = Number.isFinite(at.getTime());
    const device = { source: 'inreach' as const, hardwareIds: [imei] };
    const p = raw.point ?? {};
    const gpsFix = num(p.gpsFix);
    const lat = num(p.latitude);
    const lon = num(p.longitude);
    const hasFix = gpsFix !== 0 && lat !== undefined && lon !== undefined;
    const usable = POSITION_CODES.has(code) || (FIX_IF_GPS_CODES.has(code) && (gpsFix ?? 0) > 0);
    const kind = ALERT_KINDS[code];
    if (!timed)
      reject(`timeStamp ${ms === undefined ? 'missing' : 'is not a time'}${kind ? ' (alert kept)' : ''}`);
    const low = num(raw.status?.lowBattery);
    if (timed && usable && hasFix) {
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
        // 1 is low, 0 is not; any other value (2 comes from real devices) says nothing we can read: the device keeps
        // the state it last reported, rather than a value 2 read as "low" raising a false low-battery alert.
        batteryState: low === 1 ? 'LOW' : low === 0 ? 'GOOD' : null,
        // point.course: degrees from true north (IPC Outbound V3).
        heading: headingOf(p.course),
      });
    }
    if (kind) {
      alerts.push({
        device,
        kind,
        at,
        ...(timed ? {} : { sourceTime: raw.timeStamp }),
        // An SOS text is kept whatever it carries: NUL characters (which no text column holds) are dropped.
        message: cleanText(raw.freeText),
        lat: hasFix && isLatLon(lat, lon) ? lat : null,
        lon: hasFix && isLatLon(lat, lon) ? (lon ?? null) : null,
      });
    }
    const text = code === FREE_TEXT_CODE ? cleanText(raw.freeText) : null;
    if (text && timed) {
      const located = hasFix && isLatLon(lat, lon);
      texts.push({
        device,
        kind: 'message',
        at,
        message: text,
        lat: located ? (lat ?? null) : null,
        lon: located ? (lon ?? null) : null,
      });
    }
  }
  return batch(events.length);
}

/** The inReach adapter: a batch is always readable (events that are not are listed in `rejected`). */
export function readInreach(body: unknown): AdapterResult {
  return readBatch(parseInreach(body));
}
