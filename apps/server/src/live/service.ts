import type { ServerResponse } from 'node:http';
import {
  filterLeaderboard,
  isOpenPrivacy,
  type LeaderboardFilter,
  type LeaderboardRow,
  type RunnerPositions,
  type RunnerSplits,
} from '@racebeacon/domain';
import type { Db } from '../db/client';
import type { EventBus, LiveEvent } from '../events/bus';
import { HttpError } from '../lib/errors';
import { RaceCache, type RaceEntry } from './race-cache';
import type { RaceLive } from './race-live';
import type { LiveFix, RunnerAlertSubject } from './runner-live';
import { dropResumeLog, logFix } from './resume';
import { goneMessage, resumeMessages, snapshotMessage, updateMessage } from './sse-messages';
import {
  compactResume,
  compactSnapshotMessage,
  compactUpdateMessage,
  dropCompactState,
  hasCompactState,
  noteCompactFix,
  scheduleCompactFlush,
} from './compact-stream';
import { clientKey } from '../lib/client-key';
import { SseHub } from './sse-hub';
import { StreamAdmission } from './stream-admission';

/**
 * The live race service. Per race, an in-memory RaceLive (race-cache.ts) built from the database on first use and
 * kept up to date from the event bus: every server process receives every event, so each keeps its own copy.
 * Viewers get one SSE stream per race; changes are coalesced per race into at most one message per `batchMs`,
 * serialised once for all viewers (sse-messages.ts).
 */

export interface LiveServiceOptions {
  db: Db;
  bus: EventBus;
  offCourseM: number;
  log?: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
  batchMs?: number;
  /** Coalescing of the compact stream (`?v=4`): at most one message per race this often (default 15 s). */
  compactBatchMs?: number;
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

/**
 * The stream of a race whose public view is not its live state (privacy of runners: a public delay, hidden runners,
 * private trails): privacy/public-view.ts sends its viewers their own snapshot and updates.
 */
export interface PrivateStream {
  snapshot(raceId: number): Promise<Buffer>;
  rebuilt(raceId: number): void;
  /** The rows and splits the public reads at `nowMs` (push notices; privacy/public-view.ts `raceAt`). */
  raceAt(raceId: number, nowMs: number): Promise<{ rows: LeaderboardRow[]; splits: RunnerSplits[] }>;
}

/**
 * The hub's channels: the message format a viewer reads (first stream, compact `?v=4`), for the public or for the
 * race's director and admins who opened it with a stream ticket (stream-ticket.ts), who read the live state even
 * when the public does not (privacy). On a race without privacy both get the same messages.
 */
export const CHANNEL = { first: 0, compact: 1, liveFirst: 2, liveCompact: 3 } as const;
/** The public's channels: a private race's public view (privacy/public-view.ts) writes to these only. */
export const PUBLIC_CHANNELS: readonly number[] = [CHANNEL.first, CHANNEL.compact];

/** Trail length of the positions endpoint. */
export const POSITIONS_TRAIL = 100;

export class LiveService {
  readonly hub: SseHub;
  private readonly cache: RaceCache;
  private readonly admission: StreamAdmission;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeReconnect: () => void;
  private readonly sweeper: NodeJS.Timeout;
  private readonly ticker: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly batchMs: number;
  private readonly compactBatchMs: number;
  private closed = false;
  private privateStream: PrivateStream | null = null;

