/**
 * Synthetic courses and noisy runner tracks with known truth, deterministic from a seed. Used by the accuracy suite
 * and the matching benchmark; the race simulator can reuse them. Pure: no clock, no Math.random.
 */
import { pointAtDistance, prepareCourse, rulerFactors } from './geometry';
import type { CourseInput, Fix, PreparedCourse } from './types';

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviate (Box–Muller). */
export function gaussian(rand: () => number): number {
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface Origin {
  lat: number;
  lon: number;
}

export const DEFAULT_ORIGIN: Origin = { lat: 46.5, lon: 7.9 };

/** Local metres (x east, y north) around an origin to [lon, lat, ele]. */
export function courseFromMetres(
  xy: [number, number][],
  origin: Origin = DEFAULT_ORIGIN,
  ele?: (k: number) => number,
): CourseInput {
  const { kx, ky } = rulerFactors(origin.lat);
  return {
    points: xy.map(([x, y], k) => [origin.lon + x / kx, origin.lat + y / ky, ele ? ele(k) : null]),
  };
}

/** Straight legs through the given corners, with a vertex every `spacingM`. */
export function polylineMetres(corners: [number, number][], spacingM = 20): [number, number][] {
  const out: [number, number][] = [corners[0]];
  for (let k = 1; k < corners.length; k++) {
    const [x0, y0] = corners[k - 1];
    const [x1, y1] = corners[k];
    const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / spacingM));
    for (let j = 1; j <= n; j++) out.push([x0 + ((x1 - x0) * j) / n, y0 + ((y1 - y0) * j) / n]);
  }
  return out;
}

/** Out along a bent road and back on exactly the same points: every spot is passed twice. */
export function outAndBackCourse(legM = 5000, origin: Origin = DEFAULT_ORIGIN): CourseInput {
  const out = polylineMetres(
    [
      [0, 0],
      [legM * 0.4, 0],
      [legM * 0.6, legM * 0.25],
      [legM * 0.85, legM * 0.25],
    ],
    20,
  );
  // Scale the last corner so the leg is legM long.
  const len = pathLength(out);
  const scaled = out.map(([x, y]) => [(x * legM) / len, (y * legM) / len] as [number, number]);
  const back = scaled.slice(0, -1).reverse();
  return courseFromMetres([...scaled, ...back], origin, (k) => 500 + 0.02 * k);
}

/** `laps` times around a circle of circumference lapM, starting and finishing at the same point. */
export function lapCourse(
  laps = 3,
  lapM = 3300,
  origin: Origin = DEFAULT_ORIGIN,
  vertexSpacingM = 15,
): CourseInput {
  const r = lapM / (2 * Math.PI);
  const perLap = Math.ceil(lapM / vertexSpacingM);
  const xy: [number, number][] = [];
  for (let k = 0; k <= perLap * laps; k++) {
    const a = (2 * Math.PI * k) / perLap;
    xy.push([r * Math.sin(a), r - r * Math.cos(a)]);
  }
  return courseFromMetres(xy, origin);
}

/** A figure eight (lemniscate of Gerono) that crosses itself in the middle, `loops` times. */
export function figureEightCourse(sizeM = 1500, loops = 2, origin: Origin = DEFAULT_ORIGIN): CourseInput {
  const xy: [number, number][] = [];
  const n = 600 * loops;
  for (let k = 0; k <= n; k++) {
    const a = (2 * Math.PI * k * loops) / n;
    // Starts at the crossing point, heads north-east.
    xy.push([sizeM * Math.sin(a), sizeM * Math.sin(a) * Math.cos(a)]);
  }
  return courseFromMetres(xy, origin);
}

/**
 * A meandering point-to-point course with `points` vertices `spacingM` apart, like a GPX recorded on roads and
 * trails: a general direction with bends of a few hundred metres and some wiggle, for benchmarks.
 */
export function windingCourse(
  points: number,
  spacingM: number,
  seed = 1,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  const rand = seededRandom(seed);
  const xy: [number, number][] = [[0, 0]];
  const p1 = rand() * 6;
  const p2 = rand() * 6;
  let wiggle = 0;
  for (let k = 1; k < points; k++) {
    wiggle = 0.9 * wiggle + 0.03 * gaussian(rand);
    const heading = 0.9 * Math.sin(k / 900 + p1) + 0.6 * Math.sin(k / 170 + p2) + wiggle;
    const [x, y] = xy[k - 1];
    xy.push([x + spacingM * Math.cos(heading), y + spacingM * Math.sin(heading)]);
  }
  return courseFromMetres(xy, origin, (k) => 300 + 50 * Math.sin(k / 500));
}

