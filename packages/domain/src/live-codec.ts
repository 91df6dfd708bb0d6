import { decodeColumns, encodeColumns } from './range-code';
import { bracketIndex } from './sorted';
import type {
  LeaderboardRow,
  LiveCompactDelta,
  LiveCompactSnapshot,
  LiveSnapshot,
  LiveUpdate,
  TrailPoint,
} from './live-messages';

/**
 * The compact live stream's codec (`…/live?v=4`), one for the server that encodes and the browser that decodes.
 *
 * Every leaderboard field has a kind: a number in fixed units (DistanceKm in metres, Percent in tenths, positions
 * in 1e-5 degrees), an exact time (LastPingTime, FinishTime: seconds with milliseconds; LastCheckpointTime to the
 * second), a predicted time (ETAs and their ranges: whole minutes, floored, which is what the page shows), a string or
 * a flag. The snapshot sends one column per field, numbers delta-coded down the column (rows in leaderboard order:
 * neighbours are close); trails against the course line when it has one (`encodeCourseTrails`: distance along it and
 * an offset across it), as deltas between fixes otherwise; the leader's progress (`LeaderCurve`). A delta message
 * patches only the fields that changed, numbers as the difference from what the viewer holds; a row's position and
 * last-ping time come from its newest fix when they are that fix; ranks are not sent at all: the viewer ranks the
 * rows it holds as the domain's leaderboard does (finish time, then distance to the metre, then who got there first)
 * and the server sends outright only the ranks that gets wrong (`inferRanks`); a gap in km the leader's distance less
 * the row's and a percentage that is the distance's share of the course are implied, like an elapsed
 * time that is the race clock's; fixes as differences from the runner's newest fix. What the viewer can predict from
 * what it holds travels as the difference from that prediction (`reference`: a distance from the pace, a gap in
 * seconds from the leader's progress, a pace from the race time and distance, an ETA's range moved with its ETA, a
 * fix's time from the runner's interval, which runners a message patches from who is due: `PI`); a patched row's
 * newest fix as its offset from the course point of the row's distance (`CourseLine`). On the wire, patches and
 * fixes go in packed columns (`patchColumns`, `fixColumns`; `compactDeltaRows` reads them back as rows).
 *
 * The server keeps a `CompactBaseline`: each row exactly as its viewers hold it, and each runner's newest fix sent.
 * The encoder patches a row when a field watched for viewers changed (the same fields that re-send a row on the
 * first stream); the fields that move with the clock (elapsed time, gaps, a silent runner's estimate) ride along
 * with the next patch. `compactView` is a row as a viewer of the compact stream holds it.
 */

/**
 * The codec's version, the live stream's `?v=` (the web app asks for it, the server answers it with this codec). A
 * codec change takes the next number; the server answers a superseded one with the first stream.
 */
export const COMPACT_STREAM_VERSION = '5';

type Kind = 'num' | 'ms' | 'sec' | 'min' | 'elapsed' | 'str' | 'bool';
type Field = Exclude<keyof LeaderboardRow, 'RunnerId'>;

/** Patch fields in bit order (the most often patched first, so the bit masks stay short). */
const FIELDS: readonly (readonly [Field | typeof FROM_FIX, Kind, number])[] = [
  ['DistanceKm', 'num', 1000],
  ['Percent', 'num', 10],
  ['ElapsedSeconds', 'elapsed', 1],
  ['GapSeconds', 'num', 1],
  ['GapKm', 'num', 1000],
  ['Rank', 'num', 1],
  // LastPingTime, Latitude and Longitude are the runner's newest fix (sent in F).
  ['~fix', 'num', 1],
  ['EtaFinish', 'min', 1],
  ['EtaFinishEarliest', 'min', 1],
  ['EtaFinishLatest', 'min', 1],
  ['PaceSecondsPerKm', 'num', 1],
  ['LastPingTime', 'ms', 1],
  ['Latitude', 'num', 1e5],
  ['Longitude', 'num', 1e5],
  ['EstimatedDistanceKm', 'num', 1000],
  ['EstimatedDistanceKmMin', 'num', 1000],
  ['EstimatedDistanceKmMax', 'num', 1000],
  ['EstimatedAt', 'ms', 1],
  ['EstimatedLatitude', 'num', 1e5],
  ['EstimatedLongitude', 'num', 1e5],
  ['EtaNextWaypoint', 'min', 1],
  ['EtaNextWaypointEarliest', 'min', 1],
  ['EtaNextWaypointLatest', 'min', 1],
  ['Status', 'str', 1],
  ['NextWaypoint', 'str', 1],
  ['NextWaypointKm', 'num', 1000],
  ['BatteryState', 'str', 1],
  ['LastCheckpoint', 'str', 1],
  ['LastCheckpointKm', 'num', 1000],
  ['LastCheckpointTime', 'sec', 1],
  ['CutoffRisk', 'bool', 1],
  ['FinishTime', 'ms', 1],
  ['BibNumber', 'str', 1],
  ['FirstName', 'str', 1],
  ['LastName', 'str', 1],
  ['Gender', 'str', 1],
  ['Age', 'num', 1],
  ['CategoryRank', 'num', 1],
];
const FROM_FIX = '~fix' as const;
const FIX_BIT = FIELDS.findIndex((f) => f[0] === FROM_FIX);
const ROW_FIELDS = FIELDS.filter((f): f is readonly [Field, Kind, number] => f[0] !== FROM_FIX);

/**
 * Fields whose change patches a row (the first stream's `rowKey`): the rest move with the clock or follow a rank
 * and ride along with the next patch. A silent runner's estimate counts per whole kilometre.
 */
const WATCHED = new Set<string>([
  'Status',
  'DistanceKm',
  'Percent',
  'PaceSecondsPerKm',
  'EtaFinish',
  'NextWaypoint',
  'NextWaypointKm',
  'EtaNextWaypoint',
  'EtaNextWaypointEarliest',
  'EtaNextWaypointLatest',
  'EtaFinishEarliest',
  'EtaFinishLatest',
  'LastCheckpoint',
  'LastCheckpointKm',
  'LastCheckpointTime',
  'CutoffRisk',
  'FinishTime',
  'LastPingTime',
  'Latitude',
  'Longitude',
  'BatteryState',
  'BibNumber',
  'FirstName',
  'LastName',
  'Gender',
  'Age',
]);

/** Fields a patched row that moved (a new fix, another distance) sends changed or not (`encodeCompactDelta`). */
const SENT_WHEN_MOVING = new Set<string>([
  'DistanceKm',
  'GapSeconds',
  'EtaFinish',
  'EtaFinishEarliest',
  'EtaFinishLatest',
  'PaceSecondsPerKm',
  'EtaNextWaypoint',
  'EtaNextWaypointEarliest',
  'EtaNextWaypointLatest',
]);

/**
 * A field that travels as its difference from another field of the same row when it has no value to be a delta of
 * (an estimate appearing: from the position and distance; an ETA range: from the ETA). The anchor comes first.
 */
const ANCHOR: Partial<Record<Field, Field>> = {
  EstimatedDistanceKm: 'DistanceKm',
  EstimatedDistanceKmMin: 'EstimatedDistanceKm',
  EstimatedDistanceKmMax: 'EstimatedDistanceKm',
  EstimatedLatitude: 'Latitude',
  EstimatedLongitude: 'Longitude',
  EtaFinishEarliest: 'EtaFinish',
  EtaFinishLatest: 'EtaFinish',
  EtaNextWaypointEarliest: 'EtaNextWaypoint',
  EtaNextWaypointLatest: 'EtaNextWaypoint',
};

const MINUTE = 60_000;
const LATLON = 1e5;
const bit = (i: number) => 2 ** i;
const hasBit = (mask: number, i: number) => Math.floor(mask / bit(i)) % 2 === 1;

/** A message's time and the race clock's start (ms), which times and elapsed times travel against. */
interface Ctx {
  atMs: number;
  startMs: number | null;
}

/** Seconds on the race clock at the message's time: elapsed times travel as their difference from it. */
const clockSeconds = (ctx: Ctx) => Math.round((ctx.atMs - ctx.startMs!) / 1000);

/** The integer a number or time field travels as (times relative to the message's); null for null/undefined. */
function toInt(kind: Kind, scale: number, v: unknown, ctx: Ctx): number | null {
  if (v === null || v === undefined) return null;
  if (kind === 'num') return Math.round((v as number) * scale);
  if (kind === 'elapsed') return ctx.startMs === null ? (v as number) : clockSeconds(ctx) - (v as number);
  const ms = Date.parse(v as string);
  if (kind === 'sec') return Math.round(ms / 1000) - Math.floor(ctx.atMs / 1000);
  return kind === 'ms' ? ms - ctx.atMs : Math.floor(ms / MINUTE) - Math.floor(ctx.atMs / MINUTE);
}

function fromInt(kind: Kind, scale: number, n: number, ctx: Ctx): number | string {
  if (kind === 'num') return n / scale;
  if (kind === 'elapsed') return ctx.startMs === null ? n : clockSeconds(ctx) - n;
  const ms =
    kind === 'ms'
      ? n + ctx.atMs
      : kind === 'sec'
        ? (n + Math.floor(ctx.atMs / 1000)) * 1000
        : (n + Math.floor(ctx.atMs / MINUTE)) * MINUTE;
  return new Date(ms).toISOString();
}

/** On the wire: exact times as seconds with milliseconds, every other number as its integer. */
const out = (kind: Kind, n: number) => (kind === 'ms' ? n / 1000 : n);
const back = (kind: Kind, v: number) => (kind === 'ms' ? Math.round(v * 1000) : v);

const isNumeric = (kind: Kind) => kind !== 'str' && kind !== 'bool';
const KIND = new Map<string, readonly [Kind, number]>(ROW_FIELDS.map(([n, k, s]) => [n, [k, s]]));
/** The anchor's integer in `row`, or null. */
function anchorInt(name: string, row: Record<string, unknown>, ctx: Ctx): number | null {
  const anchor = ANCHOR[name as Field];
  if (!anchor) return null;
  const [kind, scale] = KIND.get(anchor)!;
  return toInt(kind, scale, row[anchor], ctx);
}

