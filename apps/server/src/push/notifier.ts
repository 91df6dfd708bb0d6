import type { LeaderboardRow, RunnerSplits } from '@racebeacon/domain';
import { listCheckpoints } from '../checkpoints/repository';
import type { Db } from '../db/client';
import { HttpError } from '../lib/errors';
import type { LiveService } from '../live/service';
import { decideRunnerNotices, type NoticeCheckpoint } from './notices';
import {
  deleteRaceSubscriptions,
  deleteSubscription,
  findPublicRace,
  findRaceRunners,
  listRaceSubscriptions,
  listSubscribedRaceIds,
  recordSent,
  type PushSubscriptionRow,
  type RunnerSent,
  type SentState,
} from './repository';
import type { PushSender } from './sender';

export interface PushNotifierOptions {
  db: Db;
  live: Pick<LiveService, 'state' | 'publicRaceAt'>;
  sender: PushSender;
  log: { warn(obj: unknown, msg?: string): void; info?(obj: unknown, msg?: string): void };
  now?: () => number;
  /** Subscriptions sent to at once (default 32: a push service answers in tens of ms over the internet). */
  concurrency?: number;
}

/**
 * After the race clock stopped (and its public delay), late news is still told for this long (a tracker's buffered
 * fixes, a check-in entered late); then the race's subscriptions are deleted.
 */
export const DONE_AFTER_END_MS = 6 * 3600_000;

/** How long a push service keeps a message for a browser that is offline (s). */
const TTL_SECONDS = 6 * 3600;

export interface RaceNews {
  raceId: number;
  nowMs: number;
  delayMs: number;
  clockStartMs: number | null;
  endedMs: number | null;
  rows: Map<number, LeaderboardRow>;
  splits: Map<number, RunnerSplits['Splits']>;
  manual: Map<number, { status: string | null; statusAt: Date | null }>;
  checkpoints: Map<number, NoticeCheckpoint>;
}

/** JSON with sorted keys: jsonb gives keys back in its own order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/** The followed race as the public sees it now: null when it is not public (or gone). */
export async function readRaceNews(
  db: Db,
  live: Pick<LiveService, 'state' | 'publicRaceAt'>,
  raceId: number,
  nowMs: number,
): Promise<RaceNews | null> {
  const race = await findPublicRace(db, raceId);
  if (!race) return null;
  let state;
  try {
    state = await live.state(raceId);
  } catch (err) {
    if (err instanceof HttpError && err.statusCode === 404) return null;
    throw err;
  }
  // What the public reads at nowMs: with a public delay, what the server had received by nowMs − delay (a device
  // whose clock is behind dates its passing early, but it is news only from its arrival + the delay).
  const pub = await live.publicRaceAt(raceId, nowMs);
  const rows = new Map(pub.rows.map((r) => [r.RunnerId, r]));
  const splits = new Map(pub.splits.map((s) => [s.RunnerId, s.Splits]));
  const [checkpointRows, runnerRows] = await Promise.all([
    listCheckpoints(db, raceId),
    findRaceRunners(db, raceId, [...rows.keys()]),
  ]);
  return {
    raceId,
    nowMs,
    delayMs: race.publicDelayMin * 60_000,
    clockStartMs: state.race.clockStartedAt?.getTime() ?? null,
    endedMs: state.race.clockStoppedAt?.getTime() ?? null,
    rows,
    splits,
    manual: new Map(runnerRows.map((r) => [r.id, { status: r.status, statusAt: r.statusAt }])),
    checkpoints: new Map(
      checkpointRows.map((c) => [c.id, { name: c.name, kind: c.kind, distanceM: c.distanceM }]),
    ),
  };
}

function runnerNews(news: RaceNews, runnerId: number) {
  const row = news.rows.get(runnerId);
  if (!row) return null;
  const manual = news.manual.get(runnerId);
  return {
    raceId: news.raceId,
    row,
    splits: news.splits.get(runnerId) ?? [],
    manualStatus: manual?.status ?? null,
    manualStatusAt: manual?.statusAt ?? null,
  };
}

