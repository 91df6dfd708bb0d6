import { prepareCourse, type RacePrivacy } from '@racebeacon/domain';
import type { Db } from '../db/client';
import type { LiveEvent } from '../events/bus';
import { notFound } from '../lib/errors';
import { listCheckinFixes } from '../checkins/repository';
import { listCheckpoints } from '../checkpoints/repository';
import { toSplitCheckpoint } from '../checkpoints/service';
import { mergeCheckinFixes } from './checkin-fixes';
import { RaceLive } from './race-live';
import type { LiveFix } from './runner-live';
import {
  findCourseGeometry,
  findLiveRace,
  findRacePrivacy,
  listLiveRunners,
  listRaceFixes,
} from './repository';

/** One race's live state in memory, with what its viewers were sent. */
export interface RaceEntry {
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
  /**
   * Set from a `race-updated` until the race's privacy was read again (`holdForPrivacy`): meanwhile nothing goes to
   * the public (the stream waits, readers wait), so a privacy change applies from the moment it is answered.
   */
  privacyHold: Promise<void> | null;
  privacySeq: number;
  /** The public's view changed, or a snapshot was not sent, while held: viewers get a new snapshot when released. */
  privacyOwed: boolean;
}

interface Loading {
  promise: Promise<RaceEntry | null>;
  /** Events that arrived while the database was being read; replayed once the state exists. */
  queued: LiveEvent[];
}

export interface RaceCacheOptions {
  db: Db;
  offCourseM: number;
  now: () => number;
  log?: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
  /** Applies an event to a race in memory; events queued during a (re)load are replayed through it. */
  apply(e: LiveEvent): void;
  /** A race was rebuilt from the database: its viewers need a new snapshot. */
  rebuilt(entry: RaceEntry): void;
  /** A race in memory is no longer public: its viewers are told and their streams end. */
  gone(raceId: number): void;
  /** A race's privacy hold ended (`holdForPrivacy`); `owed`: its viewers need a new snapshot. */
  released(entry: RaceEntry, owed: boolean): void;
}

/**
 * The races' live state in memory: built lazily from the database on first use (concurrent readers share one
 * load), rebuilt when the race changes (debounced; readers keep the old state meanwhile), dropped when nobody has
 * looked at it for a while. Events that arrive while a race is being read are queued and replayed on the new state.
 */
