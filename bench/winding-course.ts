/**
 * A realistic course and field for `WIRE_COURSE=winding` in the wire bench (deterministic, seeded): ~50 km of
 * curves, straights and switchback sections (hairpins of 12–20 m radius, legs 30–40 m apart), one vertex every
 * 20–40 m like a recorded GPX track (~1,700 points), an elevation profile with climbs and descents; runners whose
 * pace follows the gradient (slower uphill, faster downhill), with their own noise per kilometre and stops at the
 * aid stations, and fixes at their true position along the course with 5–15 m of GPS noise.
 */
import { bracketIndex, gaussian, seededRandom } from '@racebeacon/domain';
import type { CourseGeometry } from '../apps/server/src/db/schema';
import { COURSE_START } from '../apps/server/test/support/live-seed';

/** Metres per degree near 46° N (the cheap-ruler factors). */
const M_PER_DEG_LAT = 111_170;
const M_PER_DEG_LON = 111_320 * Math.cos((COURSE_START.lat * Math.PI) / 180);

export interface WindingCourse {
  geometry: CourseGeometry;
  lengthM: number;
  climbM: number;
  descentM: number;
  /** Metres along the course of each aid station. */
  aidM: number[];
  /** The point `distanceM` along the course, moved `eastM`/`northM` (metres). */
  pointAt(distanceM: number, eastM?: number, northM?: number): { lat: number; lon: number };
  /** Elevation (m) at a distance. */
  elevationAt(distanceM: number): number;
}

const elevation = (d: number) =>
  900 +
  320 * Math.sin((2 * Math.PI * d) / 13_000) +
  110 * Math.sin((2 * Math.PI * d) / 3_700 + 1) +
  0.004 * d;

export function windingCourse(lengthM = 50_000, seed = 4242): WindingCourse {
  const random = seededRandom(seed);
  const xs = [0];
  const ys = [0];
  const ds = [0];
  let heading = 0; // radians from north, clockwise
  let general = 0.3; // the course's slowly drifting overall direction
  const step = (len: number, h: number) => {
    const last = xs.length - 1;
    const remaining = lengthM - ds[last];
    const l = Math.min(len, remaining);
    xs.push(xs[last] + l * Math.sin(h));
    ys.push(ys[last] + l * Math.cos(h));
    ds.push(ds[last] + l);
  };
  const done = () => ds[ds.length - 1] >= lengthM - 1e-6;
  while (!done()) {
    general += (random() - 0.5) * 0.6;
    const kind = random();
    if (kind < 0.2) {
      // Switchbacks: legs across the general direction, joined by hairpins.
      const legs = 4 + Math.floor(random() * 7);
      const radius = 12 + random() * 8;
      let side = random() < 0.5 ? 1 : -1;
      for (let l = 0; l < legs && !done(); l++) {
        const legH = general + side * 1.35; // ~77° off the general direction
        const legLen = 70 + random() * 90;
        for (let s = 0; s < legLen && !done(); s += 25)
          step(Math.min(25, legLen - s) + (random() - 0.5) * 4, legH);
        // The hairpin: a turn of ~155° over a few vertices.
        const turn = -side * 2.7;
        const n = 4;
        for (let k = 1; k <= n && !done(); k++)
          step((radius * Math.abs(turn)) / n, legH + (turn * (k - 0.5)) / n);
        side = -side;
      }
      heading = general;
    } else {
      // A curve or a wobbly straight: heading changes smoothly, pulled back toward the general direction.
      const len = 300 + random() * 1500;
      const rate = kind < 0.6 ? (random() - 0.5) * 0.008 : (random() - 0.5) * 0.002; // rad per metre
      for (let s = 0; s < len && !done();) {
        const l = 20 + random() * 20;
        heading += rate * l + (random() - 0.5) * 0.15;
        heading += (general - heading) * 0.02 * (l / 30);
        step(l, heading);
        s += l;
      }
    }
  }
  const total = ds[ds.length - 1];
  const aidM = [8_000, 17_500, 26_000, 34_500, 43_000];
  const at = (distanceM: number) => {
    const d = Math.max(0, Math.min(total, distanceM));
    const lo = bracketIndex(ds, d);
    const hi = lo + 1;
    const f = ds[hi] > ds[lo] ? (d - ds[lo]) / (ds[hi] - ds[lo]) : 0;
    return { x: xs[lo] + f * (xs[hi] - xs[lo]), y: ys[lo] + f * (ys[hi] - ys[lo]) };
  };
  const toLatLon = (x: number, y: number) => ({
    lat: COURSE_START.lat + y / M_PER_DEG_LAT,
    lon: COURSE_START.lon + x / M_PER_DEG_LON,
  });
  const points: CourseGeometry['points'] = xs.map((x, i) => {
    const p = toLatLon(x, ys[i]);
    return [Number(p.lon.toFixed(6)), Number(p.lat.toFixed(6)), Math.round(elevation(ds[i]) * 10) / 10];
  });
  let climbM = 0;
  let descentM = 0;
  for (let i = 1; i < points.length; i++) {
    const dz = (points[i][2] as number) - (points[i - 1][2] as number);
    if (dz > 0) climbM += dz;
    else descentM -= dz;
  }
  return {
    geometry: {
      points,
      waypoints: aidM.map((d, i) => {
        const p = at(d);
        return { name: `Aid ${i + 1}`, ...toLatLon(p.x, p.y), distanceM: d };
      }),
    },
    lengthM: total,
    climbM: Math.round(climbM),
    descentM: Math.round(descentM),
    aidM,
    pointAt(distanceM, eastM = 0, northM = 0) {
      const p = at(distanceM);
      return toLatLon(p.x + eastM, p.y + northM);
    },
    elevationAt: elevation,
  };
}

