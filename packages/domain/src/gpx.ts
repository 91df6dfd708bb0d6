import { SaxesParser } from 'saxes';

/**
 * GPX 1.0 / 1.1 parsing and course statistics. Pure: a string in, plain data out.
 *
 * Safety: saxes never fetches anything and never expands entities declared in a DTD. We go further and refuse any
 * DOCTYPE outright, so XXE (`<!ENTITY x SYSTEM "file:///…">`) and entity bombs ("billion laughs") stop at the
 * declaration instead of ever reaching an entity reference.
 */

/** A course point: [longitude, latitude, elevation in metres or null] (GeoJSON order). */
export type CoursePoint = [number, number, number | null];

export interface GpxWaypoint {
  name: string;
  lat: number;
  lon: number;
  ele: number | null;
}

export interface ParsedGpx {
  /** metadata name, else the first track's or route's name. */
  name: string | null;
  version: string | null;
  /** Whether the points came from tracks or (when there was no track) from routes. */
  kind: 'track' | 'route';
  points: CoursePoint[];
  waypoints: GpxWaypoint[];
}

export interface CourseStats {
  lengthM: number;
  climbM: number;
  descentM: number;
  pointCount: number;
  /** At least two points carry an elevation; climb/descent are 0 otherwise. */
  hasElevation: boolean;
}

/** A file that is not a usable GPX course; the message is meant for the user. */
export class GpxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpxError';
  }
}

const localName = (qname: string) => {
  const i = qname.indexOf(':');
  return (i >= 0 ? qname.slice(i + 1) : qname).toLowerCase();
};

function parseCoordinate(attrs: Record<string, string>): { lat: number; lon: number } | null {
  const lat = Number(attrs.lat);
  const lon = Number(attrs.lon);
  if (attrs.lat === undefined || attrs.lon === undefined) return null;
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return null;
  return { lat, lon };
}

function parseElevation(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  if (!t) return null;
  const v = Number(t);
  // Outside anything on Earth (Dead Sea shore to beyond Everest): a broken value, not an elevation.
  return Number.isFinite(v) && v > -500 && v < 9000 ? v : null;
}

/** Names are shown in lists and on maps: whitespace collapsed, at most MAX_NAME_LENGTH characters. */
export const MAX_NAME_LENGTH = 200;
const cleanName = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_LENGTH);

/**
 * Parses GPX text. Tracks win over routes: all track segments of all tracks are concatenated in document order;
 * only when there is no track point at all are route points used. Waypoints are always kept.
 * Points with missing or out-of-range coordinates are skipped. Throws GpxError on anything unusable.
 */
