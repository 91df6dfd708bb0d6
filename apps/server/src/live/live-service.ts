import type { ServerResponse } from 'node:http';
import {
  filterLeaderboard,
  prepareCourse,
  type LeaderboardFilter,
  type LeaderboardRow,
  type LiveSnapshot,
  type LiveUpdate,
  type RunnerPositions,
} from '@racebeacon/domain';
import type { Db } from '../db/client';
import type { EventBus, LiveEvent } from '../events/bus';
import { HttpError, notFound } from '../lib/errors';
import { findCourseGeometry, findLiveRace, listLiveRunners, listRaceFixes } from './live-repository';
import { RaceLive, type LiveFix } from './race-live';
import { encodeSseMessage, SseHub, streamClientKey } from './sse-hub';

/**
 * The live race service. Per race, an in-memory RaceLive built lazily from the database on first use, kept up to
 * date from the event bus (every server process receives every event, so each keeps its own copy), rebuilt when
 * the race changes, and dropped when nobody has looked at it for a while. Viewers get one SSE stream per race;
 * changes are coalesced per race into at most one message per `batchMs`, serialised once for all viewers.
 */

export interface LiveServiceOptions {
  db: Db;
  bus: EventBus;
  offCourseM: number;
  log?: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
  batchMs?: number;
  /** How often races with viewers are re-evaluated for time-driven changes (runners going stale). */
  tickMs?: number;
  idleEvictMs?: number;
  heartbeatMs?: number;
  now?: () => number;
  /** Most SSE streams open at once in this process (LIVE_MAX_STREAMS; default unlimited). */
  maxStreams?: number;
  /** Most SSE streams open at once per client address (LIVE_MAX_STREAMS_PER_CLIENT; 0 or default: no cap). */
  maxStreamsPerClient?: number;
}

/** Retry-After of a stream refused because its client holds too many: it has to close one first. */
export const STREAM_CLIENT_RETRY_AFTER_S = 30;
/** Retry-After of a stream refused because the process is full: 15–30 s, spread so refused viewers do not return together. */
const streamFullRetryAfterS = () => 15 + Math.floor(Math.random() * 16);

/** A live stream refused by a cap (429 per client, 503 in total), answered with Retry-After before any SSE byte. */
export class StreamLimitError extends HttpError {
  constructor(
    readonly limit: 'client' | 'total',
    readonly retryAfterS: number,
    max: number,
  ) {
    super(
      limit === 'client' ? 429 : 503,
      limit === 'client' ? 'too_many_streams' : 'streams_full',
      limit === 'client'
        ? `This address already has ${max} live streams open, the most allowed. Close one, or try again later.`
        : 'This server is serving as many live streams as it can. Try again shortly; the leaderboard ' +
            '(GET /api/open/races/{id}/leaderboard) still answers meanwhile.',
    );
  }
}

/** Trail length in the SSE snapshot and the positions endpoint. */
export const SNAPSHOT_TRAIL = 30;
export const POSITIONS_TRAIL = 100;
/** Update messages kept per race so a reconnecting viewer can resume with what it missed. */
const RESUME_RING = 64;

interface RaceEntry {
  live: RaceLive;
  lastUsed: number;
  seq: number;
  /** Runners with new fixes since the last message, and those fixes. */
  pendingFixes: Map<number, LiveFix[]>;
  flushTimer: NodeJS.Timeout | null;
  lastFlush: number;
  ring: { seq: number; message: Buffer }[];
  snapshot: { version: number; bucket: number; seq: number; message: Buffer } | null;
  leaderboardJson: { version: number; bucket: number; body: Buffer } | null;
}

interface Loading {
  promise: Promise<RaceEntry | null>;
  /** Events that arrived while the database was being read; replayed once the state exists. */
  queued: LiveEvent[];
}

export class LiveService {
  readonly hub: SseHub;
  private readonly races = new Map<number, RaceEntry>();
  private readonly loading = new Map<number, Loading>();
  private readonly reloadTimers = new Map<number, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeReconnect: () => void;
  private readonly sweeper: NodeJS.Timeout;
  private readonly ticker: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly batchMs: number;
  private readonly idleEvictMs: number;
  private closed = false;
  /** When the total stream cap was last reported in the log (at most once a minute). */
  private streamsFullLoggedAt = -Infinity;

