import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { readSpotPage } from './adapters/spot';
import type { IngestService } from './service';
import { listSpotFeeds, type SpotFeedRow } from './spot-feed-repository';
import { activeSpotRaceIds, claimSpotFeed, setSpotFeedError } from './spot-schedule-repository';

export interface SpotPollerOptions {
  db: Db;
  service: IngestService;
  log: FastifyBaseLogger;
  apiUrl: string;
  pollSeconds: number;
  /** How often the schedule is checked; a race going live is noticed within this (and at once via the bus). */
  tickMs?: number;
}

const PAGE_SIZE = 50;
const MAX_BACKOFF_S = 30 * 60;

interface FeedState {
  nextAt: number;
  failures: number;
  /** Newest message time seen, to know when paging back can stop. */
  newest?: number;
}

/**
 * Polls the registered SPOT feeds, but only while a race using SPOT devices is live or starts within the hour:
 * SPOT asks for at most one request per feed per 2.5 minutes. A feed is polled within seconds of being added or of
 * such a race going live, then every SPOT_POLL_SECONDS; failures back off exponentially (up to 30 minutes).
 */
export class SpotPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private activeRaces = new Set<number>();
  private readonly state = new Map<number, FeedState>();
  private forceAll = false;
  private readonly forced = new Set<number>();
  private rerun = false;

  constructor(private readonly opts: SpotPollerOptions) {}

  start() {
    const tick = this.opts.tickMs ?? 5000;
    this.timer = setInterval(() => this.kick(), tick);
    this.timer.unref();
    this.kick();
  }

  /** A feed was just added: poll it now (if a race needs it). */
  feedAdded(id: number) {
    this.forced.add(id);
    this.kick();
  }

  /** Something about a race changed (started, devices assigned): re-check now. */
  racesChanged() {
    this.kick();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private kick() {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.tick()
      .catch((err: unknown) => this.opts.log.warn({ err }, 'SPOT poller tick failed'))
      .finally(() => {
        this.running = null;
        if (this.rerun && !this.stopped) {
          this.rerun = false;
          this.kick();
        }
      });
  }

  private async tick() {
    const { db, pollSeconds } = this.opts;
    const active = await activeSpotRaceIds(db);
    const newlyActive = active.some((id) => !this.activeRaces.has(id));
    this.activeRaces = new Set(active);
    if (newlyActive) this.forceAll = true;
    if (!active.length) return;
    const forceAll = this.forceAll;
    this.forceAll = false;
    const feeds = await listSpotFeeds(db);
    for (const feed of feeds) {
      if (this.stopped) return;
      const st = this.state.get(feed.id) ?? { nextAt: 0, failures: 0 };
      this.state.set(feed.id, st);
      const forced = forceAll || this.forced.delete(feed.id);
      if (!forced && Date.now() < st.nextAt) continue;
      // Another process may have polled it just now; the claim keeps the whole cluster within SPOT's limit.
      const gap = forced ? Math.min(5, pollSeconds) : Math.max(1, pollSeconds - 5);
      const claimed = await claimSpotFeed(db, feed.id, gap);
      if (!claimed) {
        st.nextAt = Date.now() + pollSeconds * 1000;
        continue;
      }
      try {
        await this.poll(claimed, st);
        st.failures = 0;
        st.nextAt = Date.now() + pollSeconds * 1000;
        if (feed.lastError) await setSpotFeedError(db, feed.id, null);
      } catch (err) {
        st.failures++;
        const wait = Math.min(pollSeconds * 2 ** st.failures, Math.max(MAX_BACKOFF_S, pollSeconds));
        st.nextAt = Date.now() + wait * 1000;
        const message = err instanceof Error ? err.message : String(err);
        this.opts.log.warn({ feedId: feed.feedId, err: message, retryInS: wait }, 'SPOT feed poll failed');
        await setSpotFeedError(db, feed.id, message.slice(0, 500));
      }
    }
  }

  private async fetchPage(feed: SpotFeedRow, start: number): Promise<unknown> {
    const url = new URL(
      `${this.opts.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(feed.feedId)}/message.json`,
    );
    if (feed.feedPassword) url.searchParams.set('feedPassword', feed.feedPassword);
    if (start) url.searchParams.set('start', String(start));
    const res = await fetch(url, {
      signal: AbortSignal.timeout(20_000),
      headers: { accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`SPOT answered HTTP ${res.status}`);
    try {
      return await res.json();
    } catch {
      throw new Error('SPOT answered something that is not JSON');
    }
  }

  private async poll(feed: SpotFeedRow, st: FeedState) {
    const { service, log } = this.opts;
    // Page back (50 messages a page, newest first) until reaching messages already seen.
    const maxPages = st.newest === undefined ? 3 : 10;
    let newest = st.newest ?? 0;
    for (let page = 0; page < maxPages; page++) {
      const read = readSpotPage(await this.fetchPage(feed, page * PAGE_SIZE));
      if (!read.ok) throw new Error(read.error.message);
      const { batch } = read;
      // A message with a bad value is skipped (and logged); the others are stored. Only a database failing every
      // write fails the poll (retried with back-off; re-stored messages are ignored).
      const result = await service.acceptEach('spot', batch);
      const skipped = service.skipped(batch, result);
      if (skipped) log.warn({ feedId: feed.feedId, ...skipped }, 'SPOT messages skipped');
      // Paging stops at messages already seen: only times that reached the store count.
      const times = batch.fixes
        .filter((_, i) => result.fixes[i].status !== 'invalid' && result.fixes[i].status !== 'rate_limited')
        .map((f) => f.fixTime.getTime());
      if (times.length) newest = Math.max(newest, ...times);
      const oldest = times.length ? Math.min(...times) : 0;
      if (batch.received < PAGE_SIZE || (st.newest !== undefined && oldest <= st.newest)) break;
    }
    st.newest = newest || st.newest;
  }
}