export class RaceCache {
  private readonly races = new Map<number, RaceEntry>();
  private readonly loading = new Map<number, Loading>();
  private readonly reloadTimers = new Map<number, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly opts: RaceCacheOptions) {}

  /**
   * The race's state, loading it if needed; 404 when it does not exist or is not public. While its privacy is being
   * read again after a change (`holdForPrivacy`, a few milliseconds), readers wait for it.
   */
  async require(raceId: number): Promise<RaceEntry> {
    let entry = await this.get(raceId);
    while (entry?.privacyHold) {
      await entry.privacyHold;
      entry = this.races.get(raceId) ?? entry;
    }
    if (!entry) throw notFound(`Race ${raceId} was not found or is not public.`, 'race_not_found');
    entry.lastUsed = this.opts.now();
    return entry;
  }

  /**
   * A `race-updated` of a race in memory: the race, its runners or their privacy may have changed, and the rebuild
   * that follows takes from 100 ms to seconds. Until the privacy was read again (one small query) the race's public
   * output is held — nothing is sent to the public, readers wait — and the privacy read is applied at once the
   * stricter way (`RaceLive.tightenPrivacy`; loosening waits for the rebuild). Every process does this when the event
   * reaches it: the process that made the change before answering, the others as soon as they are told.
   */
  holdForPrivacy(entry: RaceEntry, owed = false): void {
    const raceId = entry.live.race.id;
    const seq = ++entry.privacySeq;
    if (owed) entry.privacyOwed = true;
    entry.privacyHold = findRacePrivacy(this.opts.db, raceId)
      .catch((err: unknown) => {
        this.opts.log?.warn(
          { err, raceId },
          'race privacy read failed; nobody’s position is public until rebuilt',
        );
        return null;
      })
      .then((read) => {
        if (entry.live.tightenPrivacy(read ?? closedPrivacy(entry.live))) entry.privacyOwed = true;
        if (entry.privacySeq !== seq) return; // a later change is being read
        entry.privacyHold = null;
        const owedNow = entry.privacyOwed;
        entry.privacyOwed = false;
        if (this.races.get(raceId) === entry && !this.closed) this.opts.released(entry, owedNow);
      });
  }

  /** The race's state if it is in memory now. */
  loaded(raceId: number): RaceEntry | undefined {
    return this.races.get(raceId);
  }

  /** Races in memory now (and, with `withLoading`, those being read). */
  raceIds(withLoading = false): number[] {
    return withLoading
      ? [...new Set([...this.races.keys(), ...this.loading.keys()])]
      : [...this.races.keys()];
  }

  entries(): IterableIterator<[number, RaceEntry]> {
    return this.races.entries();
  }

  /** Keeps the event for replay when its race is being read now; true when it was kept. */
  queueIfLoading(raceId: number, e: LiveEvent): boolean {
    const loading = this.loading.get(raceId);
    if (!loading) return false;
    loading.queued.push(e);
    return true;
  }

  /** Race, runners, course or devices changed: rebuild from the database (debounced) and send a new snapshot. */
  scheduleReload(raceId: number): void {
    if (this.reloadTimers.has(raceId) || this.closed) return;
    const timer = setTimeout(() => {
      this.reloadTimers.delete(raceId);
      void this.reload(raceId);
    }, 100);
    this.reloadTimers.set(raceId, timer);
  }

  /** Drops the races nobody watches and nobody has read for `idleMs`. */
  evictIdle(watched: (raceId: number) => boolean, idleMs: number): void {
    const now = this.opts.now();
    for (const [raceId, e] of this.races) {
      if (!watched(raceId) && now - e.lastUsed > idleMs) {
        if (e.flushTimer) clearTimeout(e.flushTimer);
        this.races.delete(raceId);
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const t of this.reloadTimers.values()) clearTimeout(t);
    for (const e of this.races.values()) if (e.flushTimer) clearTimeout(e.flushTimer);
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
        const entry = newEntry(live, this.opts.now());
        this.races.set(raceId, entry);
        // Out of `loading` before the replay: events for a race still loading are queued, so replaying while
        // listed there would push each event back onto the array being walked (an endless loop).
        this.loading.delete(raceId);
        for (const e of loading.queued.splice(0)) this.opts.apply(e);
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
    const [geometry, runners, gpsFixes, checkins, checkpointRows] = await Promise.all([
      findCourseGeometry(db, raceId),
      listLiveRunners(db, raceId),
      listRaceFixes(db, raceId),
      listCheckinFixes(db, raceId),
      listCheckpoints(db, raceId),
    ]);
    // Aid-station check-ins are fixes at their checkpoint, merged with the GPS fixes in runner and time order.
    const fixes = checkins.length ? mergeCheckinFixes(gpsFixes, checkins) : gpsFixes;
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
      nowMs: this.opts.now(),
      checkpoints: checkpointRows.map(toSplitCheckpoint),
      checkins: checkins.map((c) => ({ runnerId: c.runnerId, checkpointId: c.checkpointId, t: c.t })),
    });
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
      for (const e of loading.queued) this.opts.apply(e);
      return;
    }
    this.loading.delete(raceId);
    if (this.closed) return;
    if (old.flushTimer) clearTimeout(old.flushTimer);
    if (!live) {
      this.races.delete(raceId);
      this.opts.gone(raceId);
      return;
    }
    const entry: RaceEntry = { ...newEntry(live, old.lastUsed), seq: old.seq, lastFlush: old.lastFlush };
    this.races.set(raceId, entry);
    // A change announced while the database was read may be newer than what was read: held until its privacy is.
    if (loading.queued.some((e) => e.type === 'race-updated')) this.holdForPrivacy(entry);
    this.opts.rebuilt(entry);
    for (const e of loading.queued) this.opts.apply(e);
  }
}

function newEntry(live: RaceLive, lastUsed: number): RaceEntry {
  return {
    live,
    lastUsed,
    seq: 0,
    pendingFixes: new Map(),
    flushTimer: null,
    lastFlush: 0,
    ring: [],
    snapshot: null,
    leaderboardJson: null,
    privacyHold: null,
    privacySeq: 0,
    privacyOwed: false,
  };
}

/** What the public may see when the privacy could not be read: no position and no trail of anybody. */
function closedPrivacy(live: RaceLive): RacePrivacy {
  return { ...live.privacy, trailsPublic: false, hiddenRunnerIds: new Set(live.runnerIds()) };
}