/** A row as the compact stream carries it: positions to 1e-5 degrees, predicted times floored to the minute. */
export function compactView(row: LeaderboardRow): LeaderboardRow {
  const r: Record<string, unknown> = { ...row };
  for (const [name, kind, scale] of ROW_FIELDS) {
    const v = r[name];
    if (v === null || v === undefined) continue;
    if (kind === 'num') r[name] = Math.round((v as number) * scale) / scale;
    else if (kind === 'min')
      r[name] = new Date(Math.floor(Date.parse(v as string) / MINUTE) * MINUTE).toISOString();
    else if (kind === 'sec')
      r[name] = new Date(Math.round(Date.parse(v as string) / 1000) * 1000).toISOString();
  }
  return r as LeaderboardRow;
}

/** A fix as integers: [time ms, lat 1e-5°, lon 1e-5°]. */
type FixRef = [number, number, number];
const fixRefOf = (p: TrailPoint): FixRef => [p[0], Math.round(p[1] * LATLON), Math.round(p[2] * LATLON)];
/**
 * Trail points before the newest: to 1e-4° (a grid of about 11 × 8 m at 45°: at most 6 m off, about GPS noise; the
 * trail is a line behind the marker) and the whole second. 5e-5° would cost the first view of a 2,500-runner race
 * about 35 KB more (bench/wire.bench.ts).
 */
const COARSE = 10;
const coarse = (n: number) => Math.round(n / COARSE) * COARSE;
const coarseRef = (p: TrailPoint): FixRef => {
  const f = fixRefOf(p);
  return [Math.round(f[0] / 1000) * 1000, coarse(f[1]), coarse(f[2])];
};

/**
 * A snapshot trail as the compact stream carries it: the newest point to 1e-5°, the others to 1e-4° and 1 s — on a
 * grid of its own (`line`: the snapshot's Line, whose trails travel against the course: 1e-4° from the course point
 * at their distance).
 */
export function compactTrail(trail: readonly TrailPoint[], line?: readonly number[]): TrailPoint[] {
  const course = courseLine(line);
  if (course) {
    const ct = encodeCourseTrails(course, [{ RunnerId: 0 } as LeaderboardRow], new Map([[0, trail]]), 0);
    return decodeCourseTrails(course, ct, 1, 0)[0];
  }
  return trail.map((p, i) => {
    const f = i === trail.length - 1 ? fixRefOf(p) : coarseRef(p);
    return [f[0], f[1] / LATLON, f[2] / LATLON];
  });
}

// ---------------------------------------------------------------- the course

/**
 * The course as the compact stream's viewers hold it (the snapshot's `Line`): points of its line to 1e-5° with their
 * distance along the course (whole metres), to place a fix by its distance (`pointOnLine`). A runner's newest fix
 * then travels as its offset from the course point of its row's distance (the GPS error and the side of the path,
 * metres) rather than its move since the last fix (hundreds of metres). Server and viewer place the point with the
 * same arithmetic on the same integers (+ − × ÷ and rounding only, exact in every JavaScript engine).
 */
export interface CourseLine {
  /** Metres along the course at each point, increasing. */
  dist: number[];
  lat: number[];
  lon: number[];
}

/**
 * The line for the snapshot: [then per point Δmetres along the course, Δlat, Δlon in 1e-5° …] from points
 * [lat, lon, metres along the course] in course order (a point no further along than the one before is dropped).
 */
export function encodeCourseLine(points: readonly (readonly [number, number, number])[]): number[] {
  const out: number[] = [];
  let [pDist, pLat, pLon] = [-1, 0, 0];
  for (const [lat, lon, m] of points) {
    const d = Math.round(m);
    if (d <= pDist) continue;
    const [a, b] = [Math.round(lat * LATLON), Math.round(lon * LATLON)];
    out.push(d - Math.max(0, pDist), a - pLat, b - pLon);
    [pDist, pLat, pLon] = [d, a, b];
  }
  return out;
}

/** The snapshot's `Line` as the codec uses it; null without two points. */
export function courseLine(flat: readonly number[] | undefined): CourseLine | null {
  if (!flat || flat.length < 6) return null;
  const line: CourseLine = { dist: [], lat: [], lon: [] };
  for (let i = 0, d = 0, a = 0, b = 0; i + 2 < flat.length; i += 3) {
    line.dist.push((d += flat[i]));
    line.lat.push((a += flat[i + 1]));
    line.lon.push((b += flat[i + 2]));
  }
  return line;
}

/** The point (1e-5° integers) at `distanceM` along the course, between the two line points around it. */
export function pointOnLine(line: CourseLine, distanceM: number): [number, number] {
  const { dist, lat, lon } = line;
  const at = Math.min(dist[dist.length - 1], Math.max(dist[0], distanceM));
  const lo = bracketIndex(dist, at);
  const hi = lo + 1;
  const f = Math.min(1, Math.max(0, (at - dist[lo]) / (dist[hi] - dist[lo])));
  return [Math.round(lat[lo] + (lat[hi] - lat[lo]) * f), Math.round(lon[lo] + (lon[hi] - lon[lo]) * f)];
}

/**
 * Where a position is along the line (metres): the nearest point of the segments from `fromM` − 200 m to `fromM` +
 * 5 km (a runner's next fix is ahead of their last, and a course that comes back on itself has the same place at two
 * distances), or of the whole line when nothing there is within 300 m or `fromM` is null. Only the encoder calls it:
 * what it picks changes the bytes, never what the viewer decodes.
 */
function projectOnLine(
  line: CourseLine,
  lat: number,
  lon: number,
  fromM: number | null,
): { m: number; i: number } {
  const { dist } = line;
  const search = (lo: number, hi: number) => {
    const k = Math.cos((lat / LATLON) * (Math.PI / 180));
    let best = Infinity;
    let bestM = dist[lo];
    let bestI = lo;
    for (let i = lo; i < hi; i++) {
      const ax = line.lon[i] * k;
      const ay = line.lat[i];
      const dx = line.lon[i + 1] * k - ax;
      const dy = line.lat[i + 1] - ay;
      const px = lon * k - ax;
      const py = lat - ay;
      const len2 = dx * dx + dy * dy;
      const f = len2 > 0 ? Math.min(1, Math.max(0, (px * dx + py * dy) / len2)) : 0;
      const ex = px - f * dx;
      const ey = py - f * dy;
      const e = ex * ex + ey * ey;
      if (e < best) {
        best = e;
        bestM = dist[i] + f * (dist[i + 1] - dist[i]);
        bestI = i;
      }
    }
    return { m: bestM, e: best, i: bestI };
  };
  const last = dist.length - 1;
  if (fromM !== null) {
    const lo = bracketIndex(dist, Math.max(dist[0], fromM - 200));
    let hi = lo;
    while (hi < last && dist[hi] < fromM + 5000) hi++;
    const near = search(lo, Math.max(lo + 1, hi));
    // 300 m, in 1e-5° units squared (a degree of latitude is about 111 km).
    if (near.e <= 27 ** 2 * 100) return near;
  }
  return search(0, last);
}

/** The line's segment at `m` metres (as `pointOnLine` takes it). */
const segmentAt = (line: CourseLine, m: number) =>
  bracketIndex(line.dist, Math.min(line.dist[line.dist.length - 1], Math.max(line.dist[0], m)));

/**
 * The axis an older trail point's offset from the course runs along at segment `i`: longitude (2) where the segment
 * runs more north–south than east–west, latitude (1) otherwise — across the path, give or take 45°.
 */
const axisAt = (line: CourseLine, i: number): 1 | 2 =>
  Math.abs(line.lat[i + 1] - line.lat[i]) >= Math.abs(line.lon[i + 1] - line.lon[i]) ? 2 : 1;

/**
 * An older trail point (1e-5° integers) as [distance in TRAIL_M, offset along the axis across the path at that
 * distance in 1e-4°, and, only where that leaves it more than 1e-4° off, the offset along the other axis (else
 * null)]. The distance is where the line through the fix along that axis crosses the course, so the one offset is
 * nearly all there is.
 */
function coarseOnCourse(line: CourseLine, lat: number, lon: number, fromM: number | null) {
  const near = projectOnLine(line, lat, lon, fromM);
  const i = near.i;
  let m = near.m;
  const axis = axisAt(line, i);
  // Slide along the segment to where the fix is straight across it along that axis.
  const [a0, a1, v] = axis === 2 ? [line.lat[i], line.lat[i + 1], lat] : [line.lon[i], line.lon[i + 1], lon];
  if (a1 !== a0) {
    const f = Math.min(1, Math.max(0, (v - a0) / (a1 - a0)));
    m = line.dist[i] + f * (line.dist[i + 1] - line.dist[i]);
  }
  const d = Math.round(m / TRAIL_M);
  const at = pointOnLine(line, d * TRAIL_M);
  const ax = axisAt(line, segmentAt(line, d * TRAIL_M));
  const fix = [0, lat, lon];
  const o = Math.round((fix[ax] - at[ax - 1]) / COARSE);
  const other = ax === 1 ? 2 : 1;
  const rest = fix[other] - at[other - 1];
  return { d, o, o2: Math.abs(rest) > COARSE / 2 ? Math.round(rest / COARSE) : null };
}

/** An older trail point back from its distance and offsets (`coarseOnCourse`). */
function coarseFromCourse(line: CourseLine, d: number, o: number, o2: number): [number, number] {
  const at = pointOnLine(line, d * TRAIL_M);
  const ax = axisAt(line, segmentAt(line, d * TRAIL_M));
  const p: [number, number] = [at[0], at[1]];
  p[ax - 1] += o * COARSE;
  p[ax === 1 ? 1 : 0] += o2 * COARSE;
  return p;
}

/** Trail distances travel in this many metres: the offsets from the course point (1e-4°, about 8–11 m) do the rest. */
const TRAIL_M = 10;

/**
 * Trails against the course (the snapshot's `CT`, when it has a Line): each point as where it is along the course
 * (to TRAIL_M) and its offset from the course point there — the offset is the GPS error and the side of the path,
 * the distance moves by about the same from one fix to the next, so both are small numbers where the moves
 * themselves (hundreds of metres in any direction on a winding course) are not. Every point but the newest to 1e-4°
 * from that course point (`coarseOnCourse`) and the whole second, the newest exact (1e-5°, ms). Columns, in row
 * order, packed: [counts, times (s), distances (TRAIL_M), offsets (older points: across the path; the newest: its
 * Δlat), second offsets ([point index − previous, offset, …]), the newest points' milliseconds, the newest points'
 * Δlon]. A time: the first point's against the previous row's first point, then each step against the runner's step
 * before (the first step against `TI`); a distance: the first point's against the previous row's first point, then
 * each step against the step before, scaled to its time.
 */
