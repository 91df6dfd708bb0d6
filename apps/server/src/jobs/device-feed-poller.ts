import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { isDatabaseUnavailable } from '../db/errors';
import {
  activeFeedDeviceIds,
  claimDeviceFeed,
  finishDeviceFeedPoll,
  type DeviceFeedRow,
  type FeedKind,
} from './device-feed-repository';

/** Back-off after failures: twice the poll interval, doubling with each failure in a row, at most 30 minutes. */
export const MAX_FEED_BACKOFF_S = 30 * 60;

export function nextBackoffSeconds(device: DeviceFeedRow, intervalS: number): number {
  const { prevError, prevPolledAt, prevNextPollAt } = device;
  const last =
    prevError && prevPolledAt && prevNextPollAt
      ? (prevNextPollAt.getTime() - prevPolledAt.getTime()) / 1000
      : 0;
  return Math.min(Math.max(last * 2, intervalS * 2), Math.max(MAX_FEED_BACKOFF_S, intervalS));
}

export interface DeviceFeedPollerOptions {
  db: Db;
  log: Pick<FastifyBaseLogger, 'warn'>;
  kind: FeedKind;
  /** Seconds between two polls of one feed, given how many feeds are polled (never below the source's floor). */
  intervalSeconds(activeFeeds: number): number;
  now: () => number;
  /** One poll of the device's feed; throws with a message for the director when the feed fails. */
  poll(device: DeviceFeedRow, since: Date | null, signal?: AbortSignal): Promise<void>;
}

/**
 * Polls every due device feed of one kind once: claim (at most one poll per interval per feed across the cluster,
 * and not before its back-off), poll, then record the next poll time and the error (shown to the director and
 * admin) or clear it. A database outage is not the feed's fault: it is thrown for the job runner to report.
 */
export async function pollDeviceFeeds(opts: DeviceFeedPollerOptions, signal?: AbortSignal): Promise<number> {
  const { db, log, kind } = opts;
  const ids = await activeFeedDeviceIds(db, kind, new Date(opts.now()));
  const intervalS = opts.intervalSeconds(ids.length);
  let polled = 0;
  for (const id of ids) {
    if (signal?.aborted) break;
    const now = new Date(opts.now());
    const device = await claimDeviceFeed(db, id, now, intervalS);
    if (!device) continue;
    polled++;
    try {
      await opts.poll(device, device.lastPingTime, signal);
      await finishDeviceFeedPoll(db, id, new Date(now.getTime() + intervalS * 1000), null);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      const wait = nextBackoffSeconds(device, intervalS);
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
      log.warn({ deviceId: id, kind, err: message, retryInS: wait }, 'tracker feed poll failed');
      await finishDeviceFeedPoll(db, id, new Date(now.getTime() + wait * 1000), message);
    }
  }
  return polled;
}
