/** Small geodesy helpers for the simulator and the demo course (no I/O). */

export type CoursePoint = [lon: number, lat: number, ele: number | null];

const R = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLon = rad(lon2 - lon1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Cumulative distance (m) at each point. */
export function cumulativeDistances(points: CoursePoint[]): number[] {
  const out = [0];
  for (let i = 1; i < points.length; i++) {
    out.push(out[i - 1] + haversine(points[i - 1][1], points[i - 1][0], points[i][1], points[i][0]));
  }
  return out;
}

/** Moves a point by metres north/east (small offsets). */
export function offset(lat: number, lon: number, north: number, east: number): [number, number] {
  return [lat + (north / R) * (180 / Math.PI), lon + (east / (R * Math.cos(rad(lat)))) * (180 / Math.PI)];
}