interface CourseTrails {
  CT: WireColumn[];
  TI: number;
}

function encodeCourseTrails(
  line: CourseLine,
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
  baseS: number,
): CourseTrails {
  const cols: number[][] = [[], [], [], [], [], [], []];
  /** Points coded so far, and the last one with a second offset. */
  let k = 0;
  let lastOff = 0;
  const steps = new Map<number, number>();
  for (const row of rows) {
    const t = trails.get(row.RunnerId) ?? [];
    if (t.length > 1) {
      const s = Math.round((t[1][0] - t[0][0]) / 1000);
      steps.set(s, (steps.get(s) ?? 0) + 1);
    }
  }
  const TI = [...steps].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
  let ref = { t: baseS, d: 0 };
  for (const row of rows) {
    const trail = trails.get(row.RunnerId) ?? [];
    cols[0].push(trail.length);
    let prev: TrailStep | null = null;
    let fromM: number | null = null;
    trail.forEach((p, i) => {
      const newest = i === trail.length - 1;
      const f = fixRefOf(p);
      let d: number;
      if (newest) {
        d = Math.round(projectOnLine(line, f[1], f[2], fromM).m / TRAIL_M);
        const at = pointOnLine(line, d * TRAIL_M);
        cols[3].push(f[1] - at[0]);
        cols[6].push(f[2] - at[1]);
      } else {
        const c = coarseOnCourse(line, f[1], f[2], fromM);
        d = c.d;
        cols[3].push(c.o);
        if (c.o2 !== null) {
          cols[4].push(k - lastOff, c.o2);
          lastOff = k;
        }
      }
      fromM = d * TRAIL_M;
      // Whole seconds; the newest point's milliseconds in a column of their own (mostly 0).
      const s = newest ? Math.floor(f[0] / 1000) : Math.round(f[0] / 1000);
      if (newest) cols[5].push(f[0] - s * 1000);
      if (!prev) {
        cols[1].push(s - ref.t);
        cols[2].push(d - ref.d);
        ref = { t: s, d };
      } else {
        const dt = s - prev.t;
        cols[1].push(dt - (prev.dt === -1 ? TI : prev.dt));
        cols[2].push(d - prev.d - stepPrediction(prev, dt));
      }
      prev = nextStep(prev, s, d);
      k++;
    });
  }
  return { CT: cols.map((c) => pack(c)), TI };
}

/** A trail point while coding: its second and distance (TRAIL_M), and the step that led to it (dt −1: none). */
interface TrailStep {
  t: number;
  d: number;
  /** The step before: seconds (−1: none) and TRAIL_M. */
  dt: number;
  dd: number;
}

function nextStep(prev: TrailStep | null, t: number, d: number): TrailStep {
  if (!prev) return { t, d, dt: -1, dd: 0 };
  const dt = t - prev.t;
  const dd = d - prev.d;
  return { t, d, dt, dd };
}

/**
 * A trail step's distance predicted from the step before, scaled to this step's time (a runner's speed changes with
 * the ground, which runs on for a while: closer than a pace over many steps, measured on the winding bench course).
 */
const stepPrediction = (prev: TrailStep, dt: number) =>
  prev.dt > 0 ? Math.round((prev.dd * dt) / prev.dt) : 0;

function decodeCourseTrails(line: CourseLine, ct: CourseTrails, n: number, baseS: number): TrailPoint[][] {
  const [counts, times, dists, offs, second, millis, newestLon] = ct.CT.map((c) => unpack(c) as number[]);
  const seconds = new Map<number, number>();
  for (let i = 0, at = 0; i + 1 < second.length; i += 2) seconds.set((at += second[i]), second[i + 1]);
  const out: TrailPoint[][] = [];
  let k = 0;
  let q = 0;
  let ref = { t: baseS, d: 0 };
  for (let r = 0; r < n; r++) {
    const trail: TrailPoint[] = [];
    let prev: TrailStep | null = null;
    for (let i = 0; i < counts[r]; i++, k++) {
      let s: number;
      let d: number;
      if (!prev) {
        s = ref.t + times[k];
        d = ref.d + dists[k];
        ref = { t: s, d };
      } else {
        const dt = times[k] + (prev.dt === -1 ? ct.TI : prev.dt);
        s = prev.t + dt;
        d = prev.d + stepPrediction(prev, dt) + dists[k];
      }
      if (i === counts[r] - 1) {
        const at = pointOnLine(line, d * TRAIL_M);
        trail.push([s * 1000 + millis[q], (at[0] + offs[k]) / LATLON, (at[1] + newestLon[q]) / LATLON]);
        q++;
      } else {
        const p = coarseFromCourse(line, d, offs[k], seconds.get(k) ?? 0);
        trail.push([s * 1000, p[0] / LATLON, p[1] / LATLON]);
      }
      prev = nextStep(prev, s, d);
    }
    out.push(trail);
  }
  return out;
}

/** What a position costs against a reference (its offset, as digits go). */
const cost = (f: FixRef, from: readonly [number, number]) =>
  Math.abs(f[1] - from[0]) + Math.abs(f[2] - from[1]);

// ---------------------------------------------------------------- snapshot

export interface CompactSnapshotMeta {
  Seq: number;
  RaceId: number;
  ClockStartedAt: string | null;
  ClockStoppedAt: string | null;
  HasCourse: boolean;
}

/** The fields a row shares with its newest fix. */
const FIX_FIELDS = new Set(['LastPingTime', 'Latitude', 'Longitude']);

const COLUMNS: readonly (readonly [string, Kind, number])[] = [['RunnerId', 'num', 1], ...ROW_FIELDS];

/** The whole state: `rows` in leaderboard order, each runner's trail (oldest first). */
export function encodeCompactSnapshot(
  meta: CompactSnapshotMeta,
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
  atMs: number,
  line?: readonly number[],
  leader?: LeaderCurve,
): LiveCompactSnapshot {
  const ctx: Ctx = { atMs, startMs: meta.ClockStartedAt === null ? null : Date.parse(meta.ClockStartedAt) };
  const Cols: Record<string, (number | string | null)[]> = {};
  const Undef: Record<string, number[]> = {};
  // Rows whose position and last ping are their trail's newest point: those columns hold 0 for them.
  const fromFix = new Set<number>();
  const FromFix: number[] = [];
  rows.forEach((row, i) => {
    const newest = trails.get(row.RunnerId)?.at(-1);
    if (
      newest &&
      row.LastPingTime !== null &&
      row.Latitude !== null &&
      row.Longitude !== null &&
      Date.parse(row.LastPingTime) === newest[0] &&
      Math.round(row.Latitude * LATLON) === Math.round(newest[1] * LATLON) &&
      Math.round(row.Longitude * LATLON) === Math.round(newest[2] * LATLON)
    ) {
      FromFix.push(i - (fromFix.size ? [...fromFix].at(-1)! : 0));
      fromFix.add(i);
    }
  });
  for (const [name, kind, scale] of COLUMNS) {
    const col: (number | string | null)[] = [];
    const undef: number[] = [];
    let prev = 0;
    const fixed = FIX_FIELDS.has(name);
    rows.forEach((row, i) => {
      if (fixed && fromFix.has(i)) return void col.push(0);
      const v = (row as unknown as Record<string, unknown>)[name];
      if (v === undefined) undef.push(i);
      if (v === null || v === undefined) return void col.push(null);
      if (isNumeric(kind)) {
        const n = toInt(kind, scale, v, ctx)!;
        // Against the row's anchor when it has one, otherwise down the column.
        const anchor = anchorInt(name, row as unknown as Record<string, unknown>, ctx);
        col.push(out(kind, n - (anchor ?? prev)));
        prev = n;
      } else col.push(kind === 'bool' ? (v ? 1 : 0) : (v as string));
    });
    if (undef.length === rows.length && rows.length > 0) continue; // no row has it
    Cols[name] = col;
    if (undef.length) Undef[name] = undef;
  }
  const base = Math.floor(atMs / 1000) * 1000;
  const course = courseLine(line);
  return squeezeSnapshot({
    V: 2,
    ...meta,
    At: new Date(atMs).toISOString(),
    N: rows.length,
    Cols,
    ...(FromFix.length ? { FromFix } : {}),
    ...(Object.keys(Undef).length ? { Undef } : {}),
    // With a course line the trails travel against it; without one, as moves.
    ...(course
      ? { Trails: [], ...encodeCourseTrails(course, rows, trails, base / 1000) }
      : { Trails: trailsAsMoves(rows, trails, base) }),
    ...(line ? { Line: [...line] } : {}),
    ...(leader ? { LC: curveWire(leader) } : {}),
  });
}

/** A snapshot column of integers and nulls only (not one of names, times in seconds with milliseconds…). */
const integerColumn = (col: readonly unknown[], n: number) =>
  n > 0 && col.length === n && col.every((v) => v === null || Number.isSafeInteger(v));

/**
 * The snapshot with its integer columns range-coded into Z (`range-code.ts`): the trails' CT columns ('' in their
 * places), then each Cols column of integers and nulls ([] in its place) as its nulls (1) and its values.
 */
function squeezeSnapshot(s: LiveCompactSnapshot): LiveCompactSnapshot {
  const columns: number[][] = [];
  const CT = s.CT?.map((c) => {
    if (typeof c !== 'string') return c;
    columns.push(unpack(c) as number[]);
    return '';
  });
  const Cols = Object.fromEntries(
    Object.entries(s.Cols).map(([name, col]) => {
      if (!integerColumn(col, s.N)) return [name, col];
      columns.push(col.map((v) => (v === null ? 1 : 0)));
      columns.push(col.filter((v) => v !== null) as number[]);
      return [name, []];
    }),
  );
  if (!columns.length) return s;
  return { ...s, Cols, ...(CT ? { CT } : {}), Z: encodeColumns(columns) };
}