export function parseGpx(xml: string): ParsedGpx {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  const parser = new SaxesParser({ xmlns: false, position: true });

  let rootSeen = false;
  let version: string | null = null;
  let metadataName: string | null = null;
  let firstTrackName: string | null = null;
  let firstRouteName: string | null = null;
  const trackPoints: CoursePoint[] = [];
  const routePoints: CoursePoint[] = [];
  const waypoints: GpxWaypoint[] = [];

  // The open element path (local names) and the point being read, if any.
  const stack: string[] = [];
  let current: {
    kind: 'trkpt' | 'rtept' | 'wpt';
    lat: number;
    lon: number;
    ele?: string;
    name?: string;
  } | null = null;
  let textBuf = '';
  let failure: GpxError | null = null;

  parser.on('doctype', () => {
    throw new GpxError('The file contains a DOCTYPE declaration, which is not allowed in a GPX course.');
  });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (!rootSeen) {
      rootSeen = true;
      if (name !== 'gpx') throw new GpxError(`This is XML but not GPX (root element <${tag.name}>).`);
      const v = tag.attributes.version;
      version = typeof v === 'string' ? v : null;
    }
    stack.push(name);
    textBuf = '';
    if (name === 'trkpt' || name === 'rtept' || name === 'wpt') {
      const attrs = tag.attributes as Record<string, string>;
      const c = parseCoordinate(attrs);
      current = c ? { kind: name, ...c } : null;
    }
  });
  parser.on('text', (t) => {
    textBuf += t;
  });
  parser.on('cdata', (t) => {
    textBuf += t;
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    const parent = stack[stack.length - 2];
    const value = textBuf;
    textBuf = '';
    if (current && name === 'ele' && parent === current.kind) current.ele = value;
    else if (current && name === 'name' && parent === current.kind) current.name = cleanName(value);
    else if (name === 'name' && parent === 'metadata' && metadataName === null)
      metadataName = cleanName(value) || null;
    // GPX 1.0 has no <metadata>: the file's name is a direct child of <gpx>.
    else if (name === 'name' && parent === 'gpx' && metadataName === null)
      metadataName = cleanName(value) || null;
    else if (name === 'name' && parent === 'trk' && firstTrackName === null)
      firstTrackName = cleanName(value) || null;
    else if (name === 'name' && parent === 'rte' && firstRouteName === null)
      firstRouteName = cleanName(value) || null;
    else if (current && name === current.kind) {
      const point: CoursePoint = [current.lon, current.lat, parseElevation(current.ele)];
      if (name === 'trkpt') trackPoints.push(point);
      else if (name === 'rtept') routePoints.push(point);
      else
        waypoints.push({
          name: current.name || `Waypoint ${waypoints.length + 1}`,
          lat: current.lat,
          lon: current.lon,
          ele: point[2],
        });
      current = null;
    }
    stack.pop();
  });

  try {
    parser.write(text).close();
  } catch (err) {
    failure =
      err instanceof GpxError
        ? err
        : new GpxError(`The file is not well-formed XML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (failure) throw failure;
  if (!rootSeen) throw new GpxError('The file is empty or not XML.');

  const useTrack = trackPoints.length > 0;
  const points = useTrack ? trackPoints : routePoints;
  if (points.length < 2) {
    throw new GpxError(
      points.length === 0
        ? 'The GPX file has no track or route points with valid coordinates.'
        : 'The GPX file has only one usable point; a course needs at least two.',
    );
  }
  return {
    name: metadataName ?? (useTrack ? firstTrackName : firstRouteName),
    version,
    kind: useTrack ? 'track' : 'route',
    points,
    waypoints,
  };
}

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance (haversine) in metres: exact enough at every latitude and course length. */
type LonLat = readonly [number, number, ...unknown[]];

export function distanceM(a: LonLat, b: LonLat): number {
  const dLat = rad(b[1] - a[1]);
  const dLon = rad(b[0] - a[0]);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a[1])) * Math.cos(rad(b[1])) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Cumulative distance along the points, in metres (first entry 0). */
export function cumulativeDistances(points: readonly CoursePoint[]): number[] {
  const out = new Array<number>(points.length);
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    if (i > 0) total += distanceM(points[i - 1], points[i]);
    out[i] = total;
  }
  return out;
}

/** Half-width of the distance window used to smooth elevations (GPS/barometer jitter). */
const SMOOTHING_HALF_WINDOW_M = 30;
/** An elevation change smaller than this from the last turning point is treated as noise. */
const CLIMB_HYSTERESIS_M = 3;

/**
 * Length, climb and descent. Elevation is smoothed with a moving average over ±30 m of distance, then counted
 * with a 3 m hysteresis, which removes the jitter that inflates raw sums. Points without elevation are skipped
 * for climb (they still count for length).
 */
export function courseStats(points: readonly CoursePoint[]): CourseStats {
  const cum = cumulativeDistances(points);
  const lengthM = cum.length ? cum[cum.length - 1] : 0;

  const withEle: { d: number; e: number }[] = [];
  for (let i = 0; i < points.length; i++) {
    const e = points[i][2];
    if (e !== null && Number.isFinite(e)) withEle.push({ d: cum[i], e });
  }
  if (withEle.length < 2) {
    return { lengthM, climbM: 0, descentM: 0, pointCount: points.length, hasElevation: false };
  }

  // Moving average by distance with two pointers (O(n)).
  const smooth = new Array<number>(withEle.length);
  let lo = 0;
  let hi = -1;
  let sum = 0;
  for (let i = 0; i < withEle.length; i++) {
    const d = withEle[i].d;
    while (hi + 1 < withEle.length && withEle[hi + 1].d <= d + SMOOTHING_HALF_WINDOW_M)
      sum += withEle[++hi].e;
    while (withEle[lo].d < d - SMOOTHING_HALF_WINDOW_M) sum -= withEle[lo++].e;
    smooth[i] = sum / (hi - lo + 1);
  }

  let climbM = 0;
  let descentM = 0;
  let anchor = smooth[0];
  for (let i = 1; i < smooth.length; i++) {
    const delta = smooth[i] - anchor;
    if (delta >= CLIMB_HYSTERESIS_M) {
      climbM += delta;
      anchor = smooth[i];
    } else if (delta <= -CLIMB_HYSTERESIS_M) {
      descentM -= delta;
      anchor = smooth[i];
    }
  }
  return { lengthM, climbM, descentM, pointCount: points.length, hasElevation: true };
}

const escapeXml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** A GPX 1.1 document for a stored course: one track with one segment, plus the waypoints. */
export function toGpx(course: {
  name: string | null;
  points: readonly CoursePoint[];
  waypoints: readonly { name: string; lat: number; lon: number; ele?: number | null }[];
  creator?: string;
}): string {
  const name = course.name ? `<name>${escapeXml(course.name)}</name>` : '';
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<gpx version="1.1" creator="${escapeXml(course.creator ?? 'RaceBeacon')}" xmlns="http://www.topografix.com/GPX/1/1">`,
    `  <metadata>${name}</metadata>`,
  ];
  for (const w of course.waypoints) {
    const ele = w.ele === null || w.ele === undefined ? '' : `<ele>${w.ele}</ele>`;
    lines.push(`  <wpt lat="${w.lat}" lon="${w.lon}">${ele}<name>${escapeXml(w.name)}</name></wpt>`);
  }
  lines.push(`  <trk>${name}<trkseg>`);
  for (const [lon, lat, ele] of course.points) {
    lines.push(`    <trkpt lat="${lat}" lon="${lon}">${ele === null ? '' : `<ele>${ele}</ele>`}</trkpt>`);
  }
  lines.push('  </trkseg></trk>', '</gpx>', '');
  return lines.join('\n');
}

