/**
 * Real recorded tracks (public GPX recordings with the device's own timestamps) as accuracy cases: read from
 * REALTRACKS_DIR (default /work/shared/realtracks; never committed), turned into a course and a truth, and
 * replayed as a tracker would send them.
 *
 * The course is the recording itself, smoothed (a ±SMOOTH_S moving average) and simplified (a vertex where the
 * smoothed track has moved SIMPLIFY_M from the last one): what an organiser would draw from a recorded race. The
 * truth at any moment is the full-resolution recording's own place on it: the course distance of the recording
 * point at that time (each point maps to the vertex it was simplified into, interpolated by time in between), never
 * a projection (which is ambiguous exactly where matching is hard: an out-and-back, a loop). The fixes are the raw
 * recorded positions: the recording's own GPS error is the noise. A second recording of the same race (Rosengarten
 * 2017 on the 2019 course) gets its truth from a dense, in-order projection of its full-resolution points instead,
 * and the stretches where it takes another path are marked as leaving the course.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  courseCandidates,
  pointAtDistance,
  prepareCourse,
  type CourseInput,
  type PreparedCourse,
} from '../../src/course';
import { rulerFactors } from '../../src/course/geometry';
import { seededRandom } from '../../src/course/synthetic';

declare const process: { env: Record<string, string | undefined> };

export const REALTRACKS_DIR = process.env.REALTRACKS_DIR ?? '/work/shared/realtracks';

const SMOOTH_S = 10;
const SIMPLIFY_M = 10;

export interface RecPoint {
  t: number;
  lat: number;
  lon: number;
  ele: number | null;
}

/** Timed track points of a GPX file, in time order (points without a time, or not after the previous, left out). */
export function readRecording(file: string): RecPoint[] {
  const xml = readFileSync(`${REALTRACKS_DIR}/${file}`, 'utf8');
  const out: RecPoint[] = [];
  const re = /<trkpt\s([^>]*)>([\s\S]*?)<\/trkpt>/g;
  for (let m = re.exec(xml); m !== null; m = re.exec(xml)) {
    const lat = Number(/lat="([^"]+)"/.exec(m[1])?.[1]);
    const lon = Number(/lon="([^"]+)"/.exec(m[1])?.[1]);
    const time = /<time>([^<]+)<\/time>/.exec(m[2])?.[1];
    const eleText = /<ele>([^<]+)<\/ele>/.exec(m[2])?.[1];
    if (!time || !Number.isFinite(lat) || !Number.isFinite(lon)) continue;
    const t = Date.parse(time);
    if (!Number.isFinite(t) || (out.length > 0 && t <= out[out.length - 1].t)) continue;
    const ele = eleText !== undefined && Number.isFinite(Number(eleText)) ? Number(eleText) : null;
    out.push({ t, lat, lon, ele });
  }
  return out;
}

export function recordingAvailable(file: string): boolean {
  return existsSync(`${REALTRACKS_DIR}/${file}`);
}

export interface RealCase {
  name: string;
  course: PreparedCourse;
  /** The recording replayed (raw points). */
  rec: RecPoint[];
  /** Truth per recording point (metres along the course), and whether the point is on the course at all. */
  truth: number[];
  onCourse: boolean[];
  startMs: number;
  finishMs: number;
  /** Truth at any time (interpolated between recording points). */
  truthAt: (t: number) => number;
  /** When the truth first reaches distance d. */
  timeAt: (d: number) => number;
}

/** Local metres around the first point. */
function toXY(rec: RecPoint[]): { x: number[]; y: number[]; kx: number; ky: number } {
  const { kx, ky } = rulerFactors(rec[0].lat);
  return {
    x: rec.map((p) => (p.lon - rec[0].lon) * kx),
    y: rec.map((p) => (p.lat - rec[0].lat) * ky),
    kx,
    ky,
  };
}