/**
 * What a browser that starts following `runnerId` now has already seen (everything the public could see), recorded
 * as sent so that only later news is sent: a passing stored later is news even when a buffered fix dates it
 * earlier, and with a public delay what happened but is not shown yet is sent when it is.
 */
export function baselineSent(news: RaceNews | null, runnerId: number, nowMs: number): RunnerSent {
  const r = news && runnerNews(news, runnerId);
  if (!news || !r) return { since: nowMs, cps: [] };
  const { sent } = decideRunnerNotices(
    r,
    { since: Number.MAX_SAFE_INTEGER, cps: [] },
    { ...news, kinds: new Set() },
  );
  return { ...sent, since: 0 };
}

/**
 * One pass over every race somebody follows: the followed runners as the live race has them now (checkpoint
 * passings from the splits, the finish, a DNF, silence) are compared with what each subscription was already sent
 * (push_subscriptions.sent_state), the news is sent, and what was sent is recorded. A message is recorded only once
 * the push service took it (a failure is tried again next pass); a subscription the push service says is gone
 * (404/410) is deleted. Run by the push-notify job (one process of a cluster).
 */
export class PushNotifier {
  private readonly now: () => number;

  constructor(private readonly opts: PushNotifierOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Returns how many messages were sent and subscriptions deleted. */
  async runOnce(signal?: AbortSignal): Promise<{ sent: number; removed: number }> {
    const totals = { sent: 0, removed: 0 };
    for (const raceId of await listSubscribedRaceIds(this.opts.db)) {
      if (signal?.aborted) break;
      const race = await findPublicRace(this.opts.db, raceId);
      if (
        race?.endedAt &&
        race.endedAt.getTime() + race.publicDelayMin * 60_000 + DONE_AFTER_END_MS < this.now()
      ) {
        // Nothing more will be told: the endpoints (personal data) are not kept.
        totals.removed += await deleteRaceSubscriptions(this.opts.db, raceId);
        continue;
      }
      const news = await readRaceNews(this.opts.db, this.opts.live, raceId, this.now());
      if (!news) continue;
      const subs = await listRaceSubscriptions(this.opts.db, raceId);
      const queue = [...subs];
      const worker = async () => {
        for (let sub = queue.shift(); sub; sub = queue.shift()) {
          if (signal?.aborted) return;
          const r = await this.notifySubscription(sub, news);
          totals.sent += r.sent;
          totals.removed += r.removed ? 1 : 0;
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 32, subs.length) }, worker));
    }
    return totals;
  }

  private async notifySubscription(
    sub: PushSubscriptionRow,
    news: RaceNews,
  ): Promise<{ sent: number; removed: boolean }> {
    const before = (sub.sentState ?? {}) as SentState;
    const after: SentState = {};
    const kinds = new Set(sub.kinds);
    let sent = 0;
    for (const runnerId of sub.runnerIds) {
      const key = String(runnerId);
      const was: RunnerSent = before[key] ?? { since: sub.createdAt.getTime(), cps: [] };
      const r = runnerNews(news, runnerId);
      if (!r) {
        after[key] = was;
        continue;
      }
      const decision = decideRunnerNotices(r, was, { ...news, kinds, locale: sub.locale });
      let delivered = true;
      for (const notice of decision.notices) {
        const result = await this.opts.sender.send(sub, JSON.stringify(notice), {
          ttlSeconds: notice.kind === 'no-news' ? 3600 : TTL_SECONDS,
          topic: `r${runnerId}`,
        });
        if (result.ok) {
          sent++;
          continue;
        }
        if (result.gone) {
          await deleteSubscription(this.opts.db, sub.id);
          this.opts.log.info?.(
            { subscription: sub.id, status: result.status },
            'push subscription gone; deleted',
          );
          return { sent, removed: true };
        }
        this.opts.log.warn(
          { subscription: sub.id, status: result.status, error: result.error },
          'push message not delivered; tried again next pass',
        );
        delivered = false;
        break;
      }
      after[key] = delivered ? decision.sent : was;
    }
    if (canonical(after) !== canonical(before))
      await recordSent(this.opts.db, sub.id, sub.runnerIds, after, new Date(news.nowMs));
    return { sent, removed: false };
  }
}