/** The snapshot with its columns packed in their places again, as tools and tests read them. */
export const expandCompactSnapshot = (s: LiveCompactSnapshot): LiveCompactSnapshot =>
  unsqueezeSnapshot(s, true);

/**
 * The snapshot as `squeezeSnapshot` was given it (one without Z as it is); `packed`: its CT columns packed again
 * (without, they are the integers themselves, which `unpack` reads as they are: no packing only to read it back).
 */
function unsqueezeSnapshot(s: LiveCompactSnapshot, packed = false): LiveCompactSnapshot {
  if (s.Z === undefined) return s;
  const columns = decodeColumns(s.Z);
  let k = 0;
  const next = () => columns[k++] ?? [];
  const { Z: _z, ...rest } = s;
  const CT = s.CT?.map((c) => (c !== '' ? c : packed ? (pack(next()) as string) : next()));
  const Cols = Object.fromEntries(
    Object.entries(s.Cols).map(([name, col]) => {
      if (col.length > 0 || s.N === 0) return [name, col];
      const nulls = next();
      const values = next();
      let j = 0;
      return [name, nulls.map((isNull) => (isNull ? null : (values[j++] ?? null)))];
    }),
  );
  return { ...rest, Cols, ...(CT ? { CT } : {}) };
}

/**
 * Snapshot trails without a course: per row [time, lat, lon, …], the first point against the previous row's first,
 * then moves.
 */
function trailsAsMoves(
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
  base: number,
): number[][] {
  let ref: FixRef = [base, 0, 0];
  return rows.map((row) => {
    const trail = trails.get(row.RunnerId) ?? [];
    const flat: number[] = [];
    let prev: FixRef | null = null;
    trail.forEach((p, i) => {
      const from: FixRef = prev ?? ref;
      let f: FixRef;
      if (i < trail.length - 1) {
        f = coarseRef(p);
        flat.push(
          (f[0] - from[0]) / 1000,
          (f[1] - coarse(from[1])) / COARSE,
          (f[2] - coarse(from[2])) / COARSE,
        );
      } else {
        f = fixRefOf(p);
        flat.push((f[0] - from[0]) / 1000, f[1] - from[1], f[2] - from[2]);
      }
      if (!prev) ref = f;
      prev = f;
    });
    return flat;
  });
}

/** The snapshot as the first stream's message (rows and trails as a viewer holds them). */
export function decodeCompactSnapshot(s: LiveCompactSnapshot): LiveSnapshot {
  s = unsqueezeSnapshot(s);
  const atMs = Date.parse(s.At);
  const ctx: Ctx = { atMs, startMs: s.ClockStartedAt === null ? null : Date.parse(s.ClockStartedAt) };
  const base = Math.floor(atMs / 1000) * 1000;
  let ref: FixRef = [base, 0, 0];
  const course = s.CT ? courseLine(s.Line) : null;
  const trails = course
    ? decodeCourseTrails(course, { CT: s.CT!, TI: s.TI ?? 0 }, s.N, base / 1000)
    : s.Trails.map((flat) => {
        const Trail: TrailPoint[] = [];
        let prev: FixRef | null = null;
        for (let j = 0; j + 2 < flat.length; j += 3) {
          const from: FixRef = prev ?? ref;
          const t = from[0] + Math.round(flat[j] * 1000);
          const f: FixRef =
            j + 3 < flat.length
              ? [t, coarse(from[1]) + flat[j + 1] * COARSE, coarse(from[2]) + flat[j + 2] * COARSE]
              : [t, from[1] + flat[j + 1], from[2] + flat[j + 2]];
          Trail.push([f[0], f[1] / LATLON, f[2] / LATLON]);
          if (!prev) ref = f;
          prev = f;
        }
        return Trail;
      });
  const rows: Record<string, unknown>[] = Array.from({ length: s.N }, () => ({}));
  const fromFix = new Set<number>();
  let at = 0;
  for (const d of s.FromFix ?? []) {
    fromFix.add((at += d));
    const newest = trails[at]?.at(-1);
    if (!newest) continue;
    rows[at].LastPingTime = new Date(newest[0]).toISOString();
    rows[at].Latitude = newest[1];
    rows[at].Longitude = newest[2];
  }
  for (const [name, kind, scale] of COLUMNS) {
    const col = s.Cols[name];
    if (!col) continue;
    const undef = new Set(s.Undef?.[name] ?? []);
    const fixed = FIX_FIELDS.has(name);
    let prev = 0;
    for (let i = 0; i < s.N; i++) {
      if (undef.has(i) || (fixed && fromFix.has(i))) continue;
      const v = col[i];
      if (v === null) {
        rows[i][name] = null;
      } else if (isNumeric(kind)) {
        prev = (anchorInt(name, rows[i], ctx) ?? prev) + back(kind, v as number);
        rows[i][name] = fromInt(kind, scale, prev, ctx);
      } else rows[i][name] = kind === 'bool' ? v === 1 : v;
    }
  }
  return {
    Seq: s.Seq,
    At: s.At,
    RaceId: s.RaceId,
    ClockStartedAt: s.ClockStartedAt,
    ClockStoppedAt: s.ClockStoppedAt,
    HasCourse: s.HasCourse,
    Rows: rows as LeaderboardRow[],
    Trails: trails.map((Trail, i) => ({ RunnerId: rows[i].RunnerId as number, Trail })),
  };
}

// ---------------------------------------------------------------- deltas

/** What the compact stream's viewers hold: each row as sent, each runner's newest fix sent. Server side. */
export interface CompactBaseline {
  rows: Map<number, LeaderboardRow>;
  newestFix: Map<number, FixRef>;
  /** The leader's progress as the viewers hold it (gaps in seconds are predicted from it). */
  leader?: LeaderCurve;
}

// ---------------------------------------------------------------- the leader's progress

/**
 * The leader's progress as the compact stream's viewers hold it: when they first reached each whole metre (whole
 * seconds), metres increasing. A runner's gap in seconds is the time since the leader passed their distance
 * (`course/leaderboard.ts`), so the viewer predicts it from this and the runner's newest fix, and the server sends
 * the difference (a second or two) instead of the gap's change (how much time the runner lost, anything).
 */
export interface LeaderCurve {
  id: number;
  t: number[];
  m: number[];
}

/** A runner's progress (the matcher's: ms, metres along the course) as a leader curve. */
export type ProgressOf = (runnerId: number) => readonly { t: number; distanceM: number }[] | null | undefined;

function leaderCurve(id: number, progress: ReturnType<ProgressOf>): LeaderCurve {
  const c: LeaderCurve = { id, t: [], m: [] };
  for (const p of progress ?? []) {
    const m = Math.round(p.distanceM);
    if (c.m.length && m <= c.m[c.m.length - 1]) continue;
    c.t.push(Math.round(p.t / 1000));
    c.m.push(m);
  }
  return c;
}

/** On the wire: [RunnerId, first second, first metre, then Δseconds, Δmetres per point]. */
function curveWire(c: LeaderCurve): number[] {
  const out = [c.id];
  c.t.forEach((t, i) => out.push(i ? t - c.t[i - 1] : t, i ? c.m[i] - c.m[i - 1] : c.m[i]));
  return out;
}

function curveFromWire(w: readonly number[]): LeaderCurve {
  const c: LeaderCurve = { id: w[0], t: [], m: [] };
  for (let i = 1; i + 1 < w.length; i += 2) {
    c.t.push(c.t.length ? c.t[c.t.length - 1] + w[i] : w[i]);
    c.m.push(c.m.length ? c.m[c.m.length - 1] + w[i + 1] : w[i + 1]);
  }
  return c;
}

/** The snapshot's leader curve (what `decodeCompactDelta` takes), or null. */
export function leaderCurveOf(s: LiveCompactSnapshot): LeaderCurve | null {
  return s.LC ? curveFromWire(s.LC) : null;
}

/** The leader curve after a delta: a new one (LC), points added (LA: Δseconds, Δmetres after the last), or as held. */
export function applyLeaderCurve(held: LeaderCurve | null, d: LiveCompactDelta): LeaderCurve | null {
  if (d.LC) return curveFromWire(d.LC);
  if (!d.LA || !held) return held;
  const c: LeaderCurve = { id: held.id, t: [...held.t], m: [...held.m] };
  for (let i = 0; i + 1 < d.LA.length; i += 2) {
    c.t.push((c.t.at(-1) ?? 0) + d.LA[i]);
    c.m.push((c.m.at(-1) ?? 0) + d.LA[i + 1]);
  }
  return c;
}

/** When the leader first reached `m` metres (seconds, between the curve's points), or null beyond its end. */
function leaderTimeAt(c: LeaderCurve, m: number): number | null {
  const { t, m: ms } = c;
  if (!ms.length || m > ms[ms.length - 1]) return null;
  if (m <= ms[0]) return t[0];
  let lo = 0;
  let hi = ms.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ms[mid] < m) lo = mid;
    else hi = mid;
  }
  return t[lo] + ((m - ms[lo]) * (t[hi] - t[lo])) / (ms[hi] - ms[lo]);
}

/** The leader: the first row ranked 1. */
function leaderRow(rows: Iterable<LeaderboardRow>): LeaderboardRow | undefined {
  for (const r of rows) if (r.Rank === 1) return r;
  return undefined;
}

/** The leader curve for `rows` (null without a leader or a progress reader). */
function curveFor(
  rows: Iterable<LeaderboardRow>,
  progressOf: ProgressOf | undefined,
): LeaderCurve | undefined {
  const id = leaderRow(rows)?.RunnerId;
  return id === undefined || !progressOf ? undefined : leaderCurve(id, progressOf(id));
}

/** The baseline of a snapshot sent with these rows and trails. */
export function compactBaseline(
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
  progressOf?: ProgressOf,
): CompactBaseline {
  const newestFix = new Map<number, FixRef>();
  for (const [id, trail] of trails) {
    const newest = trail.at(-1);
    if (newest) newestFix.set(id, fixRefOf(newest));
  }
  const leader = curveFor(rows, progressOf);
  return { rows: new Map(rows.map((r) => [r.RunnerId, r])), newestFix, ...(leader ? { leader } : {}) };
}

