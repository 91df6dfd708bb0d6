/**
 * Course geometry: preparation (cumulative distance, spatial index of segments, projected waypoints), points at a
 * distance, elevation profile, and the projection of a position onto the course.
 *
 * Local geodesy uses cheap-ruler: within a few km of a latitude it is closer to Vincenty than haversine is, and it
 * is a couple of multiplications per point. Segment lengths use a ruler at each segment's own latitude, so a course
 * spanning several degrees still adds up correctly; projections use a ruler at the fix's latitude (the fix and its
 * candidate segments are within offCourseMeters of each other).
 */
import CheapRuler from 'cheap-ruler';
import Flatbush from 'flatbush';
import type { CourseInput, CourseWaypoint, PreparedCourse } from './types';

/** Start and finish closer than this make a loop. */
const LOOP_RADIUS_M = 50;
/** A waypoint counts as on the course (at each pass) within this distance. */
const WAYPOINT_RADIUS_M = 100;

/** Metres per degree of longitude (kx) and latitude (ky) around a latitude (cheap-ruler's WGS84 factors). */
export function rulerFactors(lat: number): { kx: number; ky: number } {
  const r = new CheapRuler(lat, 'meters');
  return { kx: r.kx, ky: r.ky };
}

function wrapLon(deg: number): number {
  while (deg < -180) deg += 360;
  while (deg > 180) deg -= 360;
  return deg;
}

export function prepareCourse(input: CourseInput): PreparedCourse {
  const lon: number[] = [];
  const lat: number[] = [];
  const ele: (number | null)[] = [];
  for (const p of input.points) {
    const [x, y, z] = p;
    if (!Number.isFinite(x) || !Number.isFinite(y) || Math.abs(y) > 90 || Math.abs(x) > 180) continue;
    const n = lon.length;
    // Repeated points make zero-length segments, which only add ties to the matcher.
    if (n > 0 && lon[n - 1] === x && lat[n - 1] === y) continue;
    lon.push(x);
    lat.push(y);
    ele.push(z !== null && z !== undefined && Number.isFinite(z) ? z : null);
  }
  if (lon.length < 2) throw new RangeError('A course needs at least two distinct points');

  const n = lon.length;
  const cumDist = new Float64Array(n);
  const index = new Flatbush(n - 1);
  for (let i = 0; i < n - 1; i++) {
    const { kx, ky } = rulerFactors((lat[i] + lat[i + 1]) / 2);
    const dx = wrapLon(lon[i + 1] - lon[i]) * kx;
    const dy = (lat[i + 1] - lat[i]) * ky;
    cumDist[i + 1] = cumDist[i] + Math.sqrt(dx * dx + dy * dy);
    index.add(
      Math.min(lon[i], lon[i + 1]),
      Math.min(lat[i], lat[i + 1]),
      Math.max(lon[i], lon[i + 1]),
      Math.max(lat[i], lat[i + 1]),
    );
  }
  index.finish();

  const course: PreparedCourse = {
    lengthM: cumDist[n - 1],
    cumDist,
    lon: Float64Array.from(lon),
    lat: Float64Array.from(lat),
    ele,
    hasElevation: ele.filter((e) => e !== null).length >= 2,
    start: { lat: lat[0], lon: lon[0] },
    finish: { lat: lat[n - 1], lon: lon[n - 1] },
    isLoop: false,
    waypoints: [],
    index,
  };
  const { kx, ky } = rulerFactors(lat[0]);
  course.isLoop = Math.hypot(wrapLon(lon[n - 1] - lon[0]) * kx, (lat[n - 1] - lat[0]) * ky) <= LOOP_RADIUS_M;

  const waypoints: CourseWaypoint[] = [];
  for (const w of input.waypoints ?? []) {
    if (!Number.isFinite(w.lat) || !Number.isFinite(w.lon)) continue;
    // Every pass near the waypoint (an aid station on a lap course is reached once per lap).
    for (const c of courseCandidates(course, w.lat, w.lon, WAYPOINT_RADIUS_M)) {
      waypoints.push({ name: w.name, lat: w.lat, lon: w.lon, distanceM: c.alongM });
    }
  }
  waypoints.sort((a, b) => a.distanceM - b.distanceM);
  course.waypoints = waypoints;
  return course;
}

/** Index i such that cumDist[i] <= d < cumDist[i + 1] (clamped to the segments). */
export function segmentAtDistance(course: PreparedCourse, distanceM: number): number {
  const c = course.cumDist;
  let lo = 0;
  let hi = c.length - 2;
  if (distanceM <= 0) return 0;
  if (distanceM >= c[hi]) return hi;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (c[mid] <= distanceM) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function lerpEle(a: number | null, b: number | null, f: number): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a + (b - a) * f;
}

export function pointAtDistance(
  course: PreparedCourse,
  distanceM: number,
): { lat: number; lon: number; ele: number | null } {
  const d = Math.min(Math.max(distanceM, 0), course.lengthM);
  const i = segmentAtDistance(course, d);
  const len = course.cumDist[i + 1] - course.cumDist[i];
  const f = len > 0 ? (d - course.cumDist[i]) / len : 0;
  return {
    lat: course.lat[i] + (course.lat[i + 1] - course.lat[i]) * f,
    lon: wrapLon(course.lon[i] + wrapLon(course.lon[i + 1] - course.lon[i]) * f),
    ele: lerpEle(course.ele[i], course.ele[i + 1], f),
  };
}

