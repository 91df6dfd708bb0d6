/**
 * The race-flow chart's data: a runner's distance along the course against time, split where data is missing and
 * thinned for drawing. Pure: the server builds it from the matched progress, tests check the shape is kept.
 */
import type { ProgressPoint } from './types';

/** [epoch ms, km along the course]. */
export type FlowPoint = [number, number];

/**
 * Douglas–Peucker: the fewest points whose polyline stays within `tolerance` of every original point, distances
 * measured after scaling x by `scaleX` and y by `scaleY` (so time and distance are compared in chart units). Keeps
 * the first and last points; iterative (no recursion depth limit).
 */
export function thinPolyline(
  points: readonly FlowPoint[],
  tolerance: number,
  scaleX = 1,
  scaleY = 1,
): FlowPoint[] {
  const n = points.length;
  if (n <= 2) return points.slice();
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  const stack: [number, number][] = [[0, n - 1]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (b - a < 2) continue;
    const ax = points[a][0] * scaleX;
    const ay = points[a][1] * scaleY;
    const dx = points[b][0] * scaleX - ax;
    const dy = points[b][1] * scaleY - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let worstD = -1;
    for (let k = a + 1; k < b; k++) {
      const px = points[k][0] * scaleX - ax;
      const py = points[k][1] * scaleY - ay;
      let d: number;
      if (len2 === 0) d = Math.hypot(px, py);
      else {
        const u = Math.max(0, Math.min(1, (px * dx + py * dy) / len2));
        d = Math.hypot(px - u * dx, py - u * dy);
      }
      if (d > worstD) {
        worstD = d;
        worst = k;
      }
    }
    if (worstD > tolerance) {
      keep[worst] = 1;
      stack.push([a, worst], [worst, b]);
    }
  }
  const out: FlowPoint[] = [];
  for (let k = 0; k < n; k++) if (keep[k]) out.push(points[k]);
  return out;
}

/** Largest distance (in scaled units) from any point of `original` to the polyline `thinned`. */
export function maxDeviation(
  original: readonly FlowPoint[],
  thinned: readonly FlowPoint[],
  scaleX = 1,
  scaleY = 1,
): number {
  let worst = 0;
  for (const p of original) {
    let best = Infinity;
    for (let k = 0; k + 1 < thinned.length; k++) {
      best = Math.min(best, segmentDistance(p, thinned[k], thinned[k + 1], scaleX, scaleY));
    }
    if (thinned.length === 1) best = segmentDistance(p, thinned[0], thinned[0], scaleX, scaleY);
    worst = Math.max(worst, best);
  }
  return worst;
}

function segmentDistance(p: FlowPoint, a: FlowPoint, b: FlowPoint, sx: number, sy: number): number {
  const px = (p[0] - a[0]) * sx;
  const py = (p[1] - a[1]) * sy;
  const dx = (b[0] - a[0]) * sx;
  const dy = (b[1] - a[1]) * sy;
  const len2 = dx * dx + dy * dy;
  const u = len2 === 0 ? 0 : Math.max(0, Math.min(1, (px * dx + py * dy) / len2));
  return Math.hypot(px - u * dx, py - u * dy);
}

export interface FlowSeriesOptions {
  /** Two consecutive points further apart in time than this are a gap in the data: the line breaks. */
  gapMs: number;
  /** Chart extent the tolerance is a fraction of: the race's time span (ms) and the course length (km). */
  spanMs: number;
  lengthKm: number;
  /** Largest allowed deviation, as a fraction of the chart's width/height (0.002 ≈ 1 px on a 500 px chart). */
  tolerance: number;
}

/**
 * A runner's progress as chart lines: split at gaps longer than `gapMs`, each piece thinned within `tolerance` of
 * the chart. Distances in km, rounded to metres.
 */
export function flowSeries(progress: readonly ProgressPoint[], o: FlowSeriesOptions): FlowPoint[][] {
  const lines: FlowPoint[][] = [];
  let current: FlowPoint[] = [];
  for (let k = 0; k < progress.length; k++) {
    const p = progress[k];
    if (k > 0 && p.t - progress[k - 1].t > o.gapMs) {
      lines.push(current);
      current = [];
    }
    current.push([p.t, Math.round(p.distanceM) / 1000]);
  }
  if (current.length > 0) lines.push(current);
  const sx = o.spanMs > 0 ? 1 / o.spanMs : 1;
  const sy = o.lengthKm > 0 ? 1 / o.lengthKm : 1;
  return lines.map((line) => thinPolyline(line, o.tolerance, sx, sy));
}

/** One runner on the race-flow chart: their lines of [epoch ms, km], broken where data is missing. */
export interface FlowRunner {
  RunnerId: number;
  BibNumber: string | null;
  FirstName: string;
  LastName: string;
  Lines: FlowPoint[][];
}

/** A horizontal line of the chart: a checkpoint (or a course waypoint) at its distance, with its cutoff if set. */
export interface FlowCheckpoint {
  Name: string;
  DistanceKm: number;
  Cutoff: string | null;
}

/** `GET /api/open/races/{raceId}/flow`. */
export interface FlowAnswer {
  From: string | null;
  To: string;
  LengthKm: number | null;
  Checkpoints: FlowCheckpoint[];
  Runners: FlowRunner[];
}