/** The course drawn from a recording (smoothed, simplified), with aid stations every `aidEveryM`. */
export function courseFromRecording(
  rec: RecPoint[],
  aidEveryM: number,
): { input: CourseInput; vertexOf: number[] } {
  const { x, y, kx, ky } = toXY(rec);
  const n = rec.length;
  const sx: number[] = [];
  const sy: number[] = [];
  const se: (number | null)[] = [];
  let lo = 0;
  let hi = 0;
  let sumX = 0;
  let sumY = 0;
  let sumE = 0;
  let cntE = 0;
  for (let i = 0; i < n; i++) {
    while (hi < n && rec[hi].t <= rec[i].t + SMOOTH_S * 1000) {
      sumX += x[hi];
      sumY += y[hi];
      if (rec[hi].ele !== null) {
        sumE += rec[hi].ele!;
        cntE++;
      }
      hi++;
    }
    while (rec[lo].t < rec[i].t - SMOOTH_S * 1000) {
      sumX -= x[lo];
      sumY -= y[lo];
      if (rec[lo].ele !== null) {
        sumE -= rec[lo].ele!;
        cntE--;
      }
      lo++;
    }
    // The ends stay where they are (the start and the finish line).
    sx.push(i === 0 || i === n - 1 ? x[i] : sumX / (hi - lo));
    sy.push(i === 0 || i === n - 1 ? y[i] : sumY / (hi - lo));
    se.push(cntE > 0 ? sumE / cntE : null);
  }
  const kept: number[] = [0];
  const vertexOf: number[] = [0];
  for (let i = 1; i < n; i++) {
    const k = kept[kept.length - 1];
    if (i === n - 1 || Math.hypot(sx[i] - sx[k], sy[i] - sy[k]) >= SIMPLIFY_M) kept.push(i);
    vertexOf.push(kept.length - 1);
  }
  const points = kept.map((i): [number, number, number | null] => [
    rec[0].lon + sx[i] / kx,
    rec[0].lat + sy[i] / ky,
    se[i],
  ]);
  const bare = prepareCourse({ points });
  const waypoints: { name: string; lat: number; lon: number }[] = [];
  for (let d = aidEveryM, k = 1; d < bare.lengthM - 500; d += aidEveryM, k++) {
    const p = pointAtDistance(bare, d);
    waypoints.push({ name: `Aid ${k}`, lat: p.lat, lon: p.lon });
  }
  // vertexOf[i]: the course vertex at or before recording point i.
  return { input: { points, waypoints }, vertexOf };
}

/** A case whose course is the recording itself. */
export function selfCase(name: string, file: string, aidEveryM = 5000): RealCase {
  const rec = readRecording(file);
  const { input, vertexOf } = courseFromRecording(rec, aidEveryM);
  const course = prepareCourse(input);
  // Kept recording indices, in order: vertex v was recording point keptIdx[v].
  const keptIdx: number[] = [];
  vertexOf.forEach((v, i) => {
    if (keptIdx.length === v) keptIdx.push(i);
  });
  const truth = rec.map((p, i) => {
    const v = vertexOf[i];
    const a = keptIdx[v];
    if (a === i || v + 1 >= keptIdx.length) return course.cumDist[v];
    const b = keptIdx[v + 1];
    const f = (p.t - rec[a].t) / (rec[b].t - rec[a].t);
    return course.cumDist[v] + f * (course.cumDist[v + 1] - course.cumDist[v]);
  });
  return finishCase(
    name,
    course,
    rec,
    truth,
    rec.map(() => true),
  );
}

/**
 * A second recording on a course drawn from another: the truth is the dense in-order projection of its points (the
 * nearest pass within reach of the previous point's place); points more than OFF_M from the course leave it.
 */
