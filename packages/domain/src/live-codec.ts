import type {
  LeaderboardRow,
  LiveCompactDelta,
  LiveCompactSnapshot,
  LiveSnapshot,
  LiveUpdate,
  TrailPoint,
} from './live-messages';

/**
 * The compact live stream's codec (`…/live?v=2`), one for the server that encodes and the browser that decodes.
 *
 * Every leaderboard field has a kind: a number in fixed units (DistanceKm in metres, Percent in tenths, positions
 * in 1e-5 degrees), an exact time (LastPingTime, FinishTime: seconds with milliseconds), a predicted time (ETAs and
 * their ranges: whole minutes, floored, which is what the page shows), a string or a flag. The snapshot sends one
 * column per field, numbers delta-coded down the column (rows in leaderboard order: neighbours are close); trails
 * as deltas between fixes. A delta message patches only the fields that changed, numbers as the difference from what
 * the viewer holds; a row's position and last-ping time come from its newest fix when they are that fix; ranks that
 * shift because someone passed travel as ranges of old ranks; fixes as differences from the runner's newest fix.
 *
 * The server keeps a `CompactBaseline`: each row exactly as its viewers hold it, and each runner's newest fix sent.
 * The encoder patches a row when a field watched for viewers changed (the same fields that re-send a row on the
 * first stream); the fields that move with the clock (elapsed time, gaps, a silent runner's estimate) ride along
 * with the next patch. `compactView` is a row as a viewer of the compact stream holds it.
 */

type Kind = 'num' | 'ms' | 'min' | 'str' | 'bool';
type Field = Exclude<keyof LeaderboardRow, 'RunnerId'>;