/** GeoJSON FeatureCollection: the course as a LineString (with elevations where known) and waypoints as Points. */
export function toGeoJson(course: {
  name: string | null;
  points: readonly CoursePoint[];
  waypoints: readonly { name: string; lat: number; lon: number; ele?: number | null }[];
  properties?: Record<string, unknown>;
}): {
  type: 'FeatureCollection';
  features: {
    type: 'Feature';
    geometry: { type: 'LineString' | 'Point'; coordinates: unknown };
    properties: Record<string, unknown>;
  }[];
} {
  return {
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        geometry: {
          type: 'LineString',
          // A GeoJSON position is [lon, lat] or [lon, lat, ele]; an unknown elevation is simply left out.
          coordinates: course.points.map(([lon, lat, ele]) => (ele === null ? [lon, lat] : [lon, lat, ele])),
        },
        properties: { kind: 'course', name: course.name, ...course.properties },
      },
      ...course.waypoints.map((w) => ({
        type: 'Feature' as const,
        geometry: {
          type: 'Point' as const,
          coordinates: w.ele === null || w.ele === undefined ? [w.lon, w.lat] : [w.lon, w.lat, w.ele],
        },
        properties: { kind: 'waypoint', name: w.name },
      })),
    ],
  };
}

/** A fix of a runner's track: when, where, and the altitude when the device reported one. */
export interface TrackFix {
  timeMs: number;
  lat: number;
  lon: number;
  ele?: number | null;
}

/**
 * A GPX 1.1 document of a runner's recorded track: one `trk` with one `trkseg`, a `trkpt` per fix with its `time`
 * (UTC, ISO 8601) and `ele` when known, in time order (the fixes are sorted here, whatever order they come in).
 */
export function trackToGpx(track: { name: string; fixes: readonly TrackFix[]; creator?: string }): string {
  const fixes = [...track.fixes].sort((a, b) => a.timeMs - b.timeMs);
  const name = `<name>${escapeXml(track.name)}</name>`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<gpx version="1.1" creator="${escapeXml(track.creator ?? 'RaceBeacon')}" xmlns="http://www.topografix.com/GPX/1/1">`,
    `  <metadata>${name}</metadata>`,
    `  <trk>${name}<trkseg>`,
  ];
  for (const f of fixes) {
    const ele = f.ele === null || f.ele === undefined || !Number.isFinite(f.ele) ? '' : `<ele>${f.ele}</ele>`;
    const time = new Date(f.timeMs).toISOString().replace(/\.000Z$/, 'Z');
    lines.push(`    <trkpt lat="${f.lat}" lon="${f.lon}">${ele}<time>${time}</time></trkpt>`);
  }
  lines.push('  </trkseg></trk>', '</gpx>', '');
  return lines.join('\n');
}
