import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import type { LiveEvent } from '../events/bus';
import { readSpotPage } from '../ingest/adapters/spot';
import type { IngestService } from '../ingest/service';
import { listSpotFeeds, type SpotFeedRow } from '../ingest/spot-feed-repository';
import type { DeviceBatch } from '../ingest/adapters/contract';
import { pollDeviceFeeds } from './device-feed-poller';
import { fetchFeed } from './feed-fetch';
import type { DeviceFeedRow } from './device-feed-repository';
import type { Job } from './runner';
import { activeSpotRaceIds, claimSpotFeed, setSpotFeedError } from './spot-poll-repository';

export const SPOT_POLL_JOB = 'spot-poll';

export interface SpotPollJobOptions {
  db: Db;
  ingest: IngestService;
  log: FastifyBaseLogger;
  apiUrl: string;
  pollSeconds: number;
  /** How often the schedule is checked; a race going live is noticed within this (and at once via the bus). */
  everyMs?: number;
  /** The clock runners' own feeds are scheduled by (tests move it). */
  now?: () => number;
}

const PAGE_SIZE = 50;
/** A page of 50 messages is about 30 KB: reading stops at 2 MB (feed-fetch.ts), nothing past it is a SPOT page. */
export const MAX_SPOT_PAGE_BYTES = 2 * 1024 * 1024;
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
 * One process runs the job (the runner's lock); each poll also claims its feed in the database, so that even a
 * hand-over between processes never polls a feed more often than SPOT allows.
 */
export class SpotPollJob implements Job {
  readonly name = SPOT_POLL_JOB;
  readonly everyMs: number;
  private activeRaces = new Set<number>();
  private readonly state = new Map<number, FeedState>();
  private forceAll = false;

  constructor(private readonly opts: SpotPollJobOptions) {
    this.everyMs = opts.everyMs ?? 5000;
  }

  /** A race changed (started, devices assigned): check at once whether feeds must be polled. */
  wakeOn(event: LiveEvent): boolean {
    return event.type === 'race-updated';
  }

  /** Polls every feed that is due: runners' own feeds, then the shared feeds if a race needs SPOT now. */
  async runOnce(signal?: AbortSignal): Promise<void> {
    await this.pollOwnFeeds(signal);
    await this.pollSharedFeeds(signal);
  }

  /**
   * SPOT devices with their own feed id (a runner's own messenger): polled while their race needs them, by the
   * same rules as a shared feed (once per SPOT_POLL_SECONDS at most, back-off on errors), the claim and back-off
   * kept on the device (device-feed-poller.ts). Every message of the feed is the device's, whatever its ESN.
   */
  private async pollOwnFeeds(signal?: AbortSignal): Promise<void> {
    const { db, log, pollSeconds } = this.opts;
    await pollDeviceFeeds(
      {
        db,
        log,
        kind: 'spot',
        intervalSeconds: () => pollSeconds,
        now: this.opts.now ?? Date.now,
        poll: (device, lastFix) => this.pollOwnFeed(device, lastFix),
      },
      signal,
    );
  }

  private async pollOwnFeed(device: DeviceFeedRow, lastFix: Date | null): Promise<void> {
    const { ingest, log } = this.opts;
    const feed = { feedId: device.feedId ?? '', feedPassword: device.feedPassword } as SpotFeedRow;
    const ref = { deviceId: device.id };
    for (let page = 0; page < 3; page++) {
      const read = readSpotPage(await this.fetchPage(feed, page * PAGE_SIZE));
      if (!read.ok) throw new Error(read.error.message);
      const batch: DeviceBatch = {
        ...read.batch,
        fixes: read.batch.fixes.map((f) => ({ ...f, device: ref })),
        alerts: read.batch.alerts.map((a) => ({ ...a, device: ref })),
      };
      const result = await ingest.acceptEach('spot', batch);
      const skipped = ingest.skipped(batch, result);
      if (skipped) log.warn({ deviceId: device.id, ...skipped }, 'SPOT messages skipped');
      const oldest = Math.min(...batch.fixes.map((f) => f.fixTime.getTime()));
      if (batch.received < PAGE_SIZE || (lastFix && oldest <= lastFix.getTime())) break;
    }
  }

  private async pollSharedFeeds(signal?: AbortSignal): Promise<void> {
    const { db, pollSeconds } = this.opts;
    const active = await activeSpotRaceIds(db);
    const newlyActive = active.some((id) => !this.activeRaces.has(id));
    this.activeRaces = new Set(active);
    if (newlyActive) this.forceAll = true;
    if (!active.length) return;
    const forced = this.forceAll;
    this.forceAll = false;
    const feeds = await listSpotFeeds(db);
    for (const feed of feeds) {
      if (signal?.aborted) return;
      const st = this.state.get(feed.id) ?? { nextAt: 0, failures: 0 };
      this.state.set(feed.id, st);
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
        // Our database is down: not the feed's fault; the runner reports the outage and the next turn retries.
        if (isDatabaseUnavailable(err)) throw err;
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
    const res = await fetchFeed(url, {
      what: 'SPOT',
      maxBytes: MAX_SPOT_PAGE_BYTES,
      signal: AbortSignal.timeout(20_000),
      headers: { accept: 'application/json' },
    });
    if (res.status < 200 || res.status > 299) throw new Error(`SPOT answered HTTP ${res.status}`);
    try {
      return JSON.parse(res.text) as unknown;
    } catch {
      throw new Error('SPOT answered something that is not JSON');
    }
  }

  private async poll(feed: SpotFeedRow, st: FeedState) {
    const { ingest, log } = this.opts;
    // Page back (50 messages a page, newest first) until reaching messages already seen.
    const maxPages = st.newest === undefined ? 3 : 10;
    let newest = st.newest ?? 0;
    for (let page = 0; page < maxPages; page++) {
      const read = readSpotPage(await this.fetchPage(feed, page * PAGE_SIZE));
      if (!read.ok) throw new Error(read.error.message);
      const { batch } = read;
      // A message with a bad value is skipped (and logged); the others are stored. Only a database failing every
      // write fails the poll (retried with back-off; re-stored messages are ignored).
      const result = await ingest.acceptEach('spot', batch);
      const skipped = ingest.skipped(batch, result);
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
