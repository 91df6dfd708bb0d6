import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { LiveEvent } from '../events/bus';
import { readMapShareFeed } from '../ingest/adapters/mapshare';
import type { IngestService } from '../ingest/service';
import { pollDeviceFeeds } from './device-feed-poller';
import { fetchFeed } from './feed-fetch';
import type { DeviceFeedRow } from './device-feed-repository';
import type { Job } from './runner';

export const MAPSHARE_POLL_JOB = 'mapshare-poll';

/** Never more often than this per MapShare feed. */
export const MAPSHARE_MIN_INTERVAL_S = 120;
/** Garmin blocks an address for an hour above 2,000 requests an hour: we stay under 1,800. */
export const MAPSHARE_MAX_REQUESTS_PER_HOUR = 1800;
/** How far back a first poll reads (no fix yet), and how much a later poll overlaps the newest fix. */
const FIRST_LOOKBACK_MS = 24 * 3600_000;
const OVERLAP_MS = 3600_000;
/**
 * 24 hours of 30-second tracking is about 6 MB of KML: anything far beyond is not a MapShare feed (reading stops at
 * this many bytes, feed-fetch.ts).
 */
export const MAX_FEED_BYTES = 20 * 1024 * 1024;

/** Seconds between two polls of one feed: 2 minutes, longer when many feeds would pass Garmin's hourly limit. */
export const mapShareIntervalSeconds = (feeds: number) =>
  Math.max(MAPSHARE_MIN_INTERVAL_S, Math.ceil((feeds * 3600) / MAPSHARE_MAX_REQUESTS_PER_HOUR));

/** Garmin's `d1` format: `2025-10-09T08:50z` (UTC, minutes). */
export const mapShareD1 = (d: Date) => `${d.toISOString().slice(0, 16)}z`;

export interface MapSharePollJobOptions {
  db: Db;
  ingest: IngestService;
  log: FastifyBaseLogger;
  /** MAPSHARE_API_URL: `${apiUrl}/{mapshareName}?d1=…`. */
  apiUrl: string;
  /** How often the schedule is checked (default 10 s). */
  everyMs?: number;
  /** The clock polls are scheduled by (tests move it). */
  now?: () => number;
}

/**
 * Garmin MapShare: each device with source `mapshare` (HardwareId = the MapShare name, FeedPassword = the MapShare
 * password if the page has one) in a race that needs it (device-feed-repository: activeFeedDeviceIds) is polled at
 * most once per 2 minutes, from its newest fix minus an hour (a first poll: the last 24 hours); failures back off.
 * The messages go through the ingest pipeline like any device's (idempotent, attributed by fix time), an
 * emergency raises the runner's SOS alert.
 */
export class MapSharePollJob implements Job {
  readonly name = MAPSHARE_POLL_JOB;
  readonly everyMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: MapSharePollJobOptions) {
    this.everyMs = opts.everyMs ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** A tracker attached or a race started: poll at once what is due. */
  wakeOn(event: LiveEvent): boolean {
    return event.type === 'race-updated';
  }

  async runOnce(signal?: AbortSignal): Promise<void> {
    await pollDeviceFeeds(
      {
        db: this.opts.db,
        log: this.opts.log,
        kind: 'mapshare',
        intervalSeconds: mapShareIntervalSeconds,
        now: this.now,
        poll: (device, lastFix, s) => this.poll(device, lastFix, s),
      },
      signal,
    );
  }

  private async poll(device: DeviceFeedRow, lastFix: Date | null, signal?: AbortSignal): Promise<void> {
    const { apiUrl, ingest, log } = this.opts;
    const now = this.now();
    const since = lastFix
      ? new Date(Math.max(lastFix.getTime() - OVERLAP_MS, now - FIRST_LOOKBACK_MS))
      : new Date(now - FIRST_LOOKBACK_MS);
    const url = new URL(`${apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(device.hardwareId ?? '')}`);
    url.searchParams.set('d1', mapShareD1(since));
    const headers: Record<string, string> = { accept: 'application/vnd.google-earth.kml+xml, */*' };
    // MapShare asks only for the password; the user name is not checked.
    if (device.feedPassword)
      headers.authorization = `Basic ${Buffer.from(`:${device.feedPassword}`).toString('base64')}`;
    const timeout = AbortSignal.timeout(20_000);
    const res = await fetchFeed(url, {
      what: 'MapShare',
      maxBytes: MAX_FEED_BYTES,
      headers,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (res.status === 401 || res.status === 403)
      throw new Error(
        `MapShare refused access (HTTP ${res.status}): ${device.feedPassword ? 'the MapShare password is wrong' : 'the MapShare page has a password; enter it'}, or make the MapShare page public.`,
      );
    if (res.status === 404)
      throw new Error('MapShare has no page of this name (HTTP 404): check the MapShare name.');
    if (res.status < 200 || res.status > 299) throw new Error(`MapShare answered HTTP ${res.status}`);
    const { text } = res;
    const read = readMapShareFeed(text, device.id);
    if (!read.ok) throw new Error(`MapShare feed unreadable: ${read.error.message}`);
    const result = await ingest.acceptEach('mapshare', read.batch);
    const skipped = ingest.skipped(read.batch, result);
    if (skipped) log.warn({ deviceId: device.id, ...skipped }, 'MapShare messages skipped');
  }
}
