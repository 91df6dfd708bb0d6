/**
 * Synthetic courses and noisy runner tracks with known truth, deterministic from a seed. Used by the accuracy suite
 * and the matching benchmark; the race simulator can reuse them. Pure: no clock, no Math.random.
 */
import { pointAtDistance, prepareCourse, rulerFactors } from './geometry';
import { bracketIndex } from '../sorted';
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
 * Switchbacks climbing to a summit and back down the same legs: `legs` legs `legM` long, `gapM` apart, each climbing
 * `climbPerLegM` (a 10 % grade by default), the corners level. The elevation is what lets a runner's speed differ up
 * and down (simulateHillRunner): a fast descender covers a leg two to three times faster than they climbed it.
 */
export function summitSwitchbackCourse(
  legs = 8,
  legM = 600,
  gapM = 40,
  climbPerLegM = 60,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  const corners: [number, number][] = [[0, 0]];
  for (let k = 0; k < legs; k++) {
    const x = k % 2 === 0 ? legM : 0;
    corners.push([x, k * gapM], ...(k < legs - 1 ? [[x, (k + 1) * gapM] as [number, number]] : []));
  }
  const up = polylineMetres(corners, 20);
  // Elevation: climbing along each leg (x changes), level at the corners (only y changes).
  const upEle: number[] = [800];
  for (let k = 1; k < up.length; k++) {
    const dx = Math.abs(up[k][0] - up[k - 1][0]);
    upEle.push(upEle[k - 1] + (dx / legM) * climbPerLegM);
  }
  const xy = [...up, ...up.slice(0, -1).reverse()];
  const ele = [...upEle, ...upEle.slice(0, -1).reverse()];
  return courseFromMetres(xy, origin, (k) => ele[k]);
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

/**
 * A hilly point-to-point course `lengthM` long (a vertex every 20 m, meandering like windingCourse) with long climbs
 * and descents (grades up to about ±0.35), and aid stations every `aidEveryM`.
 */
export function hillyCourse(
  lengthM = 30_000,
  aidEveryM = 6000,
  seed = 3,
  origin: Origin = DEFAULT_ORIGIN,
): CourseInput {
  const spacing = 20;
  const flat = windingCourse(Math.round(lengthM / spacing) + 1, spacing, seed, origin);
  const points = flat.points.map(([lon, lat], k): [number, number, number] => {
    const d = k * spacing;
    return [
      lon,
      lat,
      700 + 280 * Math.sin((2 * Math.PI * d) / 9000) + 90 * Math.sin((2 * Math.PI * d) / 2300 + 1),
    ];
  });
  const bare = prepareCourse({ points });
  const waypoints: { name: string; lat: number; lon: number }[] = [];
  for (let d = aidEveryM, k = 1; d < bare.lengthM - 500; d += aidEveryM, k++) {
    const p = pointAtDistance(bare, d);
    waypoints.push({ name: `Aid ${k}`, lat: p.lat, lon: p.lon });
  }
  return { points, waypoints };
}

export interface HillRunnerOptions {
  seed: number;
  startMs: number;
  /** Pace on the flat when fresh, seconds per km. */
  flatPaceSecPerKm: number;
  pingIntervalMs?: number;
  noiseM?: number;
  dropoutRate?: number;
  /** Probability that a ping arrives late (after up to `maxDelayPings` later pings); the fixes stay in time order. */
  lateRate?: number;
  maxDelayPings?: number;
}

export interface HillRunner {
  /** Fixes in time order (dropped pings absent), each with the true distance. */
  fixes: SimulatedFix[];
  finishMs: number;
  truthAt: (t: number) => number;
  /** When the runner reaches distance d (the finish time beyond the course). */
  timeAt: (d: number) => number;
}

/**
 * A runner on a hilly course, paced by grade with their own sensitivity to it (the Minetti energy-cost curve scaled
 * by 0.8–1.2, descents capped at a personal 65–85 % of the flat pace), fading by 0–8 % an hour, ± 8 % per km of
 * day-to-day variation, and 1–4 minutes at every aid station. Not the ETA model itself: a runner it has to learn.
 */
export function simulateHillRunner(course: PreparedCourse, o: HillRunnerOptions): HillRunner {
  const rand = seededRandom(o.seed);
  const sensitivity = 0.8 + 0.4 * rand();
  const downhillCap = 0.65 + 0.2 * rand();
  const fadePerHour = 0.08 * rand();
  const ping = o.pingIntervalMs ?? 150_000;
  const noise = o.noiseM ?? 10;
  const step = 10;
  const kmNoise: number[] = [];
  for (let k = 0; k <= course.lengthM / 1000 + 1; k++) kmNoise.push(1 + 0.08 * (2 * rand() - 1));
  const stops = course.waypoints.map((w) => ({ atM: w.distanceM, ms: 60_000 + 180_000 * rand() }));
  const knotT: number[] = [o.startMs];
  const knotD: number[] = [0];
  let t = o.startMs;
  let stop = 0;
  for (let d = 0; d < course.lengthM;) {
    const next = Math.min(course.lengthM, d + step);
    const e0 = pointAtDistance(course, d).ele;
    const e1 = pointAtDistance(course, next).ele;
    const grade = e0 !== null && e1 !== null && next > d ? (e1 - e0) / (next - d) : 0;
    const minetti = minettiCostOf(grade) / 3.6;
    const terrain = Math.max(downhillCap, 1 + sensitivity * (minetti - 1));
    const hours = (t - o.startMs) / 3_600_000;
    const pace = o.flatPaceSecPerKm * terrain * (1 + fadePerHour * hours) * kmNoise[Math.floor(d / 1000)];
    t += pace * (next - d);
    d = next;
    knotT.push(t);
    knotD.push(d);
    while (stop < stops.length && stops[stop].atM <= d) {
      t += stops[stop].ms;
      knotT.push(t);
      knotD.push(d);
      stop++;
    }
  }
  const finishMs = t;
  const truthAt = (x: number): number => {
    if (x <= o.startMs) return 0;
    if (x >= finishMs) return course.lengthM;
    const lo = bracketIndex(knotT, x);
    const hi = lo + 1;
    const span = knotT[hi] - knotT[lo];
    return span > 0 ? knotD[lo] + ((knotD[hi] - knotD[lo]) * (x - knotT[lo])) / span : knotD[lo];
  };
  const timeAt = (x: number): number => {
    if (x >= course.lengthM) return finishMs;
    let lo = 0;
    let hi = knotD.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (knotD[mid] < x) lo = mid;
      else hi = mid;
    }
    const span = knotD[hi] - knotD[lo];
    return span > 0 ? knotT[lo] + ((knotT[hi] - knotT[lo]) * (x - knotD[lo])) / span : knotT[hi];
  };
  const fixes: SimulatedFix[] = [];
  for (let x = o.startMs + Math.floor(rand() * ping); x <= finishMs + ping; x += ping) {
    const truthM = truthAt(x);
    const p = pointAtDistance(course, truthM);
    const { kx, ky } = rulerFactors(p.lat);
    const dx = noise * gaussian(rand);
    const dy = noise * gaussian(rand);
    if (rand() < (o.dropoutRate ?? 0)) continue;
    // Drawn only when asked, so runners without late fixes stay the same draws as before.
    const late = (o.lateRate ?? 0) > 0 && rand() < o.lateRate!;
    const deliveredMs = late ? x + Math.ceil(rand() * (o.maxDelayPings ?? 3)) * ping + 1000 : x;
    fixes.push({ t: x, lat: p.lat + dy / ky, lon: p.lon + dx / kx, truthM, deliveredMs, isJump: false });
  }
  return { fixes, finishMs, truthAt, timeAt };
}

/** Minetti et al. (2002) energy cost of running at a grade, J/(kg·m) (as in eta.ts, kept apart on purpose). */
function minettiCostOf(grade: number): number {
  const i = Math.max(-0.45, Math.min(0.45, grade));
  return ((((155.4 * i - 30.4) * i - 43.3) * i + 46.3) * i + 19.5) * i + 3.6;
}