const same = (kind: Kind, scale: number, a: unknown, b: unknown, ctx: Ctx) =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    isNumeric(kind) &&
    toInt(kind, scale, a, ctx) === toInt(kind, scale, b, ctx));

/** Whether a watched field changed, so the row is patched. */
function watchedChange(prev: LeaderboardRow, next: LeaderboardRow, ctx: Ctx): boolean {
  for (const [name, kind, scale] of ROW_FIELDS) {
    if (!WATCHED.has(name)) continue;
    if (!same(kind, scale, prev[name], next[name], ctx)) return true;
  }
  const est = (r: LeaderboardRow) =>
    r.EstimatedDistanceKm == null ? null : Math.floor(r.EstimatedDistanceKm);
  return est(prev) !== est(next);
}

/**
 * The ranks a viewer works out from the rows it holds, patched ones already updated (their rank still the one held,
 * 0 for a row newly ranked): the domain's ranking (`course/leaderboard.ts`) on what a row carries — finishers by
 * finish time, then the rest by distance, the further first — given out 1, 2, 3… to the rows that have a rank (a
 * rank's presence travels, its value does not); equal keys in the order of the ranks held, then RunnerId. With no
 * row patched, the ranks held. Server and viewer share it, and the server sends outright (K) every rank it gets
 * wrong (ties, two runners at the same metre reached in another order).
 */
function inferRanks(
  held: Iterable<LeaderboardRow>,
  moved: ReadonlyMap<number, number>,
  anyPatched: boolean,
): Map<number, number | null> {
  const out = new Map<number, number | null>();
  const ranked: { id: number; finish: number; m: number; rank: number; arrived: number }[] = [];
  for (const row of held) {
    if (row.Rank === null || row.Rank === undefined || !anyPatched) out.set(row.RunnerId, row.Rank ?? null);
    else
      ranked.push({
        id: row.RunnerId,
        finish: row.FinishTime ? Date.parse(row.FinishTime) : Infinity,
        m: row.DistanceKm === null || row.DistanceKm === undefined ? -1 : Math.round(row.DistanceKm * 1000),
        rank: row.Rank,
        arrived: moved.get(row.RunnerId) ?? -Infinity,
      });
  }
  // At the same metre, who got there first: the rows there already (in their order), then those that moved there
  // now, by their newest fix.
  ranked.sort(
    (a, b) => a.finish - b.finish || b.m - a.m || a.arrived - b.arrived || a.rank - b.rank || a.id - b.id,
  );
  ranked.forEach((r, i) => out.set(r.id, i + 1));
  return out;
}

/** Notes a patched row that moved to another metre, with its newest fix's time (or none: −Infinity, first). */
function noteMoved(
  moved: Map<number, number>,
  prev: Record<string, unknown> | LeaderboardRow | undefined,
  row: LeaderboardRow,
): void {
  const metre = (km: unknown) => (typeof km === 'number' ? Math.round(km * 1000) : null);
  if (metre(prev?.DistanceKm) === metre(row.DistanceKm)) return;
  moved.set(row.RunnerId, row.LastPingTime ? Date.parse(row.LastPingTime) : -Infinity);
}

/** Percent in tenths as the leaderboard gives it for a distance (km, to the metre) on a course of `lengthM`. */
function impliedPercent(distanceKm: number, lengthM: number): number {
  const m = Math.round(distanceKm * 1000);
  return Math.round((lengthM > 0 ? Math.min(100, (m / lengthM) * 100) : 0) * 10);
}

/** The leader's distance in metres: the first ranked row's. */
function leaderM(rows: Iterable<LeaderboardRow>): number | undefined {
  const km = leaderRow(rows)?.DistanceKm;
  return km === null || km === undefined ? undefined : Math.round(km * 1000);
}

/**
 * The delta from what the baseline's viewers hold to `rows` (the leaderboard now) and the new `fixes`
 * ([RunnerId, time ms, lat, lon], in arrival order); null when nothing changed. Moves the baseline on.
 * `clockStartMs`: the race clock's start (the snapshot's ClockStartedAt).
 */
export function encodeCompactDelta(
  baseline: CompactBaseline,
  rows: readonly LeaderboardRow[],
  fixes: readonly (readonly [number, number, number, number])[],
  seq: number,
  atMs: number,
  clockStartMs: number | null = null,
  courseLengthM: number | null = null,
  line: CourseLine | null = null,
  progressOf?: ProgressOf,
): LiveCompactDelta | null {
  const C = courseLengthM === null ? undefined : courseLengthM;
  const ctx: Ctx = { atMs, startMs: clockStartMs };
  // Fixes, grouped by runner in RunnerId order, each against the runner's newest fix so far.
  const byRunner = new Map<number, (readonly [number, number, number, number])[]>();
  for (const f of fixes) {
    let list = byRunner.get(f[0]);
    if (!list) byRunner.set(f[0], (list = []));
    list.push(f);
  }
  const base = Math.floor(atMs / 1000) * 1000;
  const I = fixInterval(byRunner, baseline.newestFix);
  const changed: LeaderboardRow[] = [];
  for (const row of rows) {
    const prev = baseline.rows.get(row.RunnerId);
    if (!prev || watchedChange(prev, row, ctx)) changed.push(row);
  }
  changed.sort((a, b) => a.RunnerId - b.RunnerId);
  const PI = patchedIdsWire(
    changed.map((r) => r.RunnerId),
    baseline.rows.keys(),
    (id) => baseline.newestFix.get(id)?.[0],
    I,
    atMs,
  );
  /** Where the course puts a patched row's distance (its newest fix travels against it when that is closer). */
  const onCourse = new Map<number, [number, number]>();
  if (line)
    for (const row of changed)
      if (row.DistanceKm !== null)
        onCourse.set(row.RunnerId, pointOnLine(line, Math.round(row.DistanceKm * 1000)));
  /** Each runner's fixes as they travel: [count, then time, Δlat, Δlon per fix]. */
  const fixesOf = new Map<number, number[]>();
  for (const [id, list] of byRunner) {
    const nums = [list.length];
    list.forEach(([, t, lat, lon], j) => {
      const f: FixRef = [t, Math.round(lat * LATLON), Math.round(lon * LATLON)];
      const ref = baseline.newestFix.get(id);
      let from: readonly [number, number] = [ref?.[1] ?? 0, ref?.[2] ?? 0];
      const course = j === list.length - 1 ? onCourse.get(id) : undefined;
      if (course && cost(f, course) < cost(f, from)) {
        // The runner's last fix of the message, against the course point of the row's distance: a count < 0 says so.
        nums[0] = -list.length;
        from = course;
      }
      nums.push((t - fixTimeRef(ref, I, base)) / 1000, f[1] - from[0], f[2] - from[1]);
      if (!ref || t > ref[0]) baseline.newestFix.set(id, f);
    });
    fixesOf.set(id, nums);
  }
  let lastId = 0;

  const L = leaderM(rows);
  const LP = leaderPace(rows);
  // The leader's progress: a new leader's whole curve, or the points added since.
  let LC: number[] | undefined;
  let LA: number[] | undefined;
  const curve = curveFor(rows, progressOf);
  if (curve) {
    const held = baseline.leader;
    const n = held?.t.length ?? 0;
    if (
      held &&
      held.id === curve.id &&
      curve.t.length >= n &&
      (n === 0 || (curve.t[n - 1] === held.t[n - 1] && curve.m[n - 1] === held.m[n - 1]))
    ) {
      if (curve.t.length > n) {
        LA = [];
        for (let i = n; i < curve.t.length; i++)
          LA.push(curve.t[i] - (i ? curve.t[i - 1] : 0), curve.m[i] - (i ? curve.m[i - 1] : 0));
      }
    } else LC = curveWire(curve);
    baseline.leader = curve;
  }
  const P: (number | string | null)[][] = [];
  const Undef: number[] = [];
  const Null: number[] = [];
  // The fixes: first those of the patched rows, in their order (no RunnerId again), then the other runners'.
  const F: number[] = [];
  if (fixesOf.size) {
    for (const row of changed) {
      F.push(...(fixesOf.get(row.RunnerId) ?? [0]));
      fixesOf.delete(row.RunnerId);
    }
    for (const id of [...fixesOf.keys()].sort((a, b) => a - b)) {
      F.push(id - lastId, ...fixesOf.get(id)!);
      lastId = id;
    }
  }
  lastId = 0;
  let lastNull = 0;
  /** Rows whose metre changed, with their newest fix's time (inferRanks). */
  const moved = new Map<number, number>();
  for (const row of changed) {
    const prev = baseline.rows.get(row.RunnerId) as Record<string, unknown> | undefined;
    const next = row as unknown as Record<string, unknown>;
    const newest = baseline.newestFix.get(row.RunnerId);
    const fromFix =
      newest !== undefined &&
      row.LastPingTime !== null &&
      Date.parse(row.LastPingTime) === newest[0] &&
      row.Latitude !== null &&
      row.Longitude !== null &&
      Math.round(row.Latitude * LATLON) === newest[1] &&
      Math.round(row.Longitude * LATLON) === newest[2];
    let mask = 0;
    let nulls = 0;
    const moving = fromFix && prev !== undefined && prev.DistanceKm !== row.DistanceKm;
    const values: (number | string | null)[] = [];
    const fixMs = baseline.newestFix.get(row.RunnerId)?.[0];
    const pred: Prediction = {
      dtMs: predictionDt(prev?.LastPingTime, fixMs),
      leaderPace: LP,
      fixMs,
      curve: baseline.leader,
    };
    FIELDS.forEach(([name, kind, scale], i) => {
      if (name === FROM_FIX) return;
      const a = prev?.[name];
      const b = next[name];
      if (kind === 'elapsed' && ctx.startMs !== null && a != null && b != null) {
        // An elapsed time the viewer holds: implied when it is the race clock now (a runner on the course), sent
        // otherwise, changed or not.
        const rel = toInt(kind, scale, b, ctx)!;
        if (rel !== 0) {
          mask += bit(i);
          values.push(rel);
        }
        return;
      }
      if (name === 'Percent' && C !== undefined && a != null && b != null && next.DistanceKm != null) {
        // A percentage the viewer holds: implied when it is the distance's share of the course, sent otherwise.
        const rel = toInt(kind, scale, b, ctx)! - impliedPercent(next.DistanceKm as number, C);
        if (rel !== 0) {
          mask += bit(i);
          values.push(rel);
        }
        return;
      }
      if (name === 'GapKm' && L !== undefined && a != null && b != null && next.DistanceKm != null) {
        // A gap the viewer holds: implied when it is the leader's distance less the row's, sent otherwise.
        const rel = toInt(kind, scale, b, ctx)! - reference(name, kind, scale, a, next, L, ctx, prev, pred);
        if (rel !== 0) {
          mask += bit(i);
          values.push(rel);
        }
        return;
      }
      if (name === 'Rank') {
        // The rank itself is worked out by the viewer (inferRanks); a patch says only that the row now has one.
        if (b === null) {
          if (!prev || a !== null) nulls += bit(i);
        } else if (!prev || a === null || a === undefined) {
          mask += bit(i);
          values.push(0);
        }
        return;
      }
      // A moving runner's row carries these every time, 0 when unchanged: its masks stay a few (which of them changed
      // varied from row to row, and cost more than the zeros; wire-replay on the winding course).
      if (prev && same(kind, scale, a, b, ctx) && !(moving && a != null && SENT_WHEN_MOVING.has(name)))
        return;
      if (b === undefined) {
        if (a !== undefined) Undef.push(row.RunnerId, i);
        return;
      }
      if (b === null) {
        nulls += bit(i);
        return;
      }
      if (fromFix && (name === 'LastPingTime' || name === 'Latitude' || name === 'Longitude')) {
        if (!hasBit(mask, FIX_BIT)) mask += bit(FIX_BIT);
        return;
      }
      mask += bit(i);
      if (!isNumeric(kind)) return void values.push(kind === 'bool' ? (b ? 1 : 0) : (b as string));
      values.push(
        out(kind, toInt(kind, scale, b, ctx)! - reference(name, kind, scale, a, next, L, ctx, prev, pred)),
      );
    });
    P.push([row.RunnerId - lastId, mask, ...values]);
    // The row as the viewer holds it before working out ranks: its rank held (0 when newly ranked).
    const heldRank = prev?.Rank as number | null | undefined;
    const rank = row.Rank === null ? null : heldRank === null || heldRank === undefined ? 0 : heldRank;
    if (nulls) Null.push(row.RunnerId - lastNull, nulls);
    if (nulls) lastNull = row.RunnerId;
    lastId = row.RunnerId;
    noteMoved(moved, prev, row);
    baseline.rows.set(row.RunnerId, { ...row, Rank: rank });
  }

  // Every rank: what the viewer will work out from the rows it then holds, and outright where that is wrong.
  const K: (number | null)[] = [];
  const J: number[] = [];
  const inferred = inferRanks(baseline.rows.values(), moved, P.length > 0);
  const wrong: LeaderboardRow[] = [];
  for (const row of rows) {
    const held = baseline.rows.get(row.RunnerId)!;
    if (inferred.get(row.RunnerId) !== row.Rank) wrong.push(row);
    if (held.Rank !== row.Rank) baseline.rows.set(row.RunnerId, { ...held, Rank: row.Rank });
  }
  // Mostly two runners within a metre the other way round: a rank one off the one worked out, in RunnerId order.
  wrong.sort((a, b) => a.RunnerId - b.RunnerId);
  lastId = 0;
  for (const row of wrong) {
    const guess = inferred.get(row.RunnerId);
    if (row.Rank === null || guess === null || guess === undefined) K.push(row.RunnerId, row.Rank);
    else {
      J.push(row.RunnerId - lastId, row.Rank - guess);
      lastId = row.RunnerId;
    }
  }

  if (!P.length && !K.length && !J.length && !F.length && !Undef.length && !LC && !LA) return null;
  return squeeze({
    Seq: seq,
    At: new Date(atMs).toISOString(),
    P: PI ? ['', ...patchColumns(P).slice(1)] : patchColumns(P),
    ...(PI ? { PI } : {}),
    ...(Undef.length ? { Undef } : {}),
    ...(Null.length ? { Null } : {}),
    ...(L !== undefined ? { L } : {}),
    ...(LP !== undefined && P.length ? { LP } : {}),
    ...((F.length || PI) && I !== 0 ? { I } : {}),
    ...(C !== undefined && P.length ? { C } : {}),
    ...(K.length ? { K } : {}),
    ...(J.length ? { J } : {}),
    ...(F.length ? { F: fixColumns(F, P.length) } : {}),
    ...(LC ? { LC } : {}),
    ...(LA ? { LA } : {}),
  });
}

