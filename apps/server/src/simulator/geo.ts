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

/** Deterministic pseudo-random numbers (mulberry32), so a demo looks the same on every start. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal sample from a uniform source (Box–Muller). */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