  constructor(private readonly opts: LiveServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.batchMs = opts.batchMs ?? 250;
    this.compactBatchMs = opts.compactBatchMs ?? 15_000;
    const idleEvictMs = opts.idleEvictMs ?? 10 * 60_000;
    this.hub = new SseHub({
      heartbeatMs: opts.heartbeatMs,
      maxStreams: opts.maxStreams,
      maxStreamsPerClient: opts.maxStreamsPerClient,
    });
    this.admission = new StreamAdmission(this.hub, { ...opts, now: this.now });
    this.cache = new RaceCache({
      db: opts.db,
      offCourseM: opts.offCourseM,
      now: this.now,
      log: opts.log,
      apply: (e) => this.onEvent(e),
      rebuilt: (entry) => {
        // Held (a newer change is being read): the snapshots go out when it is released.
        if (entry.privacyHold) entry.privacyOwed = true;
        else this.announce(entry);
      },
      released: (entry, owed) => {
        // The privacy changed in place, or a snapshot was held back: every viewer gets a new one. Then what waited.
        if (owed) this.announce(entry);
        this.scheduleFlush(entry);
      },
      gone: (raceId) => {
        this.hub.broadcast(raceId, goneMessage(raceId));
        this.hub.closeRace(raceId);
      },
    });
    this.unsubscribe = opts.bus.subscribe((e) => this.onEvent(e));
    this.unsubscribeReconnect = opts.bus.onReconnect(() => this.catchUp());
    this.sweeper = setInterval(
      () => this.cache.evictIdle((raceId) => this.hub.viewerCount(raceId) > 0, idleEvictMs),
      Math.min(60_000, idleEvictMs),
    );
    this.sweeper.unref();
    this.ticker = setInterval(() => this.tick(), opts.tickMs ?? 15_000);
    this.ticker.unref();
  }

  /** A new snapshot for every viewer of the race (rebuilt, or its privacy changed): the public's as it may see it. */
  private announce(entry: RaceEntry): void {
    const raceId = entry.live.race.id;
    const priv = this.isPrivate(entry);
    if (priv) this.privateStream!.rebuilt(raceId);
    // A private race's live snapshot is made only for its ticket holders, if any (a large race's costs).
    if (!priv || this.hub.viewerCount(raceId, CHANNEL.liveFirst) > 0)
      this.hub.broadcast(raceId, snapshotMessage(entry, this.now()), this.liveChannels(priv, false));
    if (this.compactViewers(raceId) > 0)
      this.hub.broadcast(raceId, compactSnapshotMessage(entry, this.now()), this.liveChannels(priv, true));
  }

  /**
   * Whether what the public view computed from `live` with privacy stamp `stamp` may still be sent: the race was not
   * rebuilt, its privacy did not change and is not being read again since (privacy/public-view.ts checks before
   * every broadcast).
   */
  publicViewCurrent(raceId: number, live: RaceLive, stamp: number): boolean {
    const entry = this.cache.loaded(raceId);
    return !!entry && entry.live === live && !entry.privacyHold && live.privacyStamp === stamp;
  }

  /** Set by the privacy module: the streams of races whose live state is not public as it is. */
  setPrivateStream(stream: PrivateStream): void {
    this.privateStream = stream;
  }

  private isPrivate(entry: RaceEntry): boolean {
    return this.privateStream !== null && !isOpenPrivacy(entry.live.privacy);
  }

  /** The channels that get the live messages of one format: the ticket holders', and the public's too unless private. */
  private liveChannels(priv: boolean, compact: boolean): number[] {
    const own = compact ? CHANNEL.liveCompact : CHANNEL.liveFirst;
    return priv ? [own] : [compact ? CHANNEL.compact : CHANNEL.first, own];
  }

  private compactViewers(raceId: number): number {
    return this.hub.viewerCount(raceId, CHANNEL.compact) + this.hub.viewerCount(raceId, CHANNEL.liveCompact);
  }

  // ---------------------------------------------------------------- reads

  /** Unfiltered leaderboard as JSON bytes, cached per race version (and 5 s bucket, as statuses move with time). */
  async leaderboardJson(raceId: number): Promise<Buffer> {
    const entry = await this.cache.require(raceId);
    const now = this.now();
    const bucket = Math.floor(now / 5000);
    const c = entry.leaderboardJson;
    if (c && c.version === entry.live.version && c.bucket === bucket) return c.body;
    const body = Buffer.from(JSON.stringify(entry.live.leaderboard(now)));
    entry.leaderboardJson = { version: entry.live.version, bucket, body };
    return body;
  }

  async leaderboard(raceId: number, filter: LeaderboardFilter): Promise<LeaderboardRow[]> {
    const entry = await this.cache.require(raceId);
    return filterLeaderboard(entry.live.leaderboard(this.now()), filter);
  }

