import {
  PUSH_NO_NEWS_MS,
  type LeaderboardRow,
  type PushKind,
  type PushPayload,
  type Split,
} from '@racebeacon/domain';
import type { RunnerSent } from './repository';
import { pushTexts } from './texts';

/**
 * What a follower is told about one runner now, and what is then recorded as sent: pure, so the notifier job and
 * its tests decide the same way.
 *
 * News is what the public would see at that moment: the rows and splits given are the race as the public reads it
 * (with a public delay, what the server had received by now − delay: an event counts from its arrival, whatever the
 * device's clock says), and an event at time T is not sent before T + the delay either. Only news that became visible after the browser started following
 * the runner (`since`) is sent; older news is recorded as sent without a message. Each checkpoint passing, the
 * finish, a DNF and each silence (per last ping) is sent once. The texts hold what the public leaderboard shows
 * (names, bib, checkpoint, distance, race time), never coordinates, so a runner's hidden position stays hidden.
 */

export interface NoticeCheckpoint {
  name: string;
  kind: string;
  distanceM: number;
}

export interface RunnerNews {
  raceId: number;
  row: LeaderboardRow;
  splits: Split[];
  /** The status set by people (DNS/DNF/DSQ) and when. */
  manualStatus: string | null;
  manualStatusAt: Date | null;
}

export interface NoticeContext {
  nowMs: number;
  /** The race's public delay (ms). */
  delayMs: number;
  clockStartMs: number | null;
  /** When the race clock was stopped (no "no news" after it). */
  endedMs: number | null;
  checkpoints: Map<number, NoticeCheckpoint>;
  kinds: ReadonlySet<string>;
  /** Language of the texts (the subscription's; default en). */
  locale?: string;
}

export interface Decision {
  notices: PushPayload[];
  sent: RunnerSent;
}

const SILENT_STATUSES = new Set(['racing', 'stale', 'off-course']);

/** h:mm:ss */
export function raceTime(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export function decideRunnerNotices(news: RunnerNews, before: RunnerSent, ctx: NoticeContext): Decision {
  const { row } = news;
  const text = pushTexts(ctx.locale);
  const runner = text.who(`${row.FirstName} ${row.LastName}`.trim(), row.BibNumber);
  const who = () => runner;
  const km = (m: number) => text.km(m / 1000);
  const sent: RunnerSent = { ...before, cps: [...before.cps] };
  const notices: PushPayload[] = [];
  const url = `/race/${news.raceId}/runner/${encodeURIComponent(row.BibNumber ?? String(row.RunnerId))}`;
  const base = {
    raceId: news.raceId,
    runnerId: row.RunnerId,
    url,
    tag: `runner-${news.raceId}-${row.RunnerId}`,
  };
  const sinceStart = (t: number) => (ctx.clockStartMs == null ? null : raceTime(t - ctx.clockStartMs));
  /** 'send' when visible now and after following began, 'old' when visible before it, 'later' when not yet. */
  const due = (eventMs: number): 'send' | 'old' | 'later' => {
    const visible = eventMs + ctx.delayMs;
    if (visible > ctx.nowMs) return 'later';
    return visible > sent.since ? 'send' : 'old';
  };
  const push = (kind: PushKind, title: string, body: string) => {
    if (ctx.kinds.has(kind)) notices.push({ ...base, kind, title, body });
  };

  // DNF (set by the director or an aid station).
  if (!sent.dnf && news.manualStatus === 'DNF' && news.manualStatusAt) {
    const d = due(news.manualStatusAt.getTime());
    if (d !== 'later') {
      sent.dnf = true;
      if (d === 'send') {
        push('dnf', who(), text.dnf(who(), row.DistanceKm != null ? km(row.DistanceKm * 1000) : null));
      }
    }
  }

  // Finished.
  if (!sent.finished && row.Status === 'finished' && row.FinishTime) {
    const t = Date.parse(row.FinishTime);
    const d = due(t);
    if (d !== 'later') {
      sent.finished = true;
      if (d === 'send') {
        push('finished', who(), text.finished(who(), sinceStart(t)));
      }
    }
  }

  // Checkpoints passed (not the start; the finish is "finished"): one message, the latest new one.
  let latest: { at: number; cp: NoticeCheckpoint } | null = null;
  for (const split of news.splits) {
    if (sent.cps.includes(split.CheckpointId)) continue;
    const cp = ctx.checkpoints.get(split.CheckpointId);
    if (!cp || cp.kind === 'start' || cp.kind === 'finish') continue;
    const at = Date.parse(split.PassingTime);
    const d = due(at);
    if (d === 'later') continue;
    sent.cps.push(split.CheckpointId);
    if (d === 'send' && (!latest || at > latest.at)) latest = { at, cp };
  }
  if (latest && notices.every((n) => n.kind !== 'finished')) {
    push(
      'checkpoint',
      who(),
      text.checkpoint(who(), latest.cp.name, km(latest.cp.distanceM), sinceStart(latest.at)),
    );
  }

  // No news for an hour, while racing and the race clock runs: once per last ping.
  if (row.LastPingTime && SILENT_STATUSES.has(row.Status) && news.manualStatus == null) {
    const last = Date.parse(row.LastPingTime);
    const silentAt = last + PUSH_NO_NEWS_MS;
    const stillRunning = ctx.endedMs == null || ctx.endedMs > silentAt;
    if (sent.silentPing !== row.LastPingTime && stillRunning) {
      const d = due(silentAt);
      if (d !== 'later') {
        sent.silentPing = row.LastPingTime;
        if (d === 'send') {
          push(
            'no-news',
            text.noNewsTitle(who()),
            text.noNewsBody(row.DistanceKm != null ? km(row.DistanceKm * 1000) : null, sinceStart(last)),
          );
        }
      }
    }
  }

  return { notices, sent };
}