function pathLength(xy: [number, number][]): number {
  let d = 0;
  for (let k = 1; k < xy.length; k++) d += Math.hypot(xy[k][0] - xy[k - 1][0], xy[k][1] - xy[k - 1][1]);
  return d;
}

export interface SimulatedRunnerOptions {
  seed: number;
  startMs: number;
  /** Average pace, seconds per km. */
  paceSecPerKm: number;
  /** Pace varies per km by up to ± this fraction. */
  paceVariation?: number;
  pingIntervalMs?: number;
  /** GPS noise σ per axis, metres. */
  noiseM?: number;
  /** Probability that a ping is never delivered. */
  dropoutRate?: number;
  /** Probability that a ping arrives late (after up to `maxDelayPings` later pings). */
  lateRate?: number;
  maxDelayPings?: number;
  /** Ping numbers displaced by `jumpM` metres in a random direction. */
  jumpPings?: number[];
  jumpM?: number;
  /** Pings sent after the finish (standing at the finish). */
  pingsAfterFinish?: number;
}

export interface SimulatedFix extends Fix {
  /** True distance along the course at t. */
  truthM: number;
  /** When the server receives it (delivery order is by this). */
  deliveredMs: number;
  isJump: boolean;
}

export interface SimulatedRunner {
  /** Delivered fixes in delivery order (dropped pings are absent). */
  fixes: SimulatedFix[];
  finishMs: number;
  /** True distance at any time. */
  truthAt: (t: number) => number;
}

/** A runner covering the course with a pace that changes every km, pinging like a satellite tracker. */
export function simulateRunner(course: PreparedCourse, o: SimulatedRunnerOptions): SimulatedRunner {
  const rand = seededRandom(o.seed);
  const ping = o.pingIntervalMs ?? 150_000;
  const noise = o.noiseM ?? 10;
  const variation = o.paceVariation ?? 0.1;
  // Time at each whole km (and at the finish): piecewise-constant speed.
  const kmTimes: number[] = [o.startMs];
  const kms = Math.ceil(course.lengthM / 1000);
  for (let k = 0; k < kms; k++) {
    const pace = o.paceSecPerKm * (1 + variation * (2 * rand() - 1));
    const len = Math.min(1000, course.lengthM - k * 1000);
    kmTimes.push(kmTimes[k] + (pace * len * 1000) / 1000);
  }
  const finishMs = kmTimes[kms];
  const truthAt = (t: number): number => {
    if (t <= o.startMs) return 0;
    if (t >= finishMs) return course.lengthM;
    let k = 0;
    while (kmTimes[k + 1] < t) k++;
    const len = Math.min(1000, course.lengthM - k * 1000);
    return k * 1000 + (len * (t - kmTimes[k])) / (kmTimes[k + 1] - kmTimes[k]);
  };

  const phase = Math.floor(rand() * ping);
  const jumps = new Set(o.jumpPings ?? []);
  const out: SimulatedFix[] = [];
  const lastT = finishMs + (o.pingsAfterFinish ?? 4) * ping;
  for (let n = 0, t = o.startMs + phase; t <= lastT; n++, t += ping) {
    const truthM = truthAt(t);
    const p = pointAtDistance(course, truthM);
    const { kx, ky } = rulerFactors(p.lat);
    let dx = noise * gaussian(rand);
    let dy = noise * gaussian(rand);
    const isJump = jumps.has(n);
    if (isJump) {
      const a = 2 * Math.PI * rand();
      dx += (o.jumpM ?? 1000) * Math.cos(a);
      dy += (o.jumpM ?? 1000) * Math.sin(a);
    }
    // The jump is the point of a jump ping, so it is always delivered.
    const dropped = rand() < (o.dropoutRate ?? 0) && !isJump;
    const late = rand() < (o.lateRate ?? 0);
    const delay = late ? Math.ceil(rand() * (o.maxDelayPings ?? 3)) * ping + 1000 : Math.floor(rand() * 5000);
    if (dropped) continue;
    out.push({ t, lat: p.lat + dy / ky, lon: p.lon + dx / kx, truthM, deliveredMs: t + delay, isJump });
  }
  out.sort((a, b) => a.deliveredMs - b.deliveredMs);
  return { fixes: out, finishMs, truthAt };
}

/** Convenience for tests: a prepared course from local metres. */
export function prepareMetres(xy: [number, number][], origin: Origin = DEFAULT_ORIGIN): PreparedCourse {
  return prepareCourse(courseFromMetres(xy, origin));
}