/**
 * Where a delta's packed integer columns are, in the order they are range-coded (`Z`): P's RunnerIds, the mask
 * indexes, P's value columns, F's four columns, PI's two. `visit` is given each place holding a string (a column).
 */
function deltaColumns(
  d: LiveCompactDelta,
  visit: (get: () => unknown, set: (v: string | number[]) => void) => void,
): void {
  // Decoding puts a column's integers in its place (`unpack` reads an array as it is), typed or not as a string.
  const at = (a: unknown[] | undefined, k: number) => {
    if (a && typeof a[k] === 'string')
      visit(
        () => a[k],
        (v) => (a[k] = v),
      );
  };
  at(d.P, 0);
  if (Array.isArray(d.P[1])) at(d.P[1] as unknown[], 0);
  for (let k = 2; k < d.P.length; k++) at(d.P, k);
  for (let k = 0; k < 4; k++) at(d.F, k);
  at(d.PI, 1);
  at(d.PI, 2);
}

/**
 * A delta with its packed columns range-coded into Z (deflate, which the stream also goes through, codes a column
 * of small differences in about 1.5 times the bits they hold; `range-code.ts`), '' in their places.
 */
function squeeze(d: LiveCompactDelta): LiveCompactDelta {
  const out = structuredCloneDelta(d);
  const columns: number[][] = [];
  deltaColumns(out, (get, set) => {
    columns.push(unpack(get() as string) as number[]);
    set('');
  });
  return columns.length ? { ...out, Z: encodeColumns(columns) } : d;
}

/**
 * The delta as `squeeze` was given it (a delta without Z as it is): its columns packed in their places again, as
 * tools and tests read them.
 */
export const expandCompactDelta = (d: LiveCompactDelta): LiveCompactDelta => unsqueeze(d, true);

/**
 * The delta as `squeeze` was given it (a delta without Z as it is); `packed`: its columns packed again (without,
 * each is its integers, which `unpack` reads as they are).
 */
function unsqueeze(d: LiveCompactDelta, packed = false): LiveCompactDelta {
  if (d.Z === undefined) return d;
  const columns = decodeColumns(d.Z);
  const { Z: _z, ...out } = structuredCloneDelta(d);
  let k = 0;
  deltaColumns(out, (_get, set) => {
    const c = columns[k++] ?? [];
    set(packed ? (pack(c) as string) : c);
  });
  return out;
}

/** The arrays a delta's columns sit in, copied (the rest is shared). */
const structuredCloneDelta = (d: LiveCompactDelta): LiveCompactDelta => ({
  ...d,
  P: d.P.map((c) => (Array.isArray(c) ? [...c] : c)),
  ...(d.F ? { F: [...d.F] } : {}),
  ...(d.PI ? { PI: [...d.PI] as LiveCompactDelta['PI'] } : {}),
});

/*
 * On the wire, patches and fixes go in columns (like values next to like: deflate codes them in fewer bits):
 * P = [RunnerId deltas, masks, then per field bit set in any mask (ascending, the fix bit aside) its values in row
 * order; empty with PI]; F = [the patched rows' counts, their fixes' times, Δlats, Δlons, then the other runners as
 * before]. A column of integers is packed as a string: each value zigzagged (0, −1, 1, −2 … → 0, 1, 2, 3 …) in
 * base-32 digits, low first, a digit of 32 or more saying another follows (−16…15 in one character, most values
 * here: the offsets are metres, seconds, minutes; up to ±511 in two); the masks as indexes into the message's masks
 * (the commonest first) after them. The codec works on rows ([RunnerId delta, mask, values…]) and the fixes
 * interleaved; these convert. On the wire (`?v=5`) a message's packed columns then travel range-coded together in Z
 * (`squeeze`), which spends about a value's information where deflate spent 1.3 times it.
 */

const PACK = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Integers as zigzag base-32 digits (one character for −16…15); a column with anything else stays as it is. */
function pack<T>(values: readonly T[]): string | T[] {
  if (!values.every((v) => Number.isInteger(v))) return [...values];
  let out = '';
  for (const v of values as readonly number[]) {
    let u = v >= 0 ? v * 2 : -v * 2 - 1;
    while (u >= 32) {
      out += PACK[32 + (u % 32)];
      u = Math.floor(u / 32);
    }
    out += PACK[u];
  }
  return out;
}

function unpack<T>(column: string | readonly T[]): (T | number)[] {
  if (typeof column !== 'string') return [...column];
  const out: number[] = [];
  let u = 0;
  let scale = 1;
  for (let i = 0; i < column.length; i++) {
    const k = PACK.indexOf(column[i]);
    if (k >= 32) {
      u += (k - 32) * scale;
      scale *= 32;
      continue;
    }
    u += k * scale;
    out.push(u % 2 === 0 ? u / 2 : -(u + 1) / 2);
    u = 0;
    scale = 1;
  }
  return out;
}

const bitsOf = (mask: number) => {
  const out: number[] = [];
  for (let i = 0; i < FIELDS.length; i++) if (i !== FIX_BIT && hasBit(mask, i)) out.push(i);
  return out;
};

type WireColumn = string | (number | string | null)[];

function patchColumns(rows: readonly (number | string | null)[][]): WireColumn[] {
  if (!rows.length) return [];
  const columns = new Map<number, (number | string | null)[]>();
  for (const row of rows)
    bitsOf(row[1] as number).forEach((b, k) => {
      let c = columns.get(b);
      if (!c) columns.set(b, (c = []));
      c.push(row[2 + k]);
    });
  const masks = rows.map((r) => r[1] as number);
  const count = new Map<number, number>();
  for (const m of masks) count.set(m, (count.get(m) ?? 0) + 1);
  const palette = [...count].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([m]) => m);
  const index = new Map(palette.map((m, i) => [m, i]));
  const used = [...columns].sort((a, b) => a[0] - b[0]).map(([, c]) => pack(c));
  const indexes = pack(masks.map((m) => index.get(m)!)) as string; // integers: always a string
  return [pack(rows.map((r) => r[0])), [indexes, ...palette], ...used];
}

