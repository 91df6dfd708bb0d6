import { courseStats, parseGpx, prepareCourse, type CourseStats, type ParsedGpx } from '@racebeacon/domain';
import type { CourseGeometry } from '../db/schema';

/** Everything an upload needs from a GPX file; the large part (the points) only as the JSON text to store. */
export interface AnalysedGpx {
  name: string | null;
  stats: CourseStats;
  waypoints: CourseGeometry['waypoints'];
  /** `CourseGeometry` as JSON, ready for the jsonb column (the points never become objects on the main thread). */
  geometryJson: string;
}

/**
 * Each waypoint with the distance along the course of its first pass (null when it is not near the course) and,
 * when the course passes it more than once (laps, out-and-back), every pass.
 */
function projectWaypoints(parsed: ParsedGpx): CourseGeometry['waypoints'] {
  const prepared = prepareCourse({ points: parsed.points, waypoints: parsed.waypoints });
  // prepared.waypoints is sorted by distance: the first entry per waypoint is its first pass.
  const passes = new Map<string, number[]>();
  for (const p of prepared.waypoints) {
    const key = `${p.name}\u0001${p.lat}\u0001${p.lon}`;
    const list = passes.get(key) ?? [];
    list.push(Math.round(p.distanceM * 10) / 10);
    passes.set(key, list);
  }
  return parsed.waypoints.map((w) => {
    const all = passes.get(`${w.name}\u0001${w.lat}\u0001${w.lon}`);
    return {
      name: w.name,
      lat: w.lat,
      lon: w.lon,
      distanceM: all === undefined ? null : all[0],
      ...(all && all.length > 1 ? { passesM: all } : {}),
    };
  });
}

/**
 * Parses and measures a GPX file (UTF-8 bytes). CPU-heavy for a large file (hundreds of ms at the 20 MB cap):
 * the server runs it in a worker thread (gpx-worker.ts). Throws GpxError for a file that is not a usable course.
 */
export function analyseGpx(bytes: Uint8Array): AnalysedGpx {
  const parsed = parseGpx(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  const stats = courseStats(parsed.points);
  const waypoints = projectWaypoints(parsed);
  const geometry: CourseGeometry = { points: parsed.points, waypoints };
  return { name: parsed.name, stats, waypoints, geometryJson: JSON.stringify(geometry) };
}
