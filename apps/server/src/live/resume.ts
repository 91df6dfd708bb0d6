import type { LiveUpdate } from '@racebeacon/domain';
import type { RaceEntry } from './race-cache';
import { encodeSseMessage } from './sse-hub';

/**
 * Resuming a live stream on ANY process of a cluster (issue 14). Each SSE message id carries, besides the sending
 * state's build and sequence number (`<build>.<seq>`, answered exactly from the in-process ring when the viewer
 * comes back to the same state), a watermark every process understands: `<build>.<seq>.<W>`, W = the newest
 * `received_at` (milliseconds, the database's clock, which every process shares) of the fixes the sender had
 * applied when it sent the message. The viewer then holds every fix stored before W − RESUME_MARGIN_MS: a fix's
 * statement commits, and its NOTIFY reaches every process, within that margin of its `received_at` (the ingest
 * statement sends the NOTIFY in its own transaction, ingest/fix-repository.ts).
 *
 * So any process answers "everything after W" from what it received itself: this per-race log of the fixes it
 * applied in the last minutes with their `received_at`. A viewer resuming with W gets one `update` with every
 * runner's row and every logged fix received after W − RESUME_MARGIN_MS (a few it already has; the client skips
 * fixes it holds). The log only answers for times it has fully seen: from its creation (plus the clock allowance)
 * on, and not across a lost LISTEN connection (`dropResumeLog`, until the race is rebuilt). Otherwise the viewer
 * gets a snapshot, which the client applies in place.
 */

/** How long after its `received_at` a fix is surely committed and announced to every process. */
export const RESUME_MARGIN_MS = 10_000;
/** Allowance for the difference between this process's clock and the database's. */
const CLOCK_ALLOWANCE_MS = 2_000;
/** Fixes kept: the last minutes, and at most this many per race. */
const LOG_WINDOW_MS = 5 * 60_000;
const LOG_MAX_FIXES = 100_000;

type Fix = LiveUpdate['Fixes'][number];

export class ResumeLog {
  /** Newest `received_at` applied (database clock, ms); null until the first fix, and after a loss. */
  watermark: number | null = null;
  /** Every fix received after this time (database clock, ms) is in the log. */
  private coveredAfter: number;
  private received: number[] = [];
  private fixes: Fix[] = [];
  private head = 0;
  /** Entries sliced off the front of the arrays (for `size`). */
  private dropped = 0;

  constructor(nowMs: number) {
    // Fixes committed after now are delivered to this process from now on; their received_at is at most their
    // commit time (give or take the clocks' difference).
    this.coveredAfter = nowMs + CLOCK_ALLOWANCE_MS;
  }

  add(receivedAt: number, fix: Fix): void {
    this.received.push(receivedAt);
    this.fixes.push(fix);
    if (this.watermark === null || receivedAt > this.watermark) this.watermark = receivedAt;
    const floor = this.watermark - LOG_WINDOW_MS;
    while (
      this.head < this.received.length &&
      (this.received.length - this.head > LOG_MAX_FIXES || this.received[this.head] < floor)
    ) {
      // Whatever was received up to a dropped fix may be gone too (the log is in arrival order, nearly in time).
      this.coveredAfter = Math.max(this.coveredAfter, this.received[this.head]);
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.received.length) {
      this.dropped += this.head;
      this.received = this.received.slice(this.head);
      this.fixes = this.fixes.slice(this.head);
      this.head = 0;
    }
  }

  /** Fixes added so far (a change marker). */
  get size(): number {
    return this.received.length + this.dropped;
  }

  /** Every fix received after `sinceMs`, or null when the log may not hold them all. */
  since(sinceMs: number): Fix[] | null {
    if (sinceMs < this.coveredAfter) return null;
    const out: Fix[] = [];
    for (let i = this.head; i < this.received.length; i++)
      if (this.received[i] > sinceMs) out.push(this.fixes[i]);
    return out;
  }
}

const logs = new WeakMap<RaceEntry, ResumeLog>();

/** The race state's log, started now if it has none. */
export function resumeLog(entry: RaceEntry, nowMs: number): ResumeLog {
  let log = logs.get(entry);
  if (!log) logs.set(entry, (log = new ResumeLog(nowMs)));
  return log;
}

/** The watermark of what this state's viewers were sent (null: none to give, resuming elsewhere needs a snapshot). */
export const watermarkOf = (entry: RaceEntry): number | null => logs.get(entry)?.watermark ?? null;

/** Notes a fix applied to the race state (nothing when no viewer has asked for the race yet: no log). */
export function logFix(entry: RaceEntry, receivedAt: string, fix: Fix): void {
  logs.get(entry)?.add(Date.parse(receivedAt), fix);
}

/**
 * Events were lost (the LISTEN connection dropped): the log has a hole, so nothing is resumed from it, and messages
 * carry no watermark, until the race is rebuilt from the database (a new state, a new log).
 */
export function dropResumeLog(entry: RaceEntry): void {
  logs.delete(entry);
}

/** A Last-Event-ID: the sender's build, sequence number and watermark (null when it had none). */
export function parseEventId(id: string): { build: string; seq: number; watermark: number | null } | null {
  const m = /^([0-9a-f]+)\.(\d+)(?:\.(\d+))?$/.exec(id);
  if (!m) return null;
  return { build: m[1], seq: Number(m[2]), watermark: m[3] === undefined ? null : Number(m[3]) };
}

const rowsJson = new WeakMap<RaceEntry, { version: number; bucket: number; json: string }>();
/**
 * The last resume answered per race: the viewers of a process that went away all come with the same last id, so
 * a crowd of them costs one scan of the log and one message.
 */
const lastResume = new WeakMap<
  RaceEntry,
  { watermark: number; version: number; bucket: number; id: string; logSize: number; message: Buffer }
>();

/**
 * What a viewer that saw everything up to `watermark` (on any process) misses: one `update` with every runner's
 * row (cached per state version and 5-second bucket, for a crowd resuming at once) and the fixes received since
 * `watermark − RESUME_MARGIN_MS`; null when this process cannot tell (a snapshot is needed). Its id is this state's
 * current one, so the next resume works from here.
 */
export function resumeFromWatermark(
  entry: RaceEntry,
  watermark: number,
  now: number,
  id: string,
): Buffer | null {
  const log = logs.get(entry);
  const bucket = Math.floor(now / 5000);
  const memo = lastResume.get(entry);
  if (
    log &&
    memo &&
    memo.watermark === watermark &&
    memo.version === entry.live.version &&
    memo.bucket === bucket &&
    memo.id === id &&
    memo.logSize === log.size
  )
    return memo.message;
  const fixes = log?.since(watermark - RESUME_MARGIN_MS);
  if (!log || !fixes) return null;
  let rows = rowsJson.get(entry);
  if (!rows || rows.version !== entry.live.version || rows.bucket !== bucket) {
    rows = { version: entry.live.version, bucket, json: JSON.stringify(entry.live.leaderboard(now)) };
    rowsJson.set(entry, rows);
  }
  // The LiveUpdate shape, written around the cached rows.
  const data =
    `{"Seq":${entry.seq},"At":${JSON.stringify(new Date(now).toISOString())},"Rows":${rows.json},` +
    `"Ranks":[],"Fixes":${JSON.stringify(fixes)}}`;
  const message = encodeSseMessage('update', data, id);
  lastResume.set(entry, { watermark, version: entry.live.version, bucket, id, logSize: log.size, message });
  return message;
}
