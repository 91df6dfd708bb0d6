import { batteryStateFromPercent, type FixInput } from '../types';
import { accuracyOf, deviceIdProblem, headingOf, num } from '../validate';
import { parseError, readBatch, type AdapterResult } from './contract';

/**
 * LoRaWAN network servers: The Things Stack v3 webhooks and ChirpStack v4 HTTP integration. The runner's position
 * comes from the payload decoder's output (field names vary by tracker, so the common ones are accepted) or a
 * location the network computed — never the registry ("user") location or a gateway's.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const LAT_KEYS = ['latitude', 'lat', 'Latitude', 'LATITUDE', 'gpsLat', 'latitudeDeg'];
const LON_KEYS = [
  'longitude',
  'lon',
  'lng',
  'long',
  'Longitude',
  'LONGITUDE',
  'gpsLon',
  'gpsLng',
  'longitudeDeg',
];
const ALT_KEYS = ['altitude', 'alt', 'Altitude', 'height', 'elevation'];
const BATT_PERCENT_KEYS = [
  'battery',
  'batteryPercent',
  'battery_percent',
  'batteryLevel',
  'battery_level',
  'batt',
  'bat',
];
const TIME_KEYS = ['time', 'timestamp', 'gpsTime', 'fixTime'];
const ACCURACY_KEYS = ['accuracy', 'acc', 'hacc', 'horizontalAccuracy', 'horizontal_accuracy'];
const HEADING_KEYS = ['heading', 'course', 'cog', 'bearing'];
const NESTED = ['gps', 'location', 'position', 'coordinates', 'gnss'];

/**
 * CayenneLPP decoders put a GPS position under its channel: The Things Stack's built-in formatter as `gps_<channel>`
 * ({latitude, longitude, altitude}), ChirpStack v4's as `gpsLocation: {"<channel>": {…}}`. Lowest channel first.
 */
function cayenneGps(o: Obj): Obj[] {
  const byChannel = (entries: [string, unknown][]) =>
    entries
      .filter((e): e is [string, Obj] => isObj(e[1]))
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map((e) => e[1]);
  const ttn = byChannel(
    Object.entries(o)
      .filter(([k]) => /^gps_\d+$/.test(k))
      .map(([k, v]) => [k.slice(4), v]),
  );
  const chirp = isObj(o.gpsLocation) ? byChannel(Object.entries(o.gpsLocation)) : [];
  return [...ttn, ...chirp];
}

function pick(o: Obj, keys: string[]): number | undefined {
  for (const k of keys) {
    const v = num(o[k]);
    if (v !== undefined && Number.isFinite(v)) return v;
  }
  return undefined;
}

interface Decoded {
  lat?: number;
  lon?: number;
  alt?: number;
  battery?: number;
  time?: Date;
  accuracy?: number | null;
  heading?: number | null;
}

/** Reads decoder output at the top level or one level down (gps/location/position objects). */
export function readDecoded(o: unknown): Decoded {
  if (!isObj(o)) return {};
  const candidates = [o, ...NESTED.map((k) => o[k]).filter(isObj), ...cayenneGps(o)];
  const out: Decoded = {};
  for (const c of candidates) {
    const lat = pick(c, LAT_KEYS);
    const lon = pick(c, LON_KEYS);
    if (lat !== undefined && lon !== undefined) {
      out.lat = lat;
      out.lon = lon;
      out.alt = pick(c, ALT_KEYS);
      out.accuracy = accuracyOf(pick(c, ACCURACY_KEYS) ?? pick(o, ACCURACY_KEYS));
      out.heading = headingOf(pick(c, HEADING_KEYS) ?? pick(o, HEADING_KEYS));
      break;
    }
  }
  const b = pick(o, BATT_PERCENT_KEYS);
  // Some decoders report volts under "battery"; only a 0–100 value with a percent meaning is taken.
  if (b !== undefined && b >= 0 && b <= 100 && !(b < 5 && !Number.isInteger(b))) out.battery = b;
  for (const k of TIME_KEYS) {
    const v = o[k];
    if (v === undefined || v === null || v === '') continue;
    const n = num(v);
    const d =
      n !== undefined && Number.isFinite(n) ? new Date(n < 2 ** 31 ? n * 1000 : n) : new Date(String(v));
    if (Number.isFinite(d.getTime())) {
      out.time = d;
      break;
    }
  }
  return out;
}

/** A position with both coordinates exactly 0 is a tracker without a fix. */
const noFix = (lat?: number, lon?: number) =>
  lat === undefined || lon === undefined || (lat === 0 && lon === 0);

export interface LorawanParsed {
  devEui: string | null;
  fix: Omit<FixInput, 'device'> | null;
  batteryPercent: number | null;
  /** A data uplink (not a join, status or other event): one without a position is counted on its device. */
  uplink?: boolean;
}

