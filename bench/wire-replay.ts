/**
 * Replays a compact stream kept by the wire bench (`WIRE_DUMP=<file>`) through the codec as it is now: decodes the
 * dump's snapshot and deltas into what its viewer held after each message, then encodes the same states again and
 * prints the bytes (deflated as the server sends them: the snapshot alone, the deltas in one DeflateChain). A codec
 * change is measured in seconds on the same race instead of a five-minute bench run, and checked: every message
 * re-encoded must decode to the same rows, ranks and fixes.
 *
 *   node --import tsx bench/wire-replay.ts /tmp/winding.txt
 *
 * A dump made before a codec change is read with the codec it was made with: WIRE_REPLAY_CODEC=<module> (a copy of
 * that commit's live-codec.ts, its imports pointed at packages/domain/src). TRAIL_POINTS=<n> keeps each snapshot
 * trail's newest n points. Only the wire bench's dumps are read; nothing here runs in `npm test` or `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  applyLeaderCurve,
  compactBaseline,
  compactDeltaRows,
  compactView,
  courseLine,
  decodeCompactDelta,
  decodeCompactSnapshot,
  encodeCompactDelta,
  encodeCompactSnapshot,
  leaderCurveOf,
  type LeaderCurve,
  type LeaderboardRow,
  type LiveCompactDelta,
  type LiveCompactSnapshot,
  type LiveUpdate,
  type TrailPoint,
} from '@racebeacon/domain';
import { chainedPiece, DeflateChain } from '../apps/server/src/live/sse-compression';
import { encodeSseMessage } from '../apps/server/src/live/sse-hub';
import { deflated, sseMessages } from './sse-text';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/**
 * The codec the dump was made with decodes it (WIRE_REPLAY_CODEC: a module path, by default this one): a codec change
 * decodes an older dump wrongly, and the states replayed must be the race's.
 */
const old = (
  process.env.WIRE_REPLAY_CODEC
    ? await import(path.resolve(process.env.WIRE_REPLAY_CODEC))
    : { decodeCompactDelta, decodeCompactSnapshot, courseLine, leaderCurveOf, applyLeaderCurve }
) as {
  decodeCompactDelta: typeof decodeCompactDelta;
  decodeCompactSnapshot: typeof decodeCompactSnapshot;
  courseLine: typeof courseLine;
  leaderCurveOf?: typeof leaderCurveOf;
  applyLeaderCurve?: typeof applyLeaderCurve;
};

/** The leader's progress as a curve gives it (whole seconds and metres: the codec makes the same curve of it). */
const progressFrom = (curve: LeaderCurve | null) => (id: number) =>
  curve && curve.id === id ? curve.t.map((t, i) => ({ t: t * 1000, distanceM: curve.m[i] })) : null;

/** What a viewer does with a decoded delta: rows replaced, ranks set, newer fixes appended to the trails. */
function applyUpdate(
  rows: Map<number, LeaderboardRow>,
  trails: Map<number, TrailPoint[]>,
  u: LiveUpdate,
): void {
  for (const r of u.Rows) rows.set(r.RunnerId, r);
  for (const [id, rank] of u.Ranks) rows.set(id, { ...rows.get(id)!, Rank: rank });
  for (const [id, t, lat, lon] of u.Fixes) {
    const trail = trails.get(id) ?? [];
    if (!trail.length || trail.at(-1)![0] < t) trail.push([t, lat, lon]);
    trails.set(id, trail);
  }
}

/** What the viewer of the dump held after each message: rows, trails, and each delta's fixes. */
function replayDump(text: string) {
  const [snap] = sseMessages(text, 'snap') as LiveCompactSnapshot[];
  const deltas = sseMessages(text, 'delta') as LiveCompactDelta[];
  const first = old.decodeCompactSnapshot(snap);
  const line = old.courseLine(snap.Line);
  const rows = new Map(first.Rows.map((r) => [r.RunnerId, r]));
  const trails = new Map(first.Trails.map((t) => [t.RunnerId, [...t.Trail]]));
  const steps: {
    delta: LiveCompactDelta;
    rows: LeaderboardRow[];
    fixes: [number, number, number, number][];
    curve: LeaderCurve | null;
  }[] = [];
  const firstCurve = old.leaderCurveOf?.(snap) ?? null;
  let curve = firstCurve;
  for (const d of deltas) {
    const u = old.decodeCompactDelta(
      d,
      rows,
      (id) => trails.get(id)?.at(-1),
      snap.ClockStartedAt,
      line,
      curve,
    );
    curve = old.applyLeaderCurve?.(curve, d) ?? null;
    applyUpdate(rows, trails, u);
    steps.push({
      delta: d,
      rows: [...rows.values()].map((r) => ({ ...r })),
      fixes: u.Fixes.map((f) => [...f]),
      curve,
    });
  }
  return { snap, first, line, steps, firstCurve };
}

