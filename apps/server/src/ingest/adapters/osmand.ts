import { batteryStateFromPercent, type AlertInput, type FixInput } from '../types';
import { accuracyOf, deviceIdProblem, headingOf, num } from '../validate';
import { batchOrThrow, parseError, readBatch, type AdapterResult } from './contract';

/**
 * OsmAnd protocol as Traccar's server reads it: parameters from the query string (GET or the old Traccar Client's
 * POST), or a form body, or the JSON body of Traccar Client 9+. `id`/`deviceid`/`device_id` is our TrackingKey.
 */

const KNOTS_TO_MS = 1 / 1.943844;

/** Traccar's rules: integer < 2^31 is seconds, larger is ms; ISO 8601; "yyyy-MM-dd HH:mm:ss" (UTC); absent → now. */
export function parseOsmandTime(v: unknown, now = new Date()): Date {
  if (v === undefined || v === null || v === '') return now;
  const s = String(v).trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    return new Date(n < 2 ** 31 ? n * 1000 : n);
  }
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(s)) return new Date(s.replace(' ', 'T') + 'Z');
  return new Date(s);
}

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

/** A device id no device of ours can have (NUL byte, absurd length) is refused before it reaches a query. */
const keyError = (key: string): AdapterResult | null => {
  const problem = deviceIdProblem(key);
  return problem ? parseError('invalid_device_id', problem) : null;
};

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * An OsmAnd request, wherever its data is: a Traccar Client 9 JSON body (`location` object or array), else the
 * query string (GET, or the old Traccar Client's POST), else a form body, else a raw body that reads as a form.
 */
export function readOsmand(request: { query: unknown; body: unknown }): AdapterResult {
  const query = isObj(request.query) ? request.query : {};
  const { body } = request;
  if (isObj(body) && (isObj(body.location) || Array.isArray(body.location))) return readTraccarJson(body);
  if (Object.keys(query).length) return readOsmandParams(query);
  if (isObj(body)) return readOsmandParams(body);
  if (typeof body === 'string' && body.includes('='))
    return readOsmandParams(Object.fromEntries(new URLSearchParams(body)));
  // A body that is neither parameters nor Traccar JSON (a truncated JSON sent as text, a binary protocol) cannot be read.
  if ((typeof body === 'string' && body.trim() !== '') || Buffer.isBuffer(body))
    return parseError('unreadable_body', 'The body is neither OsmAnd parameters nor Traccar Client JSON.');
  return parseError('missing_device_id', 'Send the OsmAnd parameters (id, lat, lon, timestamp…).');
}

/** Query or form parameters (already merged, query first). */
export function readOsmandParams(params: Record<string, unknown>): AdapterResult {
  const p: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) p[k] = first(v);
  const key = String(p.id ?? p.deviceid ?? p.device_id ?? '').trim();
  if (!key) return parseError('missing_device_id', 'The device id (id) is missing.');
  const bad = keyError(key);
  if (bad) return bad;
  let lat = num(p.lat);
  let lon = num(p.lon);
  if ((lat === undefined || lon === undefined) && typeof p.location === 'string') {
    const [a, b] = p.location.split(',');
    lat = num(a);
    lon = num(b);
  }
  if (lat === undefined || lon === undefined)
    return parseError('invalid_position', 'lat and lon are required.');
  const speedKnots = num(p.speed);
  const batt = num(p.batt);
  const fix: FixInput = {
    device: { trackingKey: key },
    source: 'osmand',
    fixTime: parseOsmandTime(p.timestamp),
    lat,
    lon,
    altitude: num(p.altitude) ?? null,
    speed: speedKnots === undefined ? null : speedKnots * KNOTS_TO_MS,
    batteryPercent: batt ?? null,
    batteryState: batteryStateFromPercent(batt),
    // Traccar's parameters: accuracy (or hacc) in metres, bearing (or heading) in degrees; hdop is no distance.
    accuracy: accuracyOf(p.accuracy ?? p.hacc),
    heading: headingOf(p.bearing ?? p.heading),
  };
  return readBatch({ fixes: [fix], alerts: alarmsOf([[p.alarm, fix]]) });
}