/** Patch fields in bit order (the most often patched first, so the bit masks stay short). */
const FIELDS: readonly (readonly [Field | typeof FROM_FIX, Kind, number])[] = [
  ['DistanceKm', 'num', 1000],
  ['Percent', 'num', 10],
  ['PaceSecondsPerKm', 'num', 1],
  ['EtaFinish', 'min', 1],
  ['EtaFinishEarliest', 'min', 1],
  ['EtaFinishLatest', 'min', 1],
  ['ElapsedSeconds', 'num', 1],
  ['GapSeconds', 'num', 1],
  ['GapKm', 'num', 1000],
  ['Rank', 'num', 1],
  // LastPingTime, Latitude and Longitude are the runner's newest fix (sent in F).
  ['~fix', 'num', 1],
  ['LastPingTime', 'ms', 1],
  ['Latitude', 'num', 1e5],
  ['Longitude', 'num', 1e5],
  ['EtaNextWaypoint', 'min', 1],
  ['EtaNextWaypointEarliest', 'min', 1],
  ['EtaNextWaypointLatest', 'min', 1],
  ['Status', 'str', 1],
  ['NextWaypoint', 'str', 1],
  ['NextWaypointKm', 'num', 1000],
  ['BatteryState', 'str', 1],
  ['EstimatedDistanceKm', 'num', 1000],
  ['EstimatedDistanceKmMin', 'num', 1000],
  ['EstimatedDistanceKmMax', 'num', 1000],
  ['EstimatedAt', 'ms', 1],
  ['EstimatedLatitude', 'num', 1e5],
  ['EstimatedLongitude', 'num', 1e5],
  ['LastCheckpoint', 'str', 1],
  ['LastCheckpointKm', 'num', 1000],
  ['LastCheckpointTime', 'ms', 1],
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

const MINUTE = 60_000;
const LATLON = 1e5;
const bit = (i: number) => 2 ** i;
const hasBit = (mask: number, i: number) => Math.floor(mask / bit(i)) % 2 === 1;

/** The integer a number or time field travels as (times relative to `atMs`); null for null/undefined. */
function toInt(kind: Kind, scale: number, v: unknown, atMs: number): number | null {
  if (v === null || v === undefined) return null;
  if (kind === 'num') return Math.round((v as number) * scale);
  const ms = Date.parse(v as string);
  return kind === 'ms' ? ms - atMs : Math.floor(ms / MINUTE) - Math.floor(atMs / MINUTE);
}

function fromInt(kind: Kind, scale: number, n: number, atMs: number): number | string {
  if (kind === 'num') return n / scale;
  const ms = kind === 'ms' ? n + atMs : (n + Math.floor(atMs / MINUTE)) * MINUTE;
  return new Date(ms).toISOString();
}

/** On the wire: exact times as seconds with milliseconds, every other number as its integer. */
const out = (kind: Kind, n: number) => (kind === 'ms' ? n / 1000 : n);
const back = (kind: Kind, v: number) => (kind === 'ms' ? Math.round(v * 1000) : v);

const isNumeric = (kind: Kind) => kind === 'num' || kind === 'ms' || kind === 'min';

/** A row as the compact stream carries it: positions to 1e-5 degrees, predicted times floored to the minute. */
export function compactView(row: LeaderboardRow): LeaderboardRow {
  const r: Record<string, unknown> = { ...row };
  for (const [name, kind, scale] of ROW_FIELDS) {
    const v = r[name];
    if (v === null || v === undefined) continue;
    if (kind === 'num') r[name] = Math.round((v as number) * scale) / scale;
    else if (kind === 'min')
      r[name] = new Date(Math.floor(Date.parse(v as string) / MINUTE) * MINUTE).toISOString();
  }
  return r as LeaderboardRow;
}

/** A fix as integers: [time ms, lat 1e-5°, lon 1e-5°]. */
type FixRef = [number, number, number];
const fixRefOf = (p: TrailPoint): FixRef => [p[0], Math.round(p[1] * LATLON), Math.round(p[2] * LATLON)];

// ---------------------------------------------------------------- snapshot

export interface CompactSnapshotMeta {
  Seq: number;
  RaceId: number;
  ClockStartedAt: string | null;
  ClockStoppedAt: string | null;
  HasCourse: boolean;
}

/** The whole state: `rows` in leaderboard order, each runner's trail (oldest first). */
export function encodeCompactSnapshot(
  meta: CompactSnapshotMeta,
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
  atMs: number,
): LiveCompactSnapshot {
  const Cols: Record<string, (number | string | null)[]> = {};
  const Undef: Record<string, number[]> = {};
  const columns: readonly (readonly [keyof LeaderboardRow, Kind, number])[] = [
    ['RunnerId', 'num', 1],
    ...ROW_FIELDS,
  ];
  for (const [name, kind, scale] of columns) {
    const col: (number | string | null)[] = [];
    const undef: number[] = [];
    let prev = 0;
    rows.forEach((row, i) => {
      const v = row[name];
      if (v === undefined) undef.push(i);
      if (v === null || v === undefined) return void col.push(null);
      if (isNumeric(kind)) {
        const n = toInt(kind, scale, v, atMs)!;
        col.push(out(kind, n - prev));
        prev = n;
      } else col.push(kind === 'bool' ? (v ? 1 : 0) : (v as string));
    });
    if (undef.length === rows.length && rows.length > 0) continue; // no row has it
    Cols[name] = col;
    if (undef.length) Undef[name] = undef;
  }
  const base = Math.floor(atMs / 1000) * 1000;
  let ref: FixRef = [base, 0, 0];
  const Trails = rows.map((row) => {
    const trail = trails.get(row.RunnerId) ?? [];
    const flat: number[] = [];
    let prev: FixRef | null = null;
    for (const p of trail) {
      const f = fixRefOf(p);
      const from: FixRef = prev ?? ref;
      flat.push((f[0] - from[0]) / 1000, f[1] - from[1], f[2] - from[2]);
      if (!prev) ref = f;
      prev = f;
    }
    return flat;
  });
  return {
    V: 2,
    ...meta,
    At: new Date(atMs).toISOString(),
    N: rows.length,
    Cols,
    ...(Object.keys(Undef).length ? { Undef } : {}),
    Trails,
  };
}

/** The snapshot as the first stream's message (rows and trails as a viewer holds them). */
export function decodeCompactSnapshot(s: LiveCompactSnapshot): LiveSnapshot {
  const atMs = Date.parse(s.At);
  const rows: Record<string, unknown>[] = Array.from({ length: s.N }, () => ({}));
  const columns: readonly (readonly [string, Kind, number])[] = [['RunnerId', 'num', 1], ...ROW_FIELDS];
  for (const [name, kind, scale] of columns) {
    const col = s.Cols[name];
    if (!col) continue;
    const undef = new Set(s.Undef?.[name] ?? []);
    let prev = 0;
    for (let i = 0; i < s.N; i++) {
      if (undef.has(i)) continue;
      const v = col[i];
      if (v === null) {
        rows[i][name] = null;
      } else if (isNumeric(kind)) {
        prev += back(kind, v as number);
        rows[i][name] = fromInt(kind, scale, prev, atMs);
      } else rows[i][name] = kind === 'bool' ? v === 1 : v;
    }
  }
  const base = Math.floor(atMs / 1000) * 1000;
  let ref: FixRef = [base, 0, 0];
  const Trails = s.Trails.map((flat, i) => {
    const Trail: TrailPoint[] = [];
    let prev: FixRef | null = null;
    for (let j = 0; j + 2 < flat.length; j += 3) {
      const from: FixRef = prev ?? ref;
      const f: FixRef = [from[0] + Math.round(flat[j] * 1000), from[1] + flat[j + 1], from[2] + flat[j + 2]];
      Trail.push([f[0], f[1] / LATLON, f[2] / LATLON]);
      if (!prev) ref = f;
      prev = f;
    }
    return { RunnerId: rows[i].RunnerId as number, Trail };
  });
  return {
    Seq: s.Seq,
    At: s.At,
    RaceId: s.RaceId,
    ClockStartedAt: s.ClockStartedAt,
    ClockStoppedAt: s.ClockStoppedAt,
    HasCourse: s.HasCourse,
    Rows: rows as LeaderboardRow[],
    Trails,
  };
}

// ---------------------------------------------------------------- deltas

/** What the compact stream's viewers hold: each row as sent, each runner's newest fix sent. Server side. */
export interface CompactBaseline {
  rows: Map<number, LeaderboardRow>;
  newestFix: Map<number, FixRef>;
}

/** The baseline of a snapshot sent with these rows and trails. */
export function compactBaseline(
  rows: readonly LeaderboardRow[],
  trails: ReadonlyMap<number, readonly TrailPoint[]>,
): CompactBaseline {
  const newestFix = new Map<number, FixRef>();
  for (const [id, trail] of trails) {
    let newest: TrailPoint | undefined;
    for (const p of trail) if (!newest || p[0] > newest[0]) newest = p;
    if (newest) newestFix.set(id, fixRefOf(newest));
  }
  return { rows: new Map(rows.map((r) => [r.RunnerId, r])), newestFix };
}

const same = (kind: Kind, scale: number, a: unknown, b: unknown, atMs: number) =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    (isNumeric(kind) ? toInt(kind, scale, a, atMs) === toInt(kind, scale, b, atMs) : false));