const text = readFileSync(process.argv[2], 'utf8');
const { snap, first, line, steps, firstCurve } = replayDump(text);
const cycleMs = Number(process.env.CYCLE_S ?? 150) * 1000;
const lastAt = Date.parse(steps.at(-1)!.delta.At);

// The snapshot, again.
const keep = Number(process.env.TRAIL_POINTS ?? 1000);
const trailMap = new Map<number, TrailPoint[]>(first.Trails.map((t) => [t.RunnerId, t.Trail.slice(-keep)]));
const again = encodeCompactSnapshot(
  {
    Seq: snap.Seq,
    RaceId: snap.RaceId,
    ClockStartedAt: snap.ClockStartedAt,
    ClockStoppedAt: snap.ClockStoppedAt,
    HasCourse: snap.HasCourse,
  },
  first.Rows,
  trailMap,
  Date.parse(snap.At),
  snap.Line,
  firstCurve ?? undefined,
);
const snapOld = deflated(`event: snap\ndata: ${JSON.stringify(snap)}\n\n`);
const snapNew = deflated(`event: snap\ndata: ${JSON.stringify(again)}\n\n`);
const parts = (s: LiveCompactSnapshot) =>
  [
    ...Object.entries(s.Cols).map(([k, v]): [string, number] => [k, deflated(JSON.stringify(v))]),
    ['Trails', deflated(JSON.stringify(s.Trails))] as [string, number],
    ['Line', deflated(JSON.stringify(s.Line ?? []))] as [string, number],
    ...(s.CT ?? []).map((c, i): [string, number] => [`CT${i}`, deflated(JSON.stringify(c))]),
  ]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([k, n]) => `${k} ${kb(n)}`)
    .join(', ');
console.log(`snapshot: dump ${kb(snapOld)} → now ${kb(snapNew)}`);
console.log(`  now: ${parts(again)}`);
{
  const back = decodeCompactSnapshot(again);
  const a = JSON.stringify(back.Rows);
  const b = JSON.stringify(first.Rows.map(compactView));
  if (a !== b) console.log('  SNAPSHOT ROWS DIFFER');
  const ta = JSON.stringify(back.Trails);
  const tb = JSON.stringify(first.Trails);
  if (ta !== tb) console.log('  snapshot trails differ (expected if the trail precision changed)');
}