export function otherCase(name: string, courseFile: string, file: string, aidEveryM = 5000): RealCase {
  const { input } = courseFromRecording(readRecording(courseFile), aidEveryM);
  const course = prepareCourse(input);
  const rec = readRecording(file);
  const OFF_M = 40;
  const truth: number[] = [];
  const onCourse: boolean[] = [];
  let prev = 0;
  let prevT = rec[0].t;
  for (const p of rec) {
    const dt = (p.t - prevT) / 1000;
    const cands = courseCandidates(course, p.lat, p.lon, OFF_M).filter(
      (c) => c.alongM >= prev - 30 && c.alongM <= prev + 8 * dt + 60,
    );
    if (cands.length === 0) {
      truth.push(prev);
      onCourse.push(false);
      continue;
    }
    const best = cands.reduce((a, b) => (b.offsetM < a.offsetM ? b : a));
    prev = Math.max(prev, best.alongM);
    prevT = p.t;
    truth.push(prev);
    onCourse.push(true);
  }
  truth[truth.length - 1] = course.lengthM;
  return finishCase(name, course, rec, truth, onCourse);
}

function finishCase(
  name: string,
  course: PreparedCourse,
  rec: RecPoint[],
  truth: number[],
  onCourse: boolean[],
): RealCase {
  // The truth never goes back (the simplification's interpolation is monotone; the projection is kept so).
  for (let i = 1; i < truth.length; i++) truth[i] = Math.max(truth[i], truth[i - 1]);
  const times = rec.map((p) => p.t);
  const truthAt = (t: number): number => {
    if (t <= times[0]) return 0;
    if (t >= times[times.length - 1]) return course.lengthM;
    let lo = 0;
    let hi = times.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid;
    }
    return truth[lo] + ((truth[hi] - truth[lo]) * (t - times[lo])) / (times[hi] - times[lo]);
  };
  const timeAt = (d: number): number => {
    const k = truth.findIndex((x) => x >= d);
    return k < 0 ? times[times.length - 1] : times[k];
  };
  return {
    name,
    course,
    rec,
    truth,
    onCourse,
    startMs: times[0],
    finishMs: times[times.length - 1],
    truthAt,
    timeAt,
  };
}

export interface ReplayFix {
  t: number;
  lat: number;
  lon: number;
  deliveredMs: number;
  /** Index of the recording point (−1: standing at the finish after the recording ended). */
  index: number;
  truthM: number;
}

/**
 * The recording as a tracker would send it: the position recorded at each ping (every `pingMs`, starting `phase`
 * into the recording), some dropped, some delivered after up to three later pings; two more pings at the finish.
 */
export function replay(
  c: RealCase,
  seed: number,
  pingMs = 150_000,
  dropRate = 0.1,
  lateRate = 0.12,
): ReplayFix[] {
  const rand = seededRandom(seed);
  const phase = Math.floor(rand() * pingMs);
  const out: ReplayFix[] = [];
  let k = 0;
  let lastIndex = -1;
  const end = c.finishMs + 2 * pingMs;
  for (let t = c.startMs + phase; t <= end; t += pingMs) {
    let fix: Omit<ReplayFix, 'deliveredMs'>;
    if (t <= c.finishMs) {
      while (k + 1 < c.rec.length && c.rec[k + 1].t <= t) k++;
      // A gap in the recording is a gap in the pings (no position to send).
      if (k === lastIndex) continue;
      lastIndex = k;
      const p = c.rec[k];
      fix = { t: p.t, lat: p.lat, lon: p.lon, index: k, truthM: c.truth[k] };
    } else {
      const p = c.rec[c.rec.length - 1];
      fix = { t, lat: p.lat, lon: p.lon, index: -1, truthM: c.course.lengthM };
    }
    const dropped = rand() < dropRate;
    const late = rand() < lateRate;
    const delay = late ? Math.ceil(rand() * 3) * pingMs + 1000 : Math.floor(rand() * 5000);
    if (dropped) continue;
    out.push({ ...fix, deliveredMs: fix.t + delay });
  }
  out.sort((a, b) => a.deliveredMs - b.deliveredMs);
  return out;
}
