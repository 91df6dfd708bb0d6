import { SaxesParser } from 'saxes';

/**
 * Garmin MapShare's raw KML feed (share.garmin.com/Feed/Share/{name}?d1=…), read into plain records. Each position
 * is a Placemark with a <TimeStamp><when> and an ExtendedData block of <Data name="…"><value> pairs ("Time UTC",
 * "Latitude", "Longitude", "Elevation" "1732.00 m from MSL", "Velocity" "5.0 km/h", "Event", "IMEI", "Text",
 * "In Emergency" True/False, "Valid GPS Fix"…) and a <Point>; the feed's last Placemark is usually the track as a
 * LineString, which carries no ExtendedData and is skipped. Pure: no I/O, no clock.
 */

export interface MapShareRecord {
  /** Garmin's message id ("Id"), when present. */
  id: string | null;
  /** The message time (UTC); null when neither <when> nor "Time UTC" could be read. */
  time: Date | null;
  /** The time as written, for the log when unreadable. */
  timeText: string | null;
  lat: number | null;
  lon: number | null;
  /** Metres above mean sea level. */
  elevationM: number | null;
  /** km/h as Garmin writes it. */
  velocityKmh: number | null;
  /** "Course" ("112.50 ° True"): degrees from true north. */
  courseDeg: number | null;
  event: string | null;
  imei: string | null;
  /** The message text ("Text", or "Message" on some feeds); null when empty. */
  text: string | null;
  inEmergency: boolean;
  /** "Valid GPS Fix": false for a message sent without a position fix (its coordinates are not a fix). */
  validFix: boolean;
}

export interface MapShareFeed {
  records: MapShareRecord[];
  /** Placemarks that were neither a position nor the track, with why, for the log. */
  rejected: { index: number; reason: string }[];
}

export class MapShareKmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MapShareKmlError';
  }
}

const localName = (qname: string) => {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
};

/** The leading number of "1732.00 m from MSL" / "5.0 km/h" / "46.5581"; null for empty or unreadable. */
export function leadingNumber(text: string | undefined): number | null {
  const m = /^\s*([-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?)/.exec(text ?? '');
  if (!m) return null;
  const n = Number(m[1].replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** "5/20/2015 2:26:00 PM" (Garmin's "Time UTC", US style) as a UTC instant; null when not that shape. */
export function parseGarminUsTime(text: string | undefined): Date | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?\s*$/.exec(
    text ?? '',
  );
  if (!m) return null;
  const [, mo, d, y, hh, mm, ss, ampm] = m;
  let h = Number(hh);
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (/p/i.test(ampm) ? 12 : 0);
  }
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || Number(mm) > 59 || Number(ss ?? 0) > 59)
    return null;
  const t = Date.UTC(Number(y), month - 1, day, h, Number(mm), Number(ss ?? 0));
  const date = new Date(t);
  // 2/30 rolls over into March: not a date.
  return date.getUTCDate() === day ? date : null;
}

const truthy = (v: string | undefined) => /^\s*true\s*$/i.test(v ?? '');

function toRecord(
  data: Map<string, string>,
  when: string | undefined,
  point: string | undefined,
): MapShareRecord {
  const whenDate = when ? new Date(when.trim()) : null;
  const time =
    whenDate && Number.isFinite(whenDate.getTime()) ? whenDate : parseGarminUsTime(data.get('time utc'));
  // <Point><coordinates>lon,lat,alt</coordinates> when ExtendedData lacks them.
  const coords = (point ?? '').trim().split(',');
  const lat = leadingNumber(data.get('latitude')) ?? (point ? leadingNumber(coords[1]) : null);
  const lon = leadingNumber(data.get('longitude')) ?? (point ? leadingNumber(coords[0]) : null);
  const text = (data.get('text') || data.get('message') || '').trim();
  const validFix = data.has('valid gps fix') ? truthy(data.get('valid gps fix')) : true;
  return {
    id: data.get('id')?.trim() || null,
    time,
    timeText: when?.trim() || data.get('time utc')?.trim() || null,
    lat,
    lon,
    elevationM: leadingNumber(data.get('elevation')) ?? (point ? leadingNumber(coords[2]) : null),
    velocityKmh: leadingNumber(data.get('velocity')),
    courseDeg: leadingNumber(data.get('course')),
    event: data.get('event')?.trim() || null,
    imei: data.get('imei')?.trim() || null,
    text: text || null,
    inEmergency: truthy(data.get('in emergency')),
    validFix,
  };
}

/** Reads a MapShare KML document. Throws MapShareKmlError when it is not KML at all. */
export function parseMapShareKml(xml: string): MapShareFeed {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  if (!text.trim()) return { records: [], rejected: [] };
  const parser = new SaxesParser({ xmlns: false });
  const records: MapShareRecord[] = [];
  const rejected: MapShareFeed['rejected'] = [];
  const stack: string[] = [];
  let rootSeen = false;
  let buf = '';
  let placemarkIndex = -1;
  let pm: {
    data: Map<string, string>;
    dataName: string | null;
    when?: string;
    point?: string;
    line: boolean;
  } | null = null;

  parser.on('doctype', () => {
    throw new MapShareKmlError('The feed contains a DOCTYPE declaration.');
  });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (!rootSeen) {
      rootSeen = true;
      if (name !== 'kml') throw new MapShareKmlError(`Not a KML feed (root element <${tag.name}>).`);
    }
    stack.push(name);
    buf = '';
    if (name === 'Placemark') {
      placemarkIndex++;
      pm = { data: new Map(), dataName: null, line: false };
    } else if (pm && name === 'Data') {
      const n = (tag.attributes as Record<string, string>).name;
      pm.dataName = typeof n === 'string' ? n.trim().toLowerCase() : null;
    } else if (pm && name === 'LineString') pm.line = true;
  });
  parser.on('text', (t) => (buf += t));
  parser.on('cdata', (t) => (buf += t));
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    const parent = stack[stack.length - 2];
    const value = buf;
    buf = '';
    stack.pop();
    if (!pm) return;
    if (name === 'value' && parent === 'Data' && pm.dataName) pm.data.set(pm.dataName, value);
    else if (name === 'Data') pm.dataName = null;
    else if (name === 'when' && parent === 'TimeStamp') pm.when = value;
    else if (name === 'coordinates' && parent === 'Point') pm.point = value;
    else if (name === 'Placemark') {
      const current = pm;
      pm = null;
      // The track (LineString) and any placemark without message data are not messages.
      if (current.line || current.data.size === 0) return;
      const rec = toRecord(current.data, current.when, current.point);
      if (!rec.time)
        rejected.push({ index: placemarkIndex, reason: `unreadable time ${rec.timeText ?? '(none)'}` });
      records.push(rec);
    }
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof MapShareKmlError) throw err;
    throw new MapShareKmlError(`The feed is not well-formed KML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!rootSeen) throw new MapShareKmlError('Not a KML feed (no root element).');
  return { records, rejected };
}
