import {
  compactBaseline,
  courseLine,
  encodeCompactDelta,
  encodeCompactSnapshot,
  encodeCourseLine,
  type CompactBaseline,
  type CourseLine,
  type TrailPoint,
} from '@racebeacon/domain';
import type { RaceEntry } from './race-cache';
import type { RaceLive } from './race-live';
import { parseEventId, watermarkOf } from './resume';
import { DeflateChain } from './sse-compression';
import { encodeSseMessage } from './sse-hub';

/**
 * The compact live stream (`…/live?v=4`, issue 15): the viewer's leaderboard and map in a fraction of the bytes of
 * the first stream (the codec and its reasons are the domain's `live-codec.ts`). Per race state, a baseline of what
 * its viewers hold; changes are coalesced for `batchMs` (15 s by default: trackers report every one to ten minutes,
 * and each message costs its own SSE and gzip framing — at 5 s a 2,500-runner race's cycle cost a sixth more),
 * each message serialised once for every viewer (a lone change after a quiet spell goes at once). A snapshot is
 * the baseline itself, taken right after a flush, so the deltas that follow apply to it exactly.
 * Resuming: a Last-Event-ID of this state whose follow-ups are in the ring gets them; any other gets a snapshot
 * (applied in place by the browser).
 */

/** Compact messages kept per race so a reconnecting viewer resumes with what it missed (16 minutes at 15 s). */
const RING = 64;

interface CompactState {
  baseline: CompactBaseline;
  seq: number;
  /** Fixes applied since the last message: [RunnerId, t, lat, lon]. */
  pending: [number, number, number, number][];
  ring: { seq: number; message: Buffer }[];
  /** The live state's version and 5-second bucket at the last flush (unchanged: nothing to diff). */
  flushed: { version: number; bucket: number };
  snapshot: { seq: number; message: Buffer } | null;
  timer: NodeJS.Timeout | null;
  lastFlush: number;
  /** The deltas deflated in one context for gzip viewers (sse-compression.ts). */
  chain: DeflateChain;
  /** The course line as the snapshot sends it (to 1e-5°, with distances) and as the codec places fixes on it. */
  line: { flat: number[]; course: CourseLine } | null;
}

const states = new WeakMap<RaceLive, CompactState>();

const eventId = (entry: RaceEntry, seq: number) => {
  const w = watermarkOf(entry);
  return w === null ? `${entry.live.generation}.${seq}` : `${entry.live.generation}.${seq}.${w}`;
};

function stateOf(entry: RaceEntry, now: number): CompactState {
  let st = states.get(entry.live);
  if (!st) {
    const rows = entry.live.leaderboard(now);
    st = {
      baseline: compactBaseline(rows, trailMap(entry.live), progressOf(entry.live)),
      seq: 0,
      pending: [],
      ring: [],
      flushed: { version: entry.live.version, bucket: Math.floor(now / 5000) },
      snapshot: null,
      timer: null,
      lastFlush: 0,
      chain: new DeflateChain(),
      line: lineOf(entry.live),
    };
    states.set(entry.live, st);
  }
  return st;
}

/** Points of the course line the snapshot carries (every few vertices, as the live map's course-track thins it). */
const LINE_POINTS = 2000;

/** The course line the viewers get in the snapshot: its vertices (at most LINE_POINTS) with their distances. */
function lineOf(live: RaceLive): CompactState['line'] {
  const course = live.course;
  if (!course) return null;
  const n = course.lat.length;
  const step = Math.max(1, Math.ceil(n / LINE_POINTS));
  const points: [number, number, number][] = [];
  for (let i = 0; i < n; i += step) points.push([course.lat[i], course.lon[i], course.cumDist[i]]);
  if ((n - 1) % step !== 0) points.push([course.lat[n - 1], course.lon[n - 1], course.cumDist[n - 1]]);
  const flat = encodeCourseLine(points);
  const line = courseLine(flat);
  return line ? { flat, course: line } : null;
}

/**
 * Fixes per runner in the compact snapshot (the first stream sends 30): each older point costs about 5 bits on a
 * winding course, and the first view of a 2,500-runner race has to stay within 350 KB (bench/wire.bench.ts). Half an
 * hour or more of trail at the usual intervals; the map's trails grow from there as fixes arrive.
 */
const COMPACT_SNAPSHOT_TRAIL = 15;

function trailMap(live: RaceLive): Map<number, TrailPoint[]> {
  return new Map(live.trails(COMPACT_SNAPSHOT_TRAIL).map((p) => [p.RunnerId, p.Trail]));
}