  async positions(raceId: number, sinceMs?: number): Promise<RunnerPositions[]> {
    const entry = await this.cache.require(raceId);
    const trails = entry.live.trails(POSITIONS_TRAIL, sinceMs);
    // A silent runner's estimate, as on their leaderboard row.
    const estimated = new Map<number, NonNullable<RunnerPositions['Estimated']>>();
    for (const r of entry.live.leaderboard(this.now())) {
      if (r.EstimatedDistanceKm == null || r.EstimatedLatitude == null || r.EstimatedLongitude == null)
        continue;
      estimated.set(r.RunnerId, {
        DistanceKm: r.EstimatedDistanceKm,
        DistanceKmMin: r.EstimatedDistanceKmMin ?? r.EstimatedDistanceKm,
        DistanceKmMax: r.EstimatedDistanceKmMax ?? r.EstimatedDistanceKm,
        Latitude: r.EstimatedLatitude,
        Longitude: r.EstimatedLongitude,
        At: r.EstimatedAt ?? new Date(this.now()).toISOString(),
      });
    }
    if (estimated.size === 0) return trails;
    return trails.map((p) =>
      estimated.has(p.RunnerId) ? { ...p, Estimated: estimated.get(p.RunnerId) } : p,
    );
  }

  /** Every runner of a race as the alert rules read them now (the alert sweep job; loads the race if needed). */
  async alertSubjects(raceId: number, nowMs = this.now()): Promise<RunnerAlertSubject[]> {
    const entry = await this.cache.require(raceId);
    return entry.live.alertSubjects(nowMs);
  }

  /**
   * How far along the course a runner is now (m): null when the race is not public (not loaded live), has no
   * course, or the runner was never placed on it. A database outage is thrown.
   */
  async runnerDistanceM(raceId: number, runnerId: number): Promise<number | null> {
    let entry: RaceEntry;
    try {
      entry = await this.cache.require(raceId);
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 404) return null;
      throw err;
    }
    return entry.live.runnerDistanceM(runnerId);
  }

  /** Every runner's splits (GPS passing times, overridden by check-ins) of an approved race. */
  async splits(raceId: number): Promise<RunnerSplits[]> {
    const entry = await this.cache.require(raceId);
    return entry.live.splits();
  }

  /**
   * The leaderboard rows and splits as the public reads them at `nowMs` (the push notifier's clock): with a public
   * delay, what the server had received by `nowMs` − the delay (privacy/public-view.ts).
   */
  async publicRaceAt(
    raceId: number,
    nowMs: number,
  ): Promise<{ rows: LeaderboardRow[]; splits: RunnerSplits[] }> {
    if (this.privateStream) return this.privateStream.raceAt(raceId, nowMs);
    const entry = await this.cache.require(raceId);
    return { rows: entry.live.leaderboard(nowMs), splits: entry.live.splits() };
  }

  /** The prepared course of an approved race (null when it has none). */
  async course(raceId: number) {
    const entry = await this.cache.require(raceId);
    return entry.live.course;
  }

  /** The race's live state (404 when it is not public): replay and the flow chart read its race, course and clock. */
  async state(raceId: number): Promise<RaceLive> {
    const entry = await this.cache.require(raceId);
    return entry.live;
  }