// The deltas, again, in one chain; the cycle = the deltas of the last CYCLE_S seconds.
const baseline = compactBaseline(first.Rows, trailMap, progressFrom(firstCurve));
const clockStart = snap.ClockStartedAt === null ? null : Date.parse(snap.ClockStartedAt);
const chainOld = new DeflateChain();
const chainNew = new DeflateChain();
let cycleOld = 0;
let cycleNew = 0;
let bad = 0;
const held = new Map(first.Rows.map((r) => [r.RunnerId, r]));
const heldTrail = new Map(first.Trails.map((t) => [t.RunnerId, [...t.Trail]]));
const newDeltas: LiveCompactDelta[] = [];
let heldCurve: LeaderCurve | null = baseline.leader ?? null;
/** MERGE=n: encode every n-th state only (the fixes of the ones between with it), as a longer batch would. */
const merge = Number(process.env.MERGE ?? 1);
let pendingFixes: [number, number, number, number][] = [];
for (const [k, s] of steps.entries()) {
  const at = Date.parse(s.delta.At);
  pendingFixes.push(...s.fixes);
  const skip = merge > 1 && (k + 1) % merge !== 0 && k !== steps.length - 1;
  const oldMsgSkipped = encodeSseMessage('delta', JSON.stringify(s.delta), `1.${k}`);
  if (skip) {
    chainOld.add(oldMsgSkipped);
    if (at > lastAt - cycleMs) cycleOld += chainedPiece(oldMsgSkipped)!.length;
    continue;
  }
  const fixesNow = pendingFixes;
  pendingFixes = [];
  const d = encodeCompactDelta(
    baseline,
    s.rows,
    fixesNow,
    s.delta.Seq,
    at,
    clockStart,
    s.delta.C ?? null,
    line,
    progressFrom(s.curve),
  );
  const oldMsg = encodeSseMessage('delta', JSON.stringify(s.delta), `1.${k}`);
  chainOld.add(oldMsg);
  const inCycle = at > lastAt - cycleMs;
  if (inCycle) cycleOld += chainedPiece(oldMsg)!.length;
  if (!d) continue;
  newDeltas.push(d);
  const newMsg = encodeSseMessage('delta', JSON.stringify(d), `1.${k}`);
  chainNew.add(newMsg);
  if (inCycle) cycleNew += chainedPiece(newMsg)!.length;
  // Check: the new delta decodes to the same state.
  const u = decodeCompactDelta(
    d,
    held,
    (id) => heldTrail.get(id)?.at(-1),
    snap.ClockStartedAt,
    line,
    heldCurve,
  );
  heldCurve = applyLeaderCurve(heldCurve, d);
  applyUpdate(held, heldTrail, u);
  for (const r of s.rows) {
    const h = held.get(r.RunnerId);
    if (JSON.stringify(sortKeys(compactView(h!))) !== JSON.stringify(sortKeys(compactView(r)))) {
      if (bad++ < 3)
        console.log('  MISMATCH', JSON.stringify(sortKeys(h)), '\n  want', JSON.stringify(sortKeys(r)));
    }
  }
}
function sortKeys(o: unknown) {
  return o && typeof o === 'object'
    ? Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)))
    : o;
}
console.log(
  `deltas: ${steps.length} messages; the last ${cycleMs / 1000} s (one cycle): dump ${kb(cycleOld)} → now ${kb(cycleNew)}${bad ? `; ${bad} ROWS WRONG` : '; every row checked'}`,
);
// Where the new deltas' bytes are, in the cycle (each part deflated alone).
const cyc = newDeltas.filter((d) => Date.parse(d.At) > lastAt - cycleMs);
const part = (f: (d: LiveCompactDelta) => unknown) =>
  deflated(cyc.map((d) => (f(d) === undefined ? '' : JSON.stringify(f(d)))).join(''));
console.log(
  `  range-coded columns (Z) ${kb(cyc.reduce((n, d) => n + (d.Z?.length ?? 0) * 0.75, 0))}; the rest of the messages, each part deflated alone: ${Object.keys(
    Object.assign({}, ...cyc),
  )
    .filter((k) => k !== 'Z')
    .map((k) => `${k} ${kb(part((d) => (d as Record<string, unknown>)[k]))}`)
    .join(', ')}`,
);
console.log(
  `  parts: P ${kb(part((d) => d.P))} (ids ${kb(part((d) => d.P[0]))}, masks ${kb(part((d) => d.P[1]))}), F ${kb(part((d) => d.F))}, J/K ${kb(part((d) => [d.J, d.K]))}`,
);
const byBit = new Map<number, number>();
for (const d of cyc) {
  const rows = compactDeltaRows(d).P;
  const used = [
    ...new Set(
      rows.flatMap((p) =>
        [...Array(40).keys()].filter((i) => i !== 6 && Math.floor((p[1] as number) / 2 ** i) % 2),
      ),
    ),
  ].sort((a, b) => a - b);
  used.forEach((b, k) => byBit.set(b, (byBit.get(b) ?? 0) + deflated(JSON.stringify(d.P[2 + k]))));
}
console.log(
  `  P columns by field bit (KB): ${[...byBit]
    .sort((a, b) => a[0] - b[0])
    .map(([b, n]) => `${b}:${(n / 1024).toFixed(1)}`)
    .join(' ')}`,
);
if (process.env.SHOW_BIT) {
  const want = Number(process.env.SHOW_BIT);
  const vals: unknown[] = [];
  for (const d of cyc)
    for (const p of compactDeltaRows(d).P) {
      const bits = [...Array(40).keys()].filter((i) => i !== 6 && Math.floor((p[1] as number) / 2 ** i) % 2);
      const k = bits.indexOf(want);
      if (k >= 0) vals.push(p[2 + k]);
    }
  const h = new Map<unknown, number>();
  for (const v of vals) h.set(v, (h.get(v) ?? 0) + 1);
  let e = 0;
  for (const n of h.values()) e -= (n / vals.length) * Math.log2(n / vals.length);
  console.log(
    `bit ${want}: ${vals.length} values, entropy ${e.toFixed(2)} bits; ${vals.slice(0, 40).join(' ')}`,
  );
}