function build(
  lat: number | undefined,
  lon: number | undefined,
  alt: number | undefined,
  time: Date,
  battery: number | null,
  extra: Pick<FixInput, 'accuracy' | 'heading'> = {},
): Omit<FixInput, 'device'> | null {
  if (noFix(lat, lon)) return null;
  return {
    source: 'lorawan',
    fixTime: time,
    lat: lat!,
    lon: lon!,
    altitude: alt ?? null,
    speed: null,
    batteryPercent: battery,
    batteryState: batteryStateFromPercent(battery),
    accuracy: extra.accuracy ?? null,
    heading: extra.heading ?? null,
  };
}

const date = (v: unknown): Date | undefined => {
  if (typeof v !== 'string' || !v) return undefined;
  const d = new Date(v);
  return Number.isFinite(d.getTime()) ? d : undefined;
};

/** The Things Stack uplink message (webhook "uplink message" path). */
export function parseTtn(body: unknown): LorawanParsed {
  if (!isObj(body)) return { devEui: null, fix: null, batteryPercent: null };
  const ids = isObj(body.end_device_ids) ? body.end_device_ids : {};
  const devEui = typeof ids.dev_eui === 'string' ? ids.dev_eui : null;
  const up = isObj(body.uplink_message) ? body.uplink_message : {};
  const dec = readDecoded(up.decoded_payload);
  const rx = Array.isArray(up.rx_metadata) && isObj(up.rx_metadata[0]) ? up.rx_metadata[0] : {};
  const time = dec.time ?? date(rx.time) ?? date(up.received_at) ?? date(body.received_at) ?? new Date();
  let battery = dec.battery ?? null;
  const lbp = isObj(up.last_battery_percentage) ? up.last_battery_percentage : null;
  if (battery === null && lbp) {
    const v = num(lbp.value);
    if (v !== undefined && Number.isFinite(v)) battery = v;
  }
  let lat = dec.lat;
  let lon = dec.lon;
  let alt = dec.alt;
  if (noFix(lat, lon) && isObj(up.locations)) {
    // frm-payload (decoder) or a network-solved location; "user" is the static registry location.
    for (const [k, v] of Object.entries(up.locations)) {
      if (k === 'user' || !isObj(v)) continue;
      lat = num(v.latitude);
      lon = num(v.longitude);
      alt = num(v.altitude);
      if (!noFix(lat, lon)) break;
    }
  }
  const extra = lat === dec.lat && lon === dec.lon ? dec : {};
  return { devEui, fix: build(lat, lon, alt, time, battery, extra), batteryPercent: battery, uplink: true };
}

/** ChirpStack v4 JSON events: `up` (decoded `object`), `location` (network geolocation), `status` (battery). */
export function parseChirpstack(event: string, body: unknown): LorawanParsed {
  if (!isObj(body)) return { devEui: null, fix: null, batteryPercent: null };
  const info = isObj(body.deviceInfo) ? body.deviceInfo : {};
  const devEui = typeof info.devEui === 'string' ? info.devEui : null;
  const time = date(body.time) ?? new Date();
  if (event === 'status') {
    const b = num(body.batteryLevel);
    const usable = b !== undefined && Number.isFinite(b) && body.batteryLevelUnavailable !== true;
    return { devEui, fix: null, batteryPercent: usable ? b : null };
  }
  if (event === 'location') {
    const loc = isObj(body.location) ? body.location : {};
    return {
      devEui,
      fix: build(num(loc.latitude), num(loc.longitude), num(loc.altitude), time, null),
      batteryPercent: null,
    };
  }
  if (event !== 'up') return { devEui, fix: null, batteryPercent: null };
  const dec = readDecoded(body.object);
  const battery = dec.battery ?? null;
  return {
    devEui,
    fix: build(dec.lat, dec.lon, dec.alt, dec.time ?? time, battery, dec),
    batteryPercent: battery,
    uplink: true,
  };
}

/**
 * The LoRaWAN adapter over a decoded uplink: the device is its DevEUI; an uplink without a position but with a
 * battery level (a ChirpStack status event, a decoder that reports only the battery) is a battery-only report.
 */
export function lorawanBatch(parsed: LorawanParsed): AdapterResult {
  if (!parsed.devEui) return parseError('missing_device_id', 'The uplink names no DevEUI.');
  const idProblem = deviceIdProblem(parsed.devEui);
  if (idProblem) return parseError('invalid_device_id', idProblem);
  const device = { source: 'lorawan' as const, hardwareIds: [parsed.devEui] };
  if (parsed.fix) return readBatch({ fixes: [{ ...parsed.fix, device }] });
  // A data uplink without a position (a payload formatter that gives none) is counted on its device.
  const withoutPosition = parsed.uplink ? [device] : [];
  if (parsed.batteryPercent === null) return readBatch({ received: 1, withoutPosition });
  const { batteryPercent } = parsed;
  // No state: the device keeps the GOOD/LOW it last reported (storeBattery), as before this report.
  return readBatch({
    batteryOnly: [{ device, source: 'lorawan', batteryPercent, batteryState: null }],
    received: 1,
    withoutPosition,
  });
}

export const readTtn = (body: unknown): AdapterResult => lorawanBatch(parseTtn(body));
export const readChirpstack = (event: string, body: unknown): AdapterResult =>
  lorawanBatch(parseChirpstack(event, body));