/**
 * A runner on the winding course: its distance at a time since the start (pace from its own base speed, the
 * gradient, its noise per kilometre, 1–6 minutes at each aid station) and its GPS error (σ 5–15 m).
 */
export function windingRunner(course: WindingCourse, k: number, interval: number) {
  const random = seededRandom(7000 + k);
  const base = 1.8 + random() * 1.6; // 1.8–3.4 m/s on the flat
  const phase = random() * interval;
  const gpsSigma = 5 + random() * 10;
  const STEP = 50;
  const steps = Math.ceil(course.lengthM / STEP);
  // Seconds since the start at each STEP metres.
  const tAt = new Float64Array(steps + 1);
  let noise = 1;
  let aid = 0;
  for (let i = 0; i < steps; i++) {
    const d = i * STEP;
    if (d % 1000 === 0) noise = Math.max(0.75, Math.min(1.25, 1 + gaussian(random) * 0.08));
    const grade = (course.elevationAt(d + STEP) - course.elevationAt(d)) / STEP;
    const factor = grade > 0 ? 1 / (1 + 5 * grade) : Math.min(1.3, 1 - 1.5 * grade);
    let dt = STEP / (base * factor * noise);
    if (aid < course.aidM.length && d + STEP > course.aidM[aid]) {
      dt += 60 + random() * 300;
      aid++;
    }
    tAt[i + 1] = tAt[i] + dt;
  }
  return {
    phase,
    /** Metres along the course `elapsedS` seconds after the start. */
    distanceAt(elapsedS: number) {
      if (elapsedS <= 0) return 0;
      if (elapsedS >= tAt[steps]) return course.lengthM;
      const lo = bracketIndex(tAt, elapsedS);
      const hi = lo + 1;
      return Math.min(course.lengthM, (lo + (elapsedS - tAt[lo]) / (tAt[hi] - tAt[lo])) * STEP);
    },
    /** A fix at its true position plus GPS error. */
    positionAt(elapsedS: number) {
      return course.pointAt(
        this.distanceAt(elapsedS),
        gaussian(random) * gpsSigma,
        gaussian(random) * gpsSigma,
      );
    },
  };
}
