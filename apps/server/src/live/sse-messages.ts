import type { LiveSnapshot, LiveUpdate } from '@racebeacon/domain';
import type { RaceEntry } from './race-cache';
import { parseEventId, resumeFromWatermark, resumeLog, watermarkOf } from './resume';
import { encodeSseMessage } from './sse-hub';

/**
 * The live race's SSE messages, each serialised once for all viewers of a race: the snapshot (cached per race
 * version, 5-second bucket and sequence number), the batched update of what changed, the resume of a reconnecting
 * viewer from its Last-Event-ID, and the end of a race that is no longer public.
 */

/** Trail length in the SSE snapshot. */
export const SNAPSHOT_TRAIL = 30;
/** Update messages kept per race so a reconnecting viewer can resume with what it missed. */
const RESUME_RING = 64;

/**
 * The SSE id of a message: the state's build and the message's sequence number, then the watermark of the fixes
 * sent so far, which any process of a cluster understands (see resume.ts).
 */
function eventId(entry: RaceEntry, seq: number): string {
  const w = watermarkOf(entry);
  return w === null ? `${entry.live.generation}.${seq}` : `${entry.live.generation}.${seq}.${w}`;
}

/** The id each cached snapshot was encoded with (the watermark can move while the version does not). */
const snapshotIds = new WeakMap<Buffer, string>();

export function snapshotMessage(entry: RaceEntry, now: number): Buffer {
  const bucket = Math.floor(now / 5000);
  // From the first viewer on, the fixes the state applies are logged for viewers resuming from other processes.
  resumeLog(entry, now);
  const id = eventId(entry, entry.seq);
  const s = entry.snapshot;
  if (
    s &&
    s.version === entry.live.version &&
    s.bucket === bucket &&
    s.seq === entry.seq &&
    snapshotIds.get(s.message) === id
  )
    return s.message;
  const { live } = entry;
  const snapshot: LiveSnapshot = {
    Seq: entry.seq,
    At: new Date(now).toISOString(),
    RaceId: live.race.id,
    ClockStartedAt: live.race.clockStartedAt?.toISOString() ?? null,
    ClockStoppedAt: live.race.clockStoppedAt?.toISOString() ?? null,
    HasCourse: live.course !== null,
    Rows: live.leaderboard(now),
    Trails: live.trails(SNAPSHOT_TRAIL).map(({ RunnerId, Trail }) => ({ RunnerId, Trail })),
  };
  const message = encodeSseMessage('snapshot', JSON.stringify(snapshot), id);
  snapshotIds.set(message, id);
  entry.snapshot = { version: live.version, bucket, seq: entry.seq, message };
  return message;
}

/**
 * The update of what changed since the last one (rows, rank-only changes, the new fixes), kept in the resume ring;
 * null when nothing did.
 */
export function updateMessage(entry: RaceEntry, now: number): Buffer | null {
  const { rows, ranks } = entry.live.takeChanges(now);
  const fixes: [number, number, number, number][] = [];
  for (const [runnerId, list] of entry.pendingFixes)
    for (const f of list) fixes.push([runnerId, f.t, f.lat, f.lon]);
  entry.pendingFixes.clear();
  if (!rows.length && !ranks.length && !fixes.length) return null;
  entry.seq++;
  const update: LiveUpdate = {
    Seq: entry.seq,
    At: new Date(now).toISOString(),
    Rows: rows,
    Ranks: ranks,
    Fixes: fixes,
  };
  const message = encodeSseMessage('update', JSON.stringify(update), eventId(entry, entry.seq));
  entry.ring.push({ seq: entry.seq, message });
  if (entry.ring.length > RESUME_RING) entry.ring.shift();
  return message;
}

/**
 * Messages missed since `lastEventId`, or null when a snapshot is needed: from the ring when the id is this
 * state's own (exactly the messages after it), otherwise from the id's watermark, whichever process sent it
 * (resume.ts: every row and the fixes received since).
 */
export function resumeMessages(entry: RaceEntry, lastEventId?: string, now = Date.now()): Buffer[] | null {
  if (!lastEventId) return null;
  const last = parseEventId(lastEventId);
  if (!last) return null;
  if (last.build === entry.live.generation && last.seq <= entry.seq) {
    if (last.seq === entry.seq) return [];
    const oldest = entry.ring[0]?.seq ?? entry.seq + 1;
    if (last.seq + 1 >= oldest) return entry.ring.filter((r) => r.seq > last.seq).map((r) => r.message);
  }
  if (last.watermark === null) return null;
  const message = resumeFromWatermark(entry, last.watermark, now, eventId(entry, entry.seq));
  return message ? [message] : null;
}

/** Tells viewers the race is no longer public (their streams end after it). */
export const goneMessage = (raceId: number) => encodeSseMessage('gone', JSON.stringify({ RaceId: raceId }));