function patchRows(columns: readonly WireColumn[]): (number | string | null)[][] {
  if (!columns.length) return [];
  const ids = unpack(columns[0]);
  const [indexes, ...palette] = columns[1] as (string | number)[];
  const masks = unpack(indexes as string).map((k) => palette[k as number] as number);
  const used = [...new Set(masks.flatMap(bitsOf))].sort((a, b) => a - b);
  const next = new Map(used.map((b) => [b, 0]));
  const column = new Map(used.map((b, k) => [b, unpack(columns[2 + k] ?? [])]));
  return masks.map((mask, r) => [
    ids[r] ?? 0,
    mask,
    ...bitsOf(mask).map((b) => {
      const k = next.get(b)!;
      next.set(b, k + 1);
      return column.get(b)![k];
    }),
  ]);
}

type FixWire = (number | string | number[])[];

function fixColumns(F: readonly number[], patched: number): FixWire {
  const counts: number[] = [];
  const cols: number[][] = [[], [], []];
  let i = 0;
  for (let r = 0; r < patched && i < F.length; r++) {
    const n = F[i++];
    counts.push(n);
    for (let j = 0; j < Math.abs(n); j++, i += 3) cols.forEach((c, k) => c.push(F[i + k]));
  }
  return [pack(counts), ...cols.map((c) => pack(c)), ...F.slice(i)];
}

function fixRows(wire: FixWire, patched: number): number[] {
  if (!wire.length) return [];
  const [counts, times, lats, lons] = wire.slice(0, 4).map((c) => unpack(c as string | number[]) as number[]);
  const out: number[] = [];
  for (let r = 0, j = 0; r < Math.min(patched, counts.length); r++) {
    out.push(counts[r]);
    for (let q = 0; q < Math.abs(counts[r]); q++, j++) out.push(times[j], lats[j], lons[j]);
  }
  return [...out, ...(wire.slice(4) as number[])];
}

/**
 * A delta's patches as rows ([RunnerId − previous, mask, values…]) and its fixes interleaved, as the codec reads
 * them; `ids`: the patched RunnerIds when the delta tells them by who is due (PI, `deltaRunnerIds`).
 */
export function compactDeltaRows(
  d: LiveCompactDelta,
  ids?: readonly number[],
): { P: (number | string | null)[][]; F: number[] } {
  d = unsqueeze(d);
  // With PI, the RunnerIds come from what the viewer holds (`deltaRunnerIds`): without them, each row's is 0.
  const P = patchRows(ids && d.P.length ? [pack(idDeltas(ids)), ...d.P.slice(1)] : d.P);
  return { P, F: fixRows(d.F ?? [], P.length) };
}

/**
 * The runners a message patches, told by what is due: trackers report at a steady interval, so the viewer can tell
 * which runners' fixes a message brings (each runner's newest fix held + the message's interval I, at or before the
 * message's time less a lag) and the server sends only the difference (PI: [lag s, runners due but not patched,
 * runners patched but not due], RunnerIds as differences, packed) when that is shorter than the RunnerIds.
 */
function dueRunners(
  ids: Iterable<number>,
  newestMs: (id: number) => number | undefined,
  I: number,
  atMs: number,
  lagS: number,
): number[] {
  const due: number[] = [];
  for (const id of ids) {
    const t = newestMs(id);
    if (t !== undefined && t + I * 1000 <= atMs - lagS * 1000) due.push(id);
  }
  return due.sort((a, b) => a - b);
}

/** Sorted RunnerIds as differences, and back. */
const idDeltas = (xs: readonly number[]) => xs.map((x, i) => x - (i ? xs[i - 1] : 0));
const fromDeltas = (xs: readonly number[]) => {
  let at = 0;
  return xs.map((x) => (at += x));
};

/** The lags the server tries (s): trackers' fixes arrive a little after their time, satellites' much later. */
const LAGS = [0, 2, 5, 10, 30, 60];

function patchedIdsWire(
  ids: readonly number[],
  held: Iterable<number>,
  newestMs: (id: number) => number | undefined,
  I: number,
  atMs: number,
): [number, string, string] | null {
  if (!I || !ids.length) return null;
  const heldIds = [...held];
  let best: [number, string, string] | null = null;
  let bestLen = (pack(idDeltas(ids)) as string).length;
  const patched = new Set(ids);
  for (const lag of LAGS) {
    const due = dueRunners(heldIds, newestMs, I, atMs, lag);
    const dueSet = new Set(due);
    const misses = pack(idDeltas(due.filter((x) => !patched.has(x)))) as string;
    const extras = pack(idDeltas(ids.filter((x) => !dueSet.has(x)))) as string;
    if (misses.length + extras.length < bestLen) {
      bestLen = misses.length + extras.length;
      best = [lag, misses, extras];
    }
  }
  return best;
}

/** The RunnerIds a delta patches, in order: from P, or with PI from the rows and newest fixes the viewer holds. */
export function deltaRunnerIds(
  d: LiveCompactDelta,
  rows: ReadonlyMap<number, unknown>,
  newestFix: (runnerId: number) => TrailPoint | undefined,
): number[] {
  d = unsqueeze(d);
  if (d.PI) return patchedIdsFrom(d.PI, rows.keys(), (id) => newestFix(id)?.[0], d.I ?? 0, Date.parse(d.At));
  return fromDeltas(patchRows(d.P).map((p) => p[0] as number));
}

/** The RunnerIds a delta with PI patches, from what the viewer holds (sorted). */
function patchedIdsFrom(
  pi: readonly [number, string, string],
  held: Iterable<number>,
  newestMs: (id: number) => number | undefined,
  I: number,
  atMs: number,
): number[] {
  const misses = new Set(fromDeltas(unpack(pi[1]) as number[]));
  const extras = fromDeltas(unpack(pi[2]) as number[]);
  const due = dueRunners(held, newestMs, I, atMs, pi[0]).filter((x) => !misses.has(x));
  return [...due, ...extras].sort((a, b) => a - b);
}

/**
 * What the viewer predicts a patched row's values from (both sides hold the same inputs): the time from the row's
 * last ping held to the runner's newest fix once this message's fixes are in, that fix's time, the leader's pace
 * (`LP`) and the leader's progress (`LeaderCurve`).
 */
interface Prediction {
  dtMs: number;
  leaderPace: number | undefined;
  /** The runner's newest fix time once this message's fixes are in (ms), and the leader's progress. */
  fixMs?: number;
  curve?: LeaderCurve | null;
}

const NO_PREDICTION: Prediction = { dtMs: 0, leaderPace: undefined };

function predictionDt(heldPing: unknown, newestFixMs: number | undefined): number {
  if (typeof heldPing !== 'string' || newestFixMs === undefined) return 0;
  return Math.max(0, newestFixMs - Date.parse(heldPing));
}

/** The leader's pace (s/km, whole): the first ranked row's, what a gap moves by per metre gained. */
function leaderPace(rows: Iterable<LeaderboardRow>): number | undefined {
  const pace = leaderRow(rows)?.PaceSecondsPerKm;
  return pace !== null && pace !== undefined && pace > 0 ? Math.round(pace) : undefined;
}

/**
 * The seconds a message's fixes travel against: each runner's newest fix held plus `I` (the commonest whole-second
 * interval since it among the message's fixes: trackers report at a steady interval, so most fix times then
 * travel as 0); a runner with no fix held, against the message's time.
 */
function fixInterval(
  byRunner: ReadonlyMap<number, readonly (readonly [number, number, number, number])[]>,
  newestFix: ReadonlyMap<number, FixRef>,
): number {
  const counts = new Map<number, number>();
  let best = 0;
  let bestN = 0;
  for (const [id, list] of byRunner) {
    const ref = newestFix.get(id);
    if (!ref || !list.length) continue;
    const s = Math.round((list[0][1] - ref[0]) / 1000);
    const n = (counts.get(s) ?? 0) + 1;
    counts.set(s, n);
    if (n > bestN || (n === bestN && s < best)) [best, bestN] = [s, n];
  }
  return best;
}

const fixTimeRef = (ref: FixRef | undefined, I: number, base: number) => (ref ? ref[0] + I * 1000 : base);

/**
 * What a patched number travels against (its value is the difference): for GapKm, leader − DistanceKm when the
 * message gives the leader's distance; for elapsed time, the race clock (in `toInt`); for DistanceKm, the distance
 * held moved on at the pace held for the time since the last ping held (a runner keeps roughly their pace: the
 * difference is metres, not hundreds); for GapSeconds, the gap held plus that time less what the leader's pace
 * (`LP`) took over the metres gained; otherwise the value the viewer holds, else the row's anchor, else nothing.
 * `row`: the new row (its anchors and DistanceKm already set); `heldRow`: the row as the viewer holds it.
 */