/** Whether a watched field changed, so the row is patched. */
function watchedChange(prev: LeaderboardRow, next: LeaderboardRow, atMs: number): boolean {
  for (const [name, kind, scale] of ROW_FIELDS) {
    if (!WATCHED.has(name)) continue;
    if (!same(kind, scale, prev[name], next[name], atMs)) return true;
  }
  const est = (r: LeaderboardRow) =>
    r.EstimatedDistanceKm == null ? null : Math.floor(r.EstimatedDistanceKm);
  return est(prev) !== est(next);
}

/**
 * The delta from what the baseline's viewers hold to `rows` (the leaderboard now) and the new `fixes`
 * ([RunnerId, time ms, lat, lon], in arrival order); null when nothing changed. Moves the baseline on.
 */
export function encodeCompactDelta(
  baseline: CompactBaseline,
  rows: readonly LeaderboardRow[],
  fixes: readonly (readonly [number, number, number, number])[],
  seq: number,
  atMs: number,
): LiveCompactDelta | null {
  // Fixes, grouped by runner in RunnerId order, each against the runner's newest fix so far.
  const byRunner = new Map<number, (readonly [number, number, number, number])[]>();
  for (const f of fixes) {
    let list = byRunner.get(f[0]);
    if (!list) byRunner.set(f[0], (list = []));
    list.push(f);
  }
  const F: number[] = [];
  const base = Math.floor(atMs / 1000) * 1000;
  let lastId = 0;
  for (const id of [...byRunner.keys()].sort((a, b) => a - b)) {
    const list = byRunner.get(id)!;
    F.push(id - lastId, list.length);
    lastId = id;
    for (const [, t, lat, lon] of list) {
      const f: FixRef = [t, Math.round(lat * LATLON), Math.round(lon * LATLON)];
      const ref = baseline.newestFix.get(id);
      F.push((t - base) / 1000, f[1] - (ref?.[1] ?? 0), f[2] - (ref?.[2] ?? 0));
      if (!ref || t > ref[0]) baseline.newestFix.set(id, f);
    }
  }

  const P: (number | string | null)[][] = [];
  const Undef: number[] = [];
  const rankOnly: { id: number; old: number | null; next: number | null }[] = [];
  const patched = new Set<number>();
  lastId = 0;
  const changed: LeaderboardRow[] = [];
  for (const row of rows) {
    const prev = baseline.rows.get(row.RunnerId);
    if (prev && !watchedChange(prev, row, atMs)) {
      if (prev.Rank !== row.Rank) rankOnly.push({ id: row.RunnerId, old: prev.Rank, next: row.Rank });
      continue;
    }
    changed.push(row);
  }
  changed.sort((a, b) => a.RunnerId - b.RunnerId);
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
    const values: (number | string | null)[] = [];
    FIELDS.forEach(([name, kind, scale], i) => {
      if (name === FROM_FIX) return;
      const a = prev?.[name];
      const b = next[name];
      if (prev && same(kind, scale, a, b, atMs)) return;
      if (b === undefined) {
        if (a !== undefined) Undef.push(row.RunnerId, i);
        return;
      }
      if (fromFix && (name === 'LastPingTime' || name === 'Latitude' || name === 'Longitude')) {
        if (!hasBit(mask, FIX_BIT)) mask += bit(FIX_BIT);
        return;
      }
      mask += bit(i);
      if (b === null) values.push(null);
      else if (isNumeric(kind)) {
        const nb = toInt(kind, scale, b, atMs)!;
        const na = a === null || a === undefined ? null : toInt(kind, scale, a, atMs);
        values.push(out(kind, na === null ? nb : nb - na));
      } else values.push(kind === 'bool' ? (b ? 1 : 0) : (b as string));
    });
    // Values follow the bit order; the fix bit carries none.
    P.push([row.RunnerId - lastId, mask, ...values]);
    lastId = row.RunnerId;
    patched.add(row.RunnerId);
    baseline.rows.set(row.RunnerId, row);
  }

  // Rank shifts: runs of consecutive old ranks moved by the same amount; what a run would get wrong is sent outright.
  rankOnly.sort((a, b) => (a.old ?? Infinity) - (b.old ?? Infinity));
  const R: number[] = [];
  const K: (number | null)[] = [];
  let run: { start: number; end: number; shift: number } | null = null;
  const runs: { start: number; end: number; shift: number }[] = [];
  for (const r of rankOnly) {
    if (r.old === null || r.next === null) continue;
    const shift = r.next - r.old;
    if (run && run.shift === shift && (r.old === run.end || r.old === run.end + 1)) run.end = r.old;
    else runs.push((run = { start: r.old, end: r.old, shift }));
  }
  for (const x of runs) R.push(x.start, x.end - x.start + 1, x.shift);
  const shiftOf = (rank: number | null) => {
    if (rank === null) return 0;
    for (const x of runs) if (rank >= x.start && rank <= x.end) return x.shift;
    return 0;
  };
  for (const row of rows) {
    if (patched.has(row.RunnerId)) continue;
    const prev = baseline.rows.get(row.RunnerId)!;
    const predicted = prev.Rank === null ? null : prev.Rank + shiftOf(prev.Rank);
    if (predicted !== row.Rank) K.push(row.RunnerId, row.Rank);
    if (prev.Rank !== row.Rank) baseline.rows.set(row.RunnerId, { ...prev, Rank: row.Rank });
  }

  if (!P.length && !R.length && !K.length && !F.length && !Undef.length) return null;
  return {
    Seq: seq,
    At: new Date(atMs).toISOString(),
    P,
    ...(Undef.length ? { Undef } : {}),
    ...(R.length ? { R } : {}),
    ...(K.length ? { K } : {}),
    ...(F.length ? { F } : {}),
  };
}

