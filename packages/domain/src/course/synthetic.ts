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
 * Switchbacks up a hill (legs `legM` long, `gapM` apart) to a turnaround, then back down the same switchbacks:
 * parallel legs a few GPS errors apart, and every spot passed twice.
 */
export function switchbackCourse(
  legs = 6,
  legM = 600,
  gapM = 40,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  const corners: [number, number][] = [[0, 0]];
  for (let k = 0; k < legs; k++) {
    const x = k % 2 === 0 ? legM : 0;
    corners.push([x, k * gapM], ...(k < legs - 1 ? [[x, (k + 1) * gapM] as [number, number]] : []));
  }
  const up = polylineMetres(corners, 20);
  const down = up.slice(0, -1).reverse();
  return courseFromMetres(
    [...up, ...down],
    origin,
    (k) => 800 + (k < up.length ? k : 2 * up.length - k) * 0.5,
  );
}

/**
 * A lollipop: a stem out `stemM` east, a loop of about `loopM`, and the stem back `gapM` north of the way out (the
 * two sides of a trail, run in opposite directions), finishing beside the start.
 */
export function lollipopCourse(
  stemM = 2000,
  loopM = 3000,
  gapM = 25,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  // The loop: a rectangle east of the stem's end, entered from the south side of the stem and left on its north.
  const w = loopM / 4;
  const h = loopM / 4 - gapM / 2;
  const corners: [number, number][] = [
    [0, 0],
    [stemM, 0],
    [stemM + w / 2, -h],
    [stemM + w * 1.5, -h],
    [stemM + w * 1.5, h + gapM],
    [stemM + w / 2, h + gapM],
    [stemM, gapM],
    [0, gapM],
  ];
  return courseFromMetres(polylineMetres(corners, 20), origin);
}

/**
 * Laps that share a road: each lap runs `roadM` east along one road and comes back on another `loopM / 2` south;
 * after the last lap the runners take the road once more to the finish, so the end of every lap and the start of the
 * next one are the same 2 km. `laps` laps plus the road.
 */
export function sharedRoadLapCourse(
  laps = 2,
  roadM = 2000,
  loopM = 1000,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  const corners: [number, number][] = [[0, 0]];
  const south = loopM / 2;
  for (let k = 0; k < laps; k++) corners.push([roadM, 0], [roadM, -south], [0, -south], [0, 0]);
  corners.push([roadM, 0]);
  return courseFromMetres(polylineMetres(corners, 20), origin);
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
  /** Standstills (aid stations) at these distances. */
  stops?: { atM: number; durationMs: number }[];
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
  // Knots of the true (time, distance) curve: a pace per km, and a standstill at each stop.
  const stops = (o.stops ?? []).slice().sort((x, y) => x.atM - y.atM);
  const knotT: number[] = [o.startMs];
  const knotD: number[] = [0];
  let pace = o.paceSecPerKm;
  for (let d = 0; d < course.lengthM;) {
    if (d % 1000 === 0) pace = o.paceSecPerKm * (1 + variation * (2 * rand() - 1));
    const stop = stops.find(
      (x) => x.atM > d && x.atM < Math.min(course.lengthM, Math.floor(d / 1000) * 1000 + 1000),
    );
    const next = stop ? stop.atM : Math.min(course.lengthM, Math.floor(d / 1000) * 1000 + 1000);
    knotT.push(knotT[knotT.length - 1] + pace * (next - d));
    knotD.push(next);
    if (stop) {
      knotT.push(knotT[knotT.length - 1] + stop.durationMs);
      knotD.push(next);
    }
    d = next;
  }
  const finishMs = knotT[knotT.length - 1];
  const truthAt = (t: number): number => {
    if (t <= o.startMs) return 0;
    if (t >= finishMs) return course.lengthM;
    let k = 0;
    while (knotT[k + 1] < t) k++;
    const span = knotT[k + 1] - knotT[k];
    return span > 0 ? knotD[k] + ((knotD[k + 1] - knotD[k]) * (t - knotT[k])) / span : knotD[k];
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