  /**
   * Prepares an SSE stream for a viewer at address `clientIp` and returns the function that takes over the response.
   * Before any byte is written: a StreamLimitError past the per-client or total stream cap (checked first, so a
   * refused viewer costs no database read), 404 for a race that is not public. With a Last-Event-ID of the current
   * build whose follow-ups are still in the ring, only the missed messages are sent; otherwise a snapshot.
   * `compact`: the compact stream (`?v=4`, compact-stream.ts), whose snapshot is its baseline brought to now.
   * `readsLive`: the viewer is the race's director or an admin (a stream ticket, checked by the caller): the live
   * state even when the public's view differs (privacy).
   */
  async prepareStream(
    raceId: number,
    clientIp: string,
    lastEventId?: string,
    compact = false,
    readsLive = false,
  ): Promise<(res: ServerResponse) => void> {
    const slot = this.admission.admit(clientIp);
    let entry: RaceEntry;
    let privateSnapshot: Buffer | null = null;
    let privateStamp = -1;
    try {
      entry = await this.cache.require(raceId);
      // Privacy: the public view's own snapshot (never a resume of live messages).
      if (!readsLive && this.isPrivate(entry)) {
        privateStamp = entry.live.privacyStamp;
        privateSnapshot = await this.privateStream!.snapshot(raceId);
      }
    } catch (err) {
      slot.release();
      throw err;
    }
    const wasPrivate = privateSnapshot !== null;
    return (res) => {
      let initial: Buffer[];
      const now = this.cache.loaded(raceId);
      // Rebuilt, or its privacy changed or is being read again, since: nothing from before; a new snapshot below.
      const stale =
        !readsLive &&
        (now !== entry ||
          !!entry.privacyHold ||
          this.isPrivate(entry) !== wasPrivate ||
          (wasPrivate && entry.live.privacyStamp !== privateStamp));
      if (stale) initial = [];
      else if (privateSnapshot) initial = [privateSnapshot];
      else if (compact) {
        // The viewers already there get what changed, so the baseline is the race now: then a resume or snapshot.
        this.compactFlush(entry, false);
        initial = compactResume(entry, lastEventId) ?? [compactSnapshotMessage(entry, this.now())];
      } else initial = resumeMessages(entry, lastEventId, this.now()) ?? [snapshotMessage(entry, this.now())];
      this.hub.open(
        raceId,
        res,
        initial,
        () => {
          const current = this.cache.loaded(raceId);
          if (current) current.lastUsed = this.now();
        },
        slot,
        readsLive
          ? compact
            ? CHANNEL.liveCompact
            : CHANNEL.liveFirst
          : compact
            ? CHANNEL.compact
            : CHANNEL.first,
      );
      if (stale && now) {
        if (now.privacyHold) now.privacyOwed = true;
        else this.announce(now);
      }
    };
  }

  /** Live streams open (or being prepared) in this process, of one client address or in total. */
  streamCount(clientIp?: string): number {
    return this.hub.streamCount(clientIp === undefined ? undefined : clientKey(clientIp));
  }

  viewerCount(raceId?: number): number {
    return this.hub.viewerCount(raceId);
  }

  /** Races whose live state is in memory now. */
  loadedRaceIds(): number[] {
    return this.cache.raceIds();
  }

  /**
   * Ends all streams and stops listening; call before the HTTP server closes. Graceful stop: the updates still being
   * coalesced (the first stream's `batchMs`, the compact stream's 15 s) go out to the viewers first, then the hub
   * ends every stream with a short `retry:` hint, so a viewer reconnecting elsewhere resumes from the newest event.
   */
  close(): void {
    if (this.closed) return;
    this.flushPending();
    this.closed = true;
    this.unsubscribe();
    this.unsubscribeReconnect();
    clearInterval(this.sweeper);
    clearInterval(this.ticker);
    this.cache.close();
    this.hub.close();
  }

  /**
   * The bus was disconnected, so events sent meanwhile by other processes were lost: rebuild every race in memory
   * from the database (its viewers get a fresh snapshot). A race being (re)loaded now is rebuilt once more after
   * that load, whose read may predate the reconnect.
   */
  catchUp(): void {
    if (this.closed) return;
    // Until rebuilt, a race's state misses what was lost: no resume from it for viewers of other processes.
    for (const [, entry] of this.cache.entries()) dropResumeLog(entry);
    for (const raceId of this.cache.raceIds(true)) this.onEvent({ type: 'race-updated', raceId });
  }

  // ---------------------------------------------------------------- events

  private onEvent(e: LiveEvent): void {
    if (this.closed || e.raceId === null) return;
    if (this.cache.queueIfLoading(e.raceId, e)) return;
    const entry = this.cache.loaded(e.raceId);
    if (!entry) return; // not in memory: the next reader loads it from the database, the event's data included
    if (e.type === 'race-updated') {
      // Hiding a runner or adding a delay applies from now: the public gets nothing until the privacy is read again.
      this.cache.holdForPrivacy(entry);
      return this.cache.scheduleReload(e.raceId);
    }
    if (e.type === 'checkin') return this.onCheckin(entry, e);
    if ((e.type !== 'position' && e.type !== 'battery') || e.runnerId === null) return;
    if (!entry.live.hasRunner(e.runnerId)) {
      // A runner we do not know yet (added after the load): rebuild from the database.
      this.cache.scheduleReload(e.raceId);
      return;
    }
    const reading = { batteryPercent: e.batteryPercent, batteryState: e.batteryState };
    if (e.type === 'battery') {
      if (entry.live.setBattery(e.runnerId, reading, Date.parse(e.at))) this.scheduleFlush(entry);
      return;
    }
    const fix: LiveFix = {
      t: Date.parse(e.fixTime),
      lat: e.lat,
      lon: e.lon,
      ...reading,
      accuracy: e.accuracy ?? null,
    };
    logFix(entry, e.receivedAt, [e.runnerId, fix.t, fix.lat, fix.lon]);
    if (!entry.live.addFix(e.runnerId, fix, this.now())) return;
    let list = entry.pendingFixes.get(e.runnerId);
    if (!list) entry.pendingFixes.set(e.runnerId, (list = []));
    list.push(fix);
    noteCompactFix(entry, e.runnerId, fix);
    this.scheduleFlush(entry);
  }