  constructor(private readonly opts: LiveServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.batchMs = opts.batchMs ?? 250;
    this.idleEvictMs = opts.idleEvictMs ?? 10 * 60_000;
    this.hub = new SseHub({
      heartbeatMs: opts.heartbeatMs,
      maxStreams: opts.maxStreams,
      maxStreamsPerClient: opts.maxStreamsPerClient,
    });
    this.unsubscribe = opts.bus.subscribe((e) => this.onEvent(e));
    this.unsubscribeReconnect = opts.bus.onReconnect(() => this.catchUp());
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(60_000, this.idleEvictMs));
    this.sweeper.unref();
    this.ticker = setInterval(() => this.tick(), opts.tickMs ?? 15_000);
    this.ticker.unref();
  }

  // ---------------------------------------------------------------- reads

  /** Unfiltered leaderboard as JSON bytes, cached per race version (and 5 s bucket, as statuses move with time). */
  async leaderboardJson(raceId: number): Promise<Buffer> {
    const entry = await this.require(raceId);
    const now = this.now();
    const bucket = Math.floor(now / 5000);
    const c = entry.leaderboardJson;
    if (c && c.version === entry.live.version && c.bucket === bucket) return c.body;
    const body = Buffer.from(JSON.stringify(entry.live.leaderboard(now)));
    entry.leaderboardJson = { version: entry.live.version, bucket, body };
    return body;
  }

  async leaderboard(raceId: number, filter: LeaderboardFilter): Promise<LeaderboardRow[]> {
    const entry = await this.require(raceId);
    return filterLeaderboard(entry.live.leaderboard(this.now()), filter);
  }

  async positions(raceId: number, sinceMs?: number): Promise<RunnerPositions[]> {
    const entry = await this.require(raceId);
    return entry.live.trails(POSITIONS_TRAIL, sinceMs);
  }

  /** The prepared course of an approved race (null when it has none). */
  async course(raceId: number) {
    const entry = await this.require(raceId);
    return entry.live.course;
  }

  /**
   * Prepares an SSE stream for a viewer at address `clientIp` and returns the function that takes over the response.
   * Before any byte is written: a StreamLimitError past the per-client or total stream cap (checked first, so a
   * refused viewer costs no database read), 404 for a race that is not public. With a Last-Event-ID of the current
   * build whose follow-ups are still in the ring, only the missed messages are sent; otherwise a snapshot.
   */
  async prepareStream(
    raceId: number,
    clientIp: string,
    lastEventId?: string,
  ): Promise<(res: ServerResponse) => void> {
    const admission = this.hub.admit(streamClientKey(clientIp));
    if (!admission.ok) {
      if (admission.limit === 'client') {
        throw new StreamLimitError('client', STREAM_CLIENT_RETRY_AFTER_S, this.opts.maxStreamsPerClient ?? 0);
      }
      const now = this.now();
      if (now - this.streamsFullLoggedAt >= 60_000) {
        this.streamsFullLoggedAt = now;
        this.opts.log?.warn(
          { streams: this.hub.streamCount(), maxStreams: this.opts.maxStreams },
          'live stream cap reached; refusing new streams with 503 (LIVE_MAX_STREAMS)',
        );
      }
      throw new StreamLimitError('total', streamFullRetryAfterS(), this.opts.maxStreams ?? Infinity);
    }
    const { slot } = admission;
    let entry: RaceEntry;
    try {
      entry = await this.require(raceId);
    } catch (err) {
      slot.release();
      throw err;
    }
    return (res) => {
      const initial = this.resumeMessages(entry, lastEventId) ?? [this.snapshotMessage(entry)];
      this.hub.open(
        raceId,
        res,
        initial,
        () => {
          const current = this.races.get(raceId);
          if (current) current.lastUsed = this.now();
        },
        slot,
      );
    };
  }

  /** Live streams open (or being prepared) in this process, of one client address or in total. */
  streamCount(clientIp?: string): number {
    return this.hub.streamCount(clientIp === undefined ? undefined : streamClientKey(clientIp));
  }

  viewerCount(raceId?: number): number {
    return this.hub.viewerCount(raceId);
  }

  /** Races whose live state is in memory now. */
  loadedRaceIds(): number[] {
    return [...this.races.keys()];
  }

  /** Ends all streams and stops listening; call before the HTTP server closes. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.unsubscribeReconnect();
    clearInterval(this.sweeper);
    clearInterval(this.ticker);
    for (const t of this.reloadTimers.values()) clearTimeout(t);
    for (const e of this.races.values()) if (e.flushTimer) clearTimeout(e.flushTimer);
    this.hub.close();
  }

  /**
   * The bus was disconnected, so events sent meanwhile by other processes were lost: rebuild every race in memory
   * from the database (its viewers get a fresh snapshot). A race being (re)loaded now is rebuilt once more after
   * that load, whose read may predate the reconnect.
   */
  catchUp(): void {
    if (this.closed) return;
    for (const raceId of new Set([...this.races.keys(), ...this.loading.keys()]))
      this.onEvent({ type: 'race-updated', raceId });
  }

  // ---------------------------------------------------------------- state

  private async require(raceId: number): Promise<RaceEntry> {
    const entry = await this.get(raceId);
    if (!entry) throw notFound(`Race ${raceId} was not found or is not public.`, 'race_not_found');
    entry.lastUsed = this.now();
    return entry;
  }

  private get(raceId: number): Promise<RaceEntry | null> {
    const existing = this.races.get(raceId);
    if (existing) return Promise.resolve(existing);
    const pending = this.loading.get(raceId);
    if (pending) return pending.promise;
    const loading: Loading = { promise: Promise.resolve(null), queued: [] };
    loading.promise = this.load(raceId)
      .then((live) => {
        if (!live || this.closed) return null;
        const entry: RaceEntry = {
          live,
          lastUsed: this.now(),
          seq: 0,
          pendingFixes: new Map(),
          flushTimer: null,
          lastFlush: 0,
          ring: [],
          snapshot: null,
          leaderboardJson: null,
        };
        this.races.set(raceId, entry);
        // Out of `loading` before the replay: onEvent queues events for races still loading, so replaying while
        // listed there would push each event back onto the array being walked (an endless loop).
        this.loading.delete(raceId);
        const queued = loading.queued.splice(0);
        for (const e of queued) this.onEvent(e);
        return entry;
      })
      .finally(() => {
        if (this.loading.get(raceId) === loading) this.loading.delete(raceId);
      });
    this.loading.set(raceId, loading);
    return loading.promise;
  }

  /** Reads a race's live state from the database; null when it does not exist or is not approved. */
  private async load(raceId: number): Promise<RaceLive | null> {
    const { db } = this.opts;
    const race = await findLiveRace(db, raceId);
    if (!race || !race.approved) return null;
    const [geometry, runners, fixes] = await Promise.all([
      findCourseGeometry(db, raceId),
      listLiveRunners(db, raceId),
      listRaceFixes(db, raceId),
    ]);
    let course = null;
    try {
      course = geometry ? prepareCourse(geometry) : null;
    } catch (err) {
      // A degenerate stored course (fewer than two distinct points) must not take the live race down.
      this.opts.log?.warn({ err, raceId }, 'course cannot be prepared; live race without course');
    }
    return new RaceLive({
      race,
      course,
      runners,
      fixes,
      offCourseM: this.opts.offCourseM,
      nowMs: this.now(),
    });
  }

  private onEvent(e: LiveEvent): void {
    if (this.closed || e.raceId === null) return;
    const loading = this.loading.get(e.raceId);
    if (loading) {
      loading.queued.push(e);
      return;
    }
    const entry = this.races.get(e.raceId);
    if (!entry) return; // not in memory: the next reader loads it from the database, fix included
    if (e.type === 'position') {
      if (e.runnerId === null) return;
      if (!entry.live.hasRunner(e.runnerId)) {
        // A runner we do not know yet (added after the load): rebuild from the database.
        this.scheduleReload(e.raceId);
        return;
      }
      const fix: LiveFix = {
        t: Date.parse(e.fixTime),
        lat: e.lat,
        lon: e.lon,
        batteryPercent: e.batteryPercent,
        batteryState: e.batteryState,
      };
      if (!entry.live.addFix(e.runnerId, fix, this.now())) return;
      let list = entry.pendingFixes.get(e.runnerId);
      if (!list) entry.pendingFixes.set(e.runnerId, (list = []));
      list.push(fix);
      this.scheduleFlush(entry);
    } else if (e.type === 'race-updated') {
      this.scheduleReload(e.raceId);
    }
  }

  /** Race, runners, course or devices changed: rebuild from the database (debounced) and send a new snapshot. */
  private scheduleReload(raceId: number) {
    if (this.reloadTimers.has(raceId)) return;
    const timer = setTimeout(() => {
      this.reloadTimers.delete(raceId);
      void this.reload(raceId);
    }, 100);
    this.reloadTimers.set(raceId, timer);
  }

  private async reload(raceId: number) {
    const old = this.races.get(raceId);
    if (!old || this.closed || this.loading.has(raceId)) return;
    // Readers keep getting the old state meanwhile; events that arrive while the database is read are queued and
    // replayed on the new state (those already in what was read are recognised as duplicates).
    const loading: Loading = { promise: Promise.resolve(old), queued: [] };
    this.loading.set(raceId, loading);
    let live: RaceLive | null;
    try {
      live = await this.load(raceId);
    } catch (err) {
      this.opts.log?.error({ err, raceId }, 'live race reload failed');
      this.loading.delete(raceId);
      for (const e of loading.queued) this.onEvent(e);
      return;
    }
    this.loading.delete(raceId);
    if (this.closed) return;
    if (old.flushTimer) clearTimeout(old.flushTimer);
    if (!live) {
      // No longer public: viewers are told, and their streams end.
      this.races.delete(raceId);
      this.hub.broadcast(raceId, encodeSseMessage('gone', JSON.stringify({ RaceId: raceId })));
      this.hub.closeRace(raceId);
      return;
    }
    const entry: RaceEntry = {
      ...old,
      live,
      pendingFixes: new Map(),
      flushTimer: null,
      ring: [],
      snapshot: null,
      leaderboardJson: null,
    };
    this.races.set(raceId, entry);
    this.hub.broadcast(raceId, this.snapshotMessage(entry));
    for (const e of loading.queued) this.onEvent(e);
  }

  private evictIdle() {
    const now = this.now();
    for (const [raceId, e] of this.races) {
      if (this.hub.viewerCount(raceId) === 0 && now - e.lastUsed > this.idleEvictMs) {
        if (e.flushTimer) clearTimeout(e.flushTimer);
        this.races.delete(raceId);
      }
    }
  }

  /** Time alone changes statuses (a runner who stops pinging goes stale): push those changes to viewers. */
  private tick() {
    for (const [raceId, entry] of this.races) {
      if (this.hub.viewerCount(raceId) > 0) this.scheduleFlush(entry);
    }
  }

  // ---------------------------------------------------------------- SSE messages

  private scheduleFlush(entry: RaceEntry) {
    if (entry.flushTimer) return;
    // Leading edge when idle (lowest delay), then at most one message per batchMs per race.
    const wait = Math.max(0, entry.lastFlush + this.batchMs - this.now());
    entry.flushTimer = setTimeout(() => this.flush(entry), wait);
  }

  private flush(entry: RaceEntry) {
    entry.flushTimer = null;
    if (this.closed || this.races.get(entry.live.race.id) !== entry) return;
    const now = this.now();
    entry.lastFlush = now;
    const { rows, ranks } = entry.live.takeChanges(now);
    const fixes: [number, number, number, number][] = [];
    for (const [runnerId, list] of entry.pendingFixes)
      for (const f of list) fixes.push([runnerId, f.t, f.lat, f.lon]);
    entry.pendingFixes.clear();
    if (!rows.length && !ranks.length && !fixes.length) return;
    entry.seq++;
    const update: LiveUpdate = {
      Seq: entry.seq,
      At: new Date(now).toISOString(),
      Rows: rows,
      Ranks: ranks,
      Fixes: fixes,
    };
    const data = JSON.stringify(update);
    const message = encodeSseMessage('update', data, this.eventId(entry, entry.seq));
    entry.ring.push({ seq: entry.seq, message });
    if (entry.ring.length > RESUME_RING) entry.ring.shift();
    this.hub.broadcast(entry.live.race.id, message);
  }

  private eventId(entry: RaceEntry, seq: number) {
    return `${entry.live.generation}.${seq}`;
  }

  private snapshotMessage(entry: RaceEntry): Buffer {
    const now = this.now();
    const bucket = Math.floor(now / 5000);
    const s = entry.snapshot;
    if (s && s.version === entry.live.version && s.bucket === bucket && s.seq === entry.seq) return s.message;
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
    const data = JSON.stringify(snapshot);
    const message = encodeSseMessage('snapshot', data, this.eventId(entry, entry.seq));
    entry.snapshot = { version: live.version, bucket, seq: entry.seq, message };
    return message;
  }

  /** Messages missed since `lastEventId`, or null when a snapshot is needed. */
  private resumeMessages(entry: RaceEntry, lastEventId?: string): Buffer[] | null {
    if (!lastEventId) return null;
    const m = /^([0-9a-f]+)\.(\d+)$/.exec(lastEventId);
    if (!m || m[1] !== entry.live.generation) return null;
    const seq = Number(m[2]);
    if (seq > entry.seq) return null;
    if (seq === entry.seq) return [];
    const oldest = entry.ring[0]?.seq ?? entry.seq + 1;
    if (seq + 1 < oldest) return null;
    return entry.ring.filter((r) => r.seq > seq).map((r) => r.message);
  }
}