/** `samples` evenly spaced points from the start to the finish (at least 2). */
export function elevationProfile(
  course: PreparedCourse,
  samples: number,
): { distanceM: number; ele: number | null }[] {
  const n = Math.max(2, Math.floor(samples));
  const out: { distanceM: number; ele: number | null }[] = [];
  for (let k = 0; k < n; k++) {
    const d = (course.lengthM * k) / (n - 1);
    out.push({ distanceM: d, ele: pointAtDistance(course, d).ele });
  }
  return out;
}

/** A position projected onto one pass of the course. */
export interface CourseCandidate {
  /** Metres from the position to the course. */
  offsetM: number;
  /** Distance along the course of the nearest point, clamped to [0, lengthM]. */
  alongM: number;
  /** Like alongM, but past the finish it keeps going along the last segment's direction (for finish timing). */
  alongUnclampedM: number;
  segment: number;
  lat: number;
  lon: number;
}

/** Offset of the position from segment i and the (unclamped) parameter of the foot along it, into out[0..1]. */
function projectOnSegment(
  course: PreparedCourse,
  i: number,
  lat: number,
  lon: number,
  kx: number,
  ky: number,
  out: Float64Array,
): void {
  const ax = wrapLon(course.lon[i] - lon) * kx;
  const ay = (course.lat[i] - lat) * ky;
  const dx = wrapLon(course.lon[i + 1] - course.lon[i]) * kx;
  const dy = (course.lat[i + 1] - course.lat[i]) * ky;
  const len2 = dx * dx + dy * dy;
  // Parameter of the foot of the perpendicular from the origin (the position).
  const tRaw = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
  const t = tRaw < 0 ? 0 : tRaw > 1 ? 1 : tRaw;
  const px = ax + dx * t;
  const py = ay + dy * t;
  out[0] = Math.sqrt(px * px + py * py);
  out[1] = tRaw;
}

function toCandidate(course: PreparedCourse, i: number, offsetM: number, tRaw: number): CourseCandidate {
  const t = tRaw < 0 ? 0 : tRaw > 1 ? 1 : tRaw;
  const len = course.cumDist[i + 1] - course.cumDist[i];
  const alongM = course.cumDist[i] + len * t;
  const last = i === course.cumDist.length - 2;
  return {
    offsetM,
    alongM,
    alongUnclampedM: last && tRaw > 1 ? course.cumDist[i] + len * tRaw : alongM,
    segment: i,
    lat: course.lat[i] + (course.lat[i + 1] - course.lat[i]) * t,
    lon: wrapLon(course.lon[i] + wrapLon(course.lon[i + 1] - course.lon[i]) * t),
  };
}

/**
 * Every pass of the course within `radiusM` of a position: one candidate per local minimum of the distance to the
 * course along the polyline. An out-and-back gives two candidates (out and back) at the same spot, a lap course one
 * per lap, a self-crossing course two at the crossing; a hairpin gives one per side.
 */
export function courseCandidates(
  course: PreparedCourse,
  lat: number,
  lon: number,
  radiusM: number,
): CourseCandidate[] {
  const { kx, ky } = rulerFactors(lat);
  const dLon = radiusM / kx;
  const dLat = radiusM / ky;
  const found = course.index.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
  const n = found.length;
  if (n === 0) return [];
  // Numeric typed-array sort: neighbours along the polyline become neighbours here.
  const ids = Uint32Array.from(found).sort();
  const offset = new Float64Array(n);
  const tRaw = new Float64Array(n);
  const tmp = new Float64Array(2);
  for (let k = 0; k < n; k++) {
    projectOnSegment(course, ids[k], lat, lon, kx, ky, tmp);
    offset[k] = tmp[0];
    tRaw[k] = tmp[1];
  }
  const out: CourseCandidate[] = [];
  for (let k = 0; k < n; k++) {
    const d = offset[k];
    if (d > radiusM) continue;
    const i = ids[k];
    // Neighbours outside the search box are farther than radiusM, so only in-box neighbours can beat this one.
    // A tie with the previous segment (both at the shared vertex) keeps the earlier one.
    if (k > 0 && ids[k - 1] === i - 1 && offset[k - 1] <= d) continue;
    if (k + 1 < n && ids[k + 1] === i + 1 && offset[k + 1] < d) continue;
    out.push(toCandidate(course, i, d, tRaw[k]));
  }
  return out;
}

/** The nearest point of the whole course (searching outwards through the index); for tools, tests, benches. */
export function nearestOnCourse(course: PreparedCourse, lat: number, lon: number): CourseCandidate {
  for (let radius = 50; ; radius *= 4) {
    const c = courseCandidates(course, lat, lon, radius);
    if (c.length > 0) return c.reduce((a, b) => (b.offsetM < a.offsetM ? b : a));
    // Past the far side of the Earth every segment is inside the box.
    if (radius > 4e7) throw new RangeError('Position is not comparable with the course');
  }
}