/** The matcher's progress of a runner (the leader's: gaps in seconds travel against it). */
const progressOf = (live: RaceLive) => (runnerId: number) => live.progressOf(runnerId);

/** Whether the race has a compact state (a compact viewer asked for it). */
export const hasCompactState = (entry: RaceEntry): boolean => states.has(entry.live);

/** Forgets the race's compact state (no compact viewer left): nothing is diffed for nobody. */
export function dropCompactState(entry: RaceEntry): void {
  const st = states.get(entry.live);
  if (st?.timer) clearTimeout(st.timer);
  states.delete(entry.live);
}

/** A fix applied to the race state, for the next compact message (nothing when no compact viewer asked). */
export function noteCompactFix(
  entry: RaceEntry,
  runnerId: number,
  fix: { t: number; lat: number; lon: number },
) {
  states.get(entry.live)?.pending.push([runnerId, fix.t, fix.lat, fix.lon]);
}

/** The compact delta of what changed since the last one (kept in the ring); null when nothing did. */
export function compactUpdateMessage(entry: RaceEntry, now: number): Buffer | null {
  const st = states.get(entry.live);
  if (!st) return null;
  st.lastFlush = now;
  const bucket = Math.floor(now / 5000);
  if (!st.pending.length && st.flushed.version === entry.live.version && st.flushed.bucket === bucket)
    return null;
  st.flushed = { version: entry.live.version, bucket };
  const delta = encodeCompactDelta(
    st.baseline,
    entry.live.leaderboard(now),
    st.pending,
    st.seq + 1,
    now,
    entry.live.race.clockStartedAt?.getTime() ?? null,
    entry.live.course?.lengthM ?? null,
    st.line?.course ?? null,
    progressOf(entry.live),
  );
  st.pending = [];
  if (!delta) return null;
  st.seq++;
  const message = encodeSseMessage('delta', JSON.stringify(delta), eventId(entry, st.seq));
  st.chain.add(message);
  st.ring.push({ seq: st.seq, message });
  if (st.ring.length > RING) st.ring.shift();
  return message;
}

/**
 * The compact snapshot: the baseline as it stands (call `compactUpdateMessage` first and send its message to the
 * viewers already there, so the baseline is the race now). Cached per message sequence number.
 */
export function compactSnapshotMessage(entry: RaceEntry, now: number): Buffer {
  const st = stateOf(entry, now);
  if (st.snapshot?.seq === st.seq && st.snapshot.message) return st.snapshot.message;
  const { live } = entry;
  const rows = live.leaderboard(now).map((r) => st.baseline.rows.get(r.RunnerId) ?? r);
  const snapshot = encodeCompactSnapshot(
    {
      Seq: st.seq,
      RaceId: live.race.id,
      ClockStartedAt: live.race.clockStartedAt?.toISOString() ?? null,
      ClockStoppedAt: live.race.clockStoppedAt?.toISOString() ?? null,
      HasCourse: live.course !== null,
    },
    rows,
    trailMap(live),
    now,
    st.line?.flat,
    st.baseline.leader,
  );
  const message = encodeSseMessage('snap', JSON.stringify(snapshot), eventId(entry, st.seq));
  st.snapshot = { seq: st.seq, message };
  return message;
}

/** The compact messages missed since `lastEventId` (from the ring), or null when a snapshot is needed. */
export function compactResume(entry: RaceEntry, lastEventId: string | undefined): Buffer[] | null {
  if (!lastEventId) return null;
  const last = parseEventId(lastEventId);
  const st = states.get(entry.live);
  if (!last || !st || last.build !== entry.live.generation || last.seq > st.seq) return null;
  if (last.seq === st.seq) return [];
  const oldest = st.ring[0]?.seq ?? st.seq + 1;
  if (last.seq + 1 < oldest) return null;
  return st.ring.filter((r) => r.seq > last.seq).map((r) => r.message);
}

/**
 * Schedules the race's next compact message: at once when the last one is `batchMs` old (the lowest delay for a
 * lone change), otherwise when it will be.
 */
export function scheduleCompactFlush(
  entry: RaceEntry,
  batchMs: number,
  now: number,
  flush: () => void,
): void {
  const st = states.get(entry.live);
  if (!st || st.timer) return;
  st.timer = setTimeout(
    () => {
      st.timer = null;
      flush();
    },
    Math.max(0, st.lastFlush + batchMs - now),
  );
}