/**
 * Traccar Client's SOS: the Android/iOS client's SOS shortcut sends its position with `alarm=sos` (query or form
 * parameter, as Traccar's OsmAnd decoder reads it); Traccar Client 9 puts `extras: {alarm: 'sos'}` on the location
 * of its JSON body. Other alarm values are not alerts of ours.
 */
function alarmsOf(pairs: [unknown, FixInput][]): AlertInput[] {
  const out: AlertInput[] = [];
  for (const [alarm, fix] of pairs) {
    if (typeof alarm !== 'string' || alarm.trim().toLowerCase() !== 'sos') continue;
    out.push({
      device: fix.device,
      kind: 'sos',
      at: fix.fixTime,
      message: null,
      lat: fix.lat,
      lon: fix.lon,
    });
  }
  return out;
}

interface TraccarLocation {
  timestamp?: unknown;
  coords?: {
    latitude?: unknown;
    longitude?: unknown;
    altitude?: unknown;
    speed?: unknown;
    accuracy?: unknown;
    heading?: unknown;
  };
  battery?: { level?: unknown; is_charging?: unknown };
  extras?: { alarm?: unknown };
}

/** Traccar Client 9+ (flutter_background_geolocation): {device_id, location:{timestamp, coords, battery}}; a
 * batch sync sends `location` as an array. */
export function readTraccarJson(body: Record<string, unknown>): AdapterResult {
  const key = String(body.device_id ?? body.id ?? body.deviceid ?? '').trim();
  if (!key) return parseError('missing_device_id', 'The device id (device_id) is missing.');
  const bad = keyError(key);
  if (bad) return bad;
  const raw = body.location;
  const list = (Array.isArray(raw) ? raw : [raw]) as (TraccarLocation | undefined)[];
  if (!list.length || list.some((l) => !l || typeof l !== 'object' || !l.coords))
    return parseError('invalid_position', 'location.coords is required.');
  const fixes = list.map((l): FixInput => {
    const c = l!.coords!;
    const speed = num(c.speed);
    const level = num(l!.battery?.level);
    const percent = level === undefined || level < 0 ? null : Math.round(level * 1000) / 10;
    return {
      device: { trackingKey: key },
      source: 'osmand',
      fixTime: parseOsmandTime(l!.timestamp),
      lat: num(c.latitude) ?? NaN,
      lon: num(c.longitude) ?? NaN,
      altitude: num(c.altitude) ?? null,
      speed: speed === undefined || speed < 0 ? null : speed,
      batteryPercent: percent,
      batteryState: batteryStateFromPercent(percent),
      // -1 is the client's "unknown" for both: dropped (accuracyOf, headingOf).
      accuracy: accuracyOf(c.accuracy),
      heading: headingOf(c.heading),
    };
  });
  return readBatch({ fixes, alerts: alarmsOf(list.map((l, i) => [l!.extras?.alarm, fixes[i]])) });
}

/** The fixes of one OsmAnd request and the tracking key they were sent with. */
export interface OsmandParsed {
  key: string;
  fixes: FixInput[];
}

function parsedOrThrow(result: AdapterResult): OsmandParsed {
  const { fixes } = batchOrThrow(result);
  const ref = fixes[0].device;
  return { key: 'trackingKey' in ref ? ref.trackingKey : '', fixes };
}

/** readOsmandParams with its parse error thrown (an IngestParseError), for callers that want an exception. */
export const parseOsmandParams = (params: Record<string, unknown>) => parsedOrThrow(readOsmandParams(params));

/** readTraccarJson with its parse error thrown (an IngestParseError), for callers that want an exception. */
export const parseTraccarJson = (body: Record<string, unknown>) => parsedOrThrow(readTraccarJson(body));