  /**
   * An aid-station check-in: a fix at the checkpoint at the check-in time (no battery), placed and ranked like a GPS
   * fix, so a runner whose tracker died still moves on.
   */
  private onCheckin(entry: RaceEntry, e: Extract<LiveEvent, { type: 'checkin' }>): void {
    if (!entry.live.hasRunner(e.runnerId)) return this.cache.scheduleReload(e.raceId);
    // The check-in's time is the runner's split at its checkpoint (whether or not the fix below is new).
    if (entry.live.addCheckin(e.runnerId, e.checkpointId, Date.parse(e.time))) this.scheduleFlush(entry);
    const fix: LiveFix = {
      t: Date.parse(e.time),
      lat: e.lat,
      lon: e.lon,
      batteryPercent: null,
      batteryState: null,
    };
    if (!entry.live.addFix(e.runnerId, fix, this.now())) return;
    let list = entry.pendingFixes.get(e.runnerId);
    if (!list) entry.pendingFixes.set(e.runnerId, (list = []));
    list.push(fix);
    noteCompactFix(entry, e.runnerId, fix);
    this.scheduleFlush(entry);
  }

  /** Time alone changes statuses (a runner who stops pinging goes stale): push those changes to viewers. */
  private tick() {
    for (const [raceId, entry] of this.cache.entries()) {
      if (this.hub.viewerCount(raceId) > 0) this.scheduleFlush(entry);
    }
  }

  // ---------------------------------------------------------------- SSE updates

  private scheduleFlush(entry: RaceEntry) {
    scheduleCompactFlush(entry, this.compactBatchMs, this.now(), () => this.compactFlush(entry, true));
    if (entry.flushTimer) return;
    // Leading edge when idle (lowest delay), then at most one message per batchMs per race.
    const wait = Math.max(0, entry.lastFlush + this.batchMs - this.now());
    entry.flushTimer = setTimeout(() => this.flush(entry), wait);
  }

  private flush(entry: RaceEntry) {
    entry.flushTimer = null;
    const raceId = entry.live.race.id;
    // Held for a privacy read: sent when released (RaceCache.holdForPrivacy), to the channels the privacy then allows.
    if (this.closed || this.cache.loaded(raceId) !== entry || entry.privacyHold) return;
    const now = this.now();
    entry.lastFlush = now;
    const message = updateMessage(entry, now);
    // A private race's public viewers get the public view's updates instead (privacy/public-view.ts).
    if (message) this.hub.broadcast(raceId, message, this.liveChannels(this.isPrivate(entry), false));
  }

  /** Sends now what is waiting for its flush timer, in both formats (graceful stop). */
  private flushPending() {
    for (const [, entry] of this.cache.entries()) {
      if (entry.flushTimer) {
        clearTimeout(entry.flushTimer);
        this.flush(entry);
      }
      if (!hasCompactState(entry)) continue;
      this.compactFlush(entry, false);
      dropCompactState(entry); // and its timer
    }
  }

  /**
   * The compact stream's message of what changed (compact-stream.ts). From the timer, a race with no compact viewer
   * left forgets its compact state instead.
   */
  private compactFlush(entry: RaceEntry, fromTimer: boolean) {
    const raceId = entry.live.race.id;
    if (this.closed || this.cache.loaded(raceId) !== entry || entry.privacyHold) return;
    if (fromTimer && this.compactViewers(raceId) === 0) return dropCompactState(entry);
    const message = compactUpdateMessage(entry, this.now());
    if (message) this.hub.broadcast(raceId, message, this.liveChannels(this.isPrivate(entry), true));
  }
}
