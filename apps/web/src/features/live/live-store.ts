import {
  applyLeaderCurve,
  courseLine,
  decodeCompactDelta,
  decodeCompactSnapshot,
  leaderCurveOf,
  type CourseLine,
  type LeaderCurve,
  type LeaderboardRow,
  type LiveCompactDelta,
  type LiveCompactSnapshot,
} from '@racebeacon/domain/live';
import { serverOffset } from './live-clock';
import type { SnapshotMessage, TrailPoint, UpdateMessage } from './live-types';

/** Live state normalised by RunnerId, with bounded trails. Pure reducers, so they are unit-testable. */

export const MAX_TRAIL = 100;

export interface LiveState {
  rows: ReadonlyMap<number, LeaderboardRow>;
  trails: ReadonlyMap<number, TrailPoint[]>;
  seq: number;
  /** When the last message arrived (browser clock). */
  updatedAt: number | null;
  clockStartedAt: string | null;
  clockStoppedAt: string | null;
  /** Server clock minus browser clock, from the newest message's send time (see live-clock). */
  serverOffsetMs: number;
  /** The compact stream's course line (its snapshot's): the deltas place fixes on it. */
  courseLine?: CourseLine | null;
  /** The compact stream's leader progress: gaps in seconds travel against it. */
  leaderCurve?: LeaderCurve | null;
}

export const emptyLiveState: LiveState = {
  rows: new Map(),
  trails: new Map(),
  seq: 0,
  updatedAt: null,
  clockStartedAt: null,
  clockStoppedAt: null,
  serverOffsetMs: 0,
};

/**
 * Applies a snapshot. With `prev` (the state shown now: a reconnect the server answered with a snapshot, e.g. on
 * another process that could not resume), in place: the snapshot's rows replace the old ones in one step (never an
 * empty board or map in between), and a runner's trail keeps the points shown before that are older than the
 * snapshot's shorter trail, so the line on the map does not shrink.
 */
export function applySnapshot(msg: SnapshotMessage, now: number, prev?: LiveState): LiveState {
  const rows = new Map<number, LeaderboardRow>();
  for (const r of msg.Rows) rows.set(r.RunnerId, r);
  const trails = new Map<number, TrailPoint[]>();
  for (const t of msg.Trails) {
    const before = prev?.trails.get(t.RunnerId);
    const first = t.Trail[0]?.[0];
    let trail = t.Trail;
    if (before?.length && first !== undefined && rows.has(t.RunnerId)) {
      let i = 0;
      while (i < before.length && before[i][0] < first) i++;
      if (i > 0) trail = [...before.slice(0, i), ...t.Trail];
    }
    trails.set(t.RunnerId, trail.slice(-MAX_TRAIL));
  }
  return {
    rows,
    trails,
    seq: msg.Seq,
    updatedAt: now,
    clockStartedAt: msg.ClockStartedAt,
    clockStoppedAt: msg.ClockStoppedAt,
    serverOffsetMs: serverOffset(msg.At, now, 0),
  };
}

export function applyUpdate(state: LiveState, msg: UpdateMessage, now: number): LiveState {
  const rows = new Map(state.rows);
  for (const r of msg.Rows) rows.set(r.RunnerId, r);
  for (const [runnerId, rank] of msg.Ranks ?? []) {
    const row = rows.get(runnerId);
    if (row) rows.set(runnerId, { ...row, Rank: rank });
  }
  let trails = state.trails;
  if (msg.Fixes.length) {
    const next = new Map(trails);
    for (const [runnerId, t, lat, lon] of msg.Fixes) {
      const trail = (next.get(runnerId) ?? []).slice();
      // Late fixes go in their place in time; a fix already present (resent after a reconnect) is skipped.
      let i = trail.length;
      while (i > 0 && trail[i - 1][0] > t) i--;
      if (i > 0 && trail[i - 1][0] === t) continue;
      trail.splice(i, 0, [t, lat, lon]);
      next.set(runnerId, trail.length > MAX_TRAIL ? trail.slice(-MAX_TRAIL) : trail);
    }
    trails = next;
  }
  return {
    ...state,
    rows,
    trails,
    seq: msg.Seq,
    updatedAt: now,
    // A message is never received before it was sent, so every sample underestimates the offset (a resumed or
    // coalesced message more so): the largest since the last snapshot is the best estimate.
    serverOffsetMs: Math.max(state.serverOffsetMs, serverOffset(msg.At, now, state.serverOffsetMs)),
  };
}

/**
 * The compact stream (`?v=5`): its snapshot and deltas decode to the messages above (against the rows and trails
 * held), so the board and map are the same.
 */
export function applyCompactSnapshot(msg: LiveCompactSnapshot, now: number, prev?: LiveState): LiveState {
  return {
    ...applySnapshot(decodeCompactSnapshot(msg), now, prev),
    courseLine: courseLine(msg.Line),
    leaderCurve: leaderCurveOf(msg),
  };
}

export function applyCompactDelta(state: LiveState, msg: LiveCompactDelta, now: number): LiveState {
  const update = decodeCompactDelta(
    msg,
    state.rows,
    (id) => state.trails.get(id)?.at(-1),
    state.clockStartedAt,
    state.courseLine ?? null,
    state.leaderCurve ?? null,
  );
  return {
    ...applyUpdate(state, update, now),
    leaderCurve: applyLeaderCurve(state.leaderCurve ?? null, msg),
  };
}

/** Leaderboard order: by Rank (unranked last), then bib. */
export function sortRows(rows: Iterable<LeaderboardRow>): LeaderboardRow[] {
  return [...rows].sort((a, b) => {
    const ra = a.Rank ?? Number.MAX_SAFE_INTEGER;
    const rb = b.Rank ?? Number.MAX_SAFE_INTEGER;
    if (ra !== rb) return ra - rb;
    return (a.BibNumber ?? '').localeCompare(b.BibNumber ?? '', undefined, { numeric: true });
  });
}