function reference(
  name: string,
  kind: Kind,
  scale: number,
  held: unknown,
  row: Record<string, unknown>,
  L: number | undefined,
  ctx: Ctx,
  heldRow?: Record<string, unknown>,
  pred: Prediction = NO_PREDICTION,
): number {
  if (kind === 'elapsed') return 0;
  if (name === 'GapKm' && L !== undefined && row.DistanceKm != null)
    return L - Math.round((row.DistanceKm as number) * 1000);
  const h = held === null || held === undefined ? null : toInt(kind, scale, held, ctx);
  const anchor = ANCHOR[name as Field];
  if (h !== null && kind === 'min' && anchor && heldRow?.[anchor] != null && row[anchor] != null) {
    // An ETA's earliest or latest: where it was, moved as the ETA moved (the range's width changes slowly; the ETA's
    // own news is already in). On the winding bench course this halves what the ranges cost.
    const a0 = toInt(kind, scale, heldRow[anchor], ctx)!;
    const a1 = toInt(kind, scale, row[anchor], ctx)!;
    const ping = heldRow.LastPingTime;
    if (anchor === 'EtaFinish' && typeof ping === 'string' && pred.fixMs !== undefined) {
      // To the finish, the range's width shrinks with the time left (it is the pace's spread over what remains):
      // the width held × time left now / time left then (0.6 KB less per cycle on the winding course than moving it
      // unchanged; to the next aid station, whose range restarts at each, it did not help).
      // (The ETAs as the viewer holds them: whole minutes.)
      const minute0 = Math.floor(ctx.atMs / MINUTE);
      const leftThen = (a0 + minute0) * MINUTE - Date.parse(ping);
      const leftNow = (a1 + minute0) * MINUTE - pred.fixMs;
      if (leftThen > 0 && leftNow > 0) return a1 + Math.round(((h - a0) * leftNow) / leftThen);
    }
    return h + a1 - a0;
  }
  if (
    name === 'PaceSecondsPerKm' &&
    pred.fixMs !== undefined &&
    ctx.startMs !== null &&
    typeof row.DistanceKm === 'number' &&
    row.DistanceKm > 0
  ) {
    // The average pace: the race time at the newest fix over the distance (matching.ts), whole seconds.
    return Math.round((pred.fixMs - ctx.startMs) / Math.round(row.DistanceKm * 1000));
  }
  if (name === 'GapSeconds' && pred.curve && pred.fixMs !== undefined && typeof row.DistanceKm === 'number') {
    // The time since the leader passed the row's distance, at the runner's newest fix.
    const theirs = leaderTimeAt(pred.curve, Math.round(row.DistanceKm * 1000));
    if (theirs !== null) return Math.max(0, Math.round(pred.fixMs / 1000 - theirs));
  }
  if (h !== null && pred.dtMs > 0) {
    // The pace as the viewer holds it (whole seconds; the server's baseline keeps the row as given).
    const pace = typeof heldRow?.PaceSecondsPerKm === 'number' ? Math.round(heldRow.PaceSecondsPerKm) : 0;
    if (name === 'DistanceKm' && pace > 0) return h + Math.round(pred.dtMs / pace);
    const d0 = heldRow?.DistanceKm;
    const d1 = row.DistanceKm;
    if (
      name === 'GapSeconds' &&
      pred.leaderPace !== undefined &&
      typeof d0 === 'number' &&
      typeof d1 === 'number'
    ) {
      const gainedM = Math.round(d1 * 1000) - Math.round(d0 * 1000);
      return h + Math.round(pred.dtMs / 1000 - (gainedM * pred.leaderPace) / 1000);
    }
  }
  return h ?? anchorInt(name, row, ctx) ?? 0;
}

/**
 * The delta as the first stream's update, against what the viewer holds: its rows, each runner's newest fix (the
 * last point of its trail) and the race clock's start (the snapshot's ClockStartedAt).
 */
export function decodeCompactDelta(
  d: LiveCompactDelta,
  rows: ReadonlyMap<number, LeaderboardRow>,
  newestFix: (runnerId: number) => TrailPoint | undefined,
  clockStartedAt: string | null = null,
  line: CourseLine | null = null,
  leader: LeaderCurve | null = null,
): LiveUpdate {
  d = unsqueeze(d);
  const curve = applyLeaderCurve(leader, d);
  const atMs = Date.parse(d.At);
  const ctx: Ctx = { atMs, startMs: clockStartedAt === null ? null : Date.parse(clockStartedAt) };
  const base = Math.floor(atMs / 1000) * 1000;
  const Fixes: LiveUpdate['Fixes'] = [];
  const newest = new Map<number, FixRef>();
  const refOf = (id: number) => {
    if (!newest.has(id)) {
      const p = newestFix(id);
      if (p) newest.set(id, fixRefOf(p));
    }
    return newest.get(id);
  };
  const { P, F } = compactDeltaRows(d, d.PI ? deltaRunnerIds(d, rows, newestFix) : undefined);
  const I = d.I ?? 0;
  let id = 0;
  // The patched rows' fixes first (in their order), then the other runners' with their RunnerId.
  const patchedIds = P.map((p) => (id += p[0] as number));
  let i = 0;
  /** A fix against the course point of its row's distance: placed once the row's distance is decoded. */
  const onCourse = new Map<number, { at: number; t: number; dLat: number; dLon: number }>();
  const readFixes = (runnerId: number, count: number) => {
    const n = Math.abs(count);
    for (let j = 0; j < n; j++, i += 3) {
      const ref = refOf(runnerId);
      const t = fixTimeRef(ref, I, base) + Math.round(F[i] * 1000);
      if (count < 0 && j === n - 1) {
        onCourse.set(runnerId, { at: Fixes.length, t, dLat: F[i + 1], dLon: F[i + 2] });
        Fixes.push([runnerId, t, 0, 0]);
        if (!ref || t > ref[0]) newest.set(runnerId, [t, NaN, NaN]);
        continue;
      }
      const f: FixRef = [t, (ref?.[1] ?? 0) + F[i + 1], (ref?.[2] ?? 0) + F[i + 2]];
      Fixes.push([runnerId, f[0], f[1] / LATLON, f[2] / LATLON]);
      if (!ref || f[0] > ref[0]) newest.set(runnerId, f);
    }
  };
  for (const runnerId of patchedIds) {
    if (i >= F.length) break;
    readFixes(runnerId, F[i++]);
  }
  for (id = 0; i < F.length;) {
    id += F[i];
    const n = F[i + 1];
    i += 2;
    readFixes(id, n);
  }

  const pairs = (list: readonly (number | null)[] | undefined) => {
    const m = new Map<number, (number | null)[]>();
    for (let i = 0; list && i + 1 < list.length; i += 2) {
      const l = m.get(list[i]!) ?? [];
      l.push(list[i + 1]);
      m.set(list[i]!, l);
    }
    return m;
  };
  const undef = pairs(d.Undef);
  const nulls = new Map<number, number>();
  for (let i = 0, nid = 0; d.Null && i + 1 < d.Null.length; i += 2)
    nulls.set((nid += d.Null[i]), d.Null[i + 1]);
  const Rows: LeaderboardRow[] = [];
  id = 0;
  for (const p of P) {
    id += p[0] as number;
    const mask = p[1] as number;
    const prev = rows.get(id) as Record<string, unknown> | undefined;
    const row: Record<string, unknown> = { ...(prev ?? {}), RunnerId: id };
    // Once the row's distance is decoded: its fix placed against the course, then what the row takes from its fix.
    const placeFix = () => {
      const c = onCourse.get(id);
      if (c && line && row.DistanceKm != null) {
        const p = pointOnLine(line, Math.round((row.DistanceKm as number) * 1000));
        const f: FixRef = [c.t, p[0] + c.dLat, p[1] + c.dLon];
        Fixes[c.at] = [id, f[0], f[1] / LATLON, f[2] / LATLON];
        if (newest.get(id)?.[0] === c.t) newest.set(id, f);
      }
      if (hasBit(mask, FIX_BIT)) {
        const f = refOf(id);
        if (f) {
          row.LastPingTime = new Date(f[0]).toISOString();
          row.Latitude = f[1] / LATLON;
          row.Longitude = f[2] / LATLON;
        }
      }
    };
    const nullMask = nulls.get(id) ?? 0;
    const fixMs = refOf(id)?.[0];
    const pred: Prediction = {
      dtMs: predictionDt(prev?.LastPingTime, fixMs),
      leaderPace: d.LP,
      fixMs,
      curve,
    };
    let k = 2;
    FIELDS.forEach(([name, kind, scale], i) => {
      if (i === 1) placeFix(); // DistanceKm (field 0) is decoded
      if (name === FROM_FIX) return;
      if (hasBit(nullMask, i)) return void (row[name] = null);
      if (!hasBit(mask, i)) {
        // A held elapsed time not sent is the race clock now.
        if (kind === 'elapsed' && ctx.startMs !== null && prev?.[name] != null) row[name] = clockSeconds(ctx);
        if (name === 'Percent' && d.C !== undefined && prev?.[name] != null && row.DistanceKm != null)
          row[name] = impliedPercent(row.DistanceKm as number, d.C) / scale;
        // A held gap in km not sent is the leader's distance less the row's.
        if (name === 'GapKm' && d.L !== undefined && prev?.[name] != null && row.DistanceKm != null)
          row[name] = fromInt(kind, scale, reference(name, kind, scale, null, row, d.L, ctx), ctx);
        return;
      }
      const v = p[k++];
      if (name === 'Percent' && d.C !== undefined && prev?.[name] != null && row.DistanceKm != null)
        return void (row[name] = (impliedPercent(row.DistanceKm as number, d.C) + (v as number)) / scale);
      if (name === 'Rank') return void (row.Rank = 0); // ranked: the rank is worked out below
      if (!isNumeric(kind)) return void (row[name] = kind === 'bool' ? v === 1 : v);
      const n =
        back(kind, v as number) + reference(name, kind, scale, prev?.[name], row, d.L, ctx, prev, pred);
      row[name] = fromInt(kind, scale, n, ctx);
    });
    for (const i of undef.get(id) ?? []) delete row[FIELDS[i!][0]];
    Rows.push(row as LeaderboardRow);
  }

  // Every rank from the rows the viewer now holds, then the ones sent outright.
  const view = new Map(rows);
  const moved = new Map<number, number>();
  for (const row of Rows) {
    noteMoved(moved, rows.get(row.RunnerId), row);
    view.set(row.RunnerId, row);
  }
  const ranks = inferRanks(view.values(), moved, P.length > 0);
  for (let i = 0, jid = 0; d.J && i + 1 < d.J.length; i += 2) {
    jid += d.J[i];
    ranks.set(jid, (ranks.get(jid) ?? 0) + d.J[i + 1]);
  }
  for (const [runnerId, [rank]] of pairs(d.K)) ranks.set(runnerId, rank);
  const patched = new Set<number>();
  for (const row of Rows) {
    patched.add(row.RunnerId);
    if (ranks.has(row.RunnerId)) row.Rank = ranks.get(row.RunnerId)!;
  }
  const Ranks: LiveUpdate['Ranks'] = [];
  for (const [runnerId, rank] of ranks) {
    if (!patched.has(runnerId) && rank !== rows.get(runnerId)?.Rank) Ranks.push([runnerId, rank]);
  }
  return { Seq: d.Seq, At: d.At, Rows, Ranks, Fixes };
}