/**
 * The delta as the first stream's update, against what the viewer holds: its rows and each runner's newest fix
 * (the last point of its trail).
 */
export function decodeCompactDelta(
  d: LiveCompactDelta,
  rows: ReadonlyMap<number, LeaderboardRow>,
  newestFix: (runnerId: number) => TrailPoint | undefined,
): LiveUpdate {
  const atMs = Date.parse(d.At);
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
  const F = d.F ?? [];
  let id = 0;
  for (let i = 0; i < F.length;) {
    id += F[i];
    const n = F[i + 1];
    i += 2;
    for (let j = 0; j < n; j++, i += 3) {
      const ref = refOf(id);
      const f: FixRef = [
        base + Math.round(F[i] * 1000),
        (ref?.[1] ?? 0) + F[i + 1],
        (ref?.[2] ?? 0) + F[i + 2],
      ];
      Fixes.push([id, f[0], f[1] / LATLON, f[2] / LATLON]);
      if (!ref || f[0] > ref[0]) newest.set(id, f);
    }
  }

  const Rows: LeaderboardRow[] = [];
  const patched = new Set<number>();
  const undef = new Map<number, number[]>();
  const U = d.Undef ?? [];
  for (let i = 0; i + 1 < U.length; i += 2) {
    const list = undef.get(U[i]) ?? [];
    list.push(U[i + 1]);
    undef.set(U[i], list);
  }
  id = 0;
  for (const p of d.P) {
    id += p[0] as number;
    const mask = p[1] as number;
    const prev = rows.get(id) as Record<string, unknown> | undefined;
    const row: Record<string, unknown> = { ...(prev ?? {}), RunnerId: id };
    let k = 2;
    FIELDS.forEach(([name, kind, scale], i) => {
      if (name === FROM_FIX || !hasBit(mask, i)) return;
      const v = p[k++];
      if (v === null) row[name] = null;
      else if (isNumeric(kind)) {
        const a = prev?.[name];
        const na = a === null || a === undefined ? 0 : toInt(kind, scale, a, atMs)!;
        row[name] = fromInt(kind, scale, na + back(kind, v as number), atMs);
      } else row[name] = kind === 'bool' ? v === 1 : v;
    });
    if (hasBit(mask, FIX_BIT)) {
      const f = refOf(id);
      if (f) {
        row.LastPingTime = new Date(f[0]).toISOString();
        row.Latitude = f[1] / LATLON;
        row.Longitude = f[2] / LATLON;
      }
    }
    for (const i of undef.get(id) ?? []) delete row[FIELDS[i][0]];
    Rows.push(row as LeaderboardRow);
    patched.add(id);
  }

  const Ranks: LiveUpdate['Ranks'] = [];
  const explicit = new Map<number, number | null>();
  const K = d.K ?? [];
  for (let i = 0; i + 1 < K.length; i += 2) explicit.set(K[i]!, K[i + 1]);
  const R = d.R ?? [];
  if (R.length) {
    for (const row of rows.values()) {
      if (patched.has(row.RunnerId) || explicit.has(row.RunnerId) || row.Rank === null) continue;
      for (let i = 0; i + 2 < R.length; i += 3) {
        if (row.Rank >= R[i] && row.Rank < R[i] + R[i + 1]) {
          Ranks.push([row.RunnerId, row.Rank + R[i + 2]]);
          break;
        }
      }
    }
  }
  for (const [runnerId, rank] of explicit) Ranks.push([runnerId, rank]);
  return { Seq: d.Seq, At: d.At, Rows, Ranks, Fixes };
}
