import type { LeaderboardRow } from '@racebeacon/domain/live';

/**
 * Elapsed time moving with the race clock in the browser. The server sends a runner's row again only when something
 * about them changes (a new fix, a status), so between pings the browser carries the race clock forward itself:
 * no network traffic, and only the leaderboard re-renders.
 */

export interface RaceClockView {
  /** When the race clock started (ISO), or null before Start Race. */
  clockStartedAt: string | null;
  /** When End Race stopped it (ISO), or null. */
  clockStoppedAt: string | null;
  /** Server clock minus browser clock, estimated from the messages' send time (0 when unknown). */
  serverOffsetMs: number;
}

/** Runners whose elapsed time runs with the clock (the server computes it from the clock for these too). */
const TICKING = new Set<LeaderboardRow['Status']>(['racing', 'stale', 'off-course']);

/**
 * Elapsed seconds to show for `row` at browser time `nowMs`: for a runner out on the course, the race clock (stopped
 * at End Race) read on the server's time scale; never less than what the server sent, so a skewed browser clock cannot
 * make it run backwards. Finished and not-started runners keep the server's value.
 */
export function liveElapsedSeconds(
  row: Pick<LeaderboardRow, 'Status' | 'ElapsedSeconds'>,
  clock: RaceClockView,
  nowMs: number,
): number | null {
  if (!TICKING.has(row.Status) || clock.clockStartedAt === null) return row.ElapsedSeconds;
  const start = Date.parse(clock.clockStartedAt);
  if (!Number.isFinite(start)) return row.ElapsedSeconds;
  let serverNow = nowMs + clock.serverOffsetMs;
  const stop = clock.clockStoppedAt === null ? NaN : Date.parse(clock.clockStoppedAt);
  if (Number.isFinite(stop)) serverNow = Math.min(serverNow, stop);
  const local = Math.max(0, Math.round((serverNow - start) / 1000));
  return row.ElapsedSeconds === null ? local : Math.max(row.ElapsedSeconds, local);
}

/** Server minus browser clock from a message sent at `sentAt` (ISO) and received at `receivedMs`; `previous` if unknown. */
export function serverOffset(sentAt: string, receivedMs: number, previous: number): number {
  const sent = Date.parse(sentAt);
  return Number.isFinite(sent) ? sent - receivedMs : previous;
}

/** Where the race stands for a spectator: before the start, running, or over (results are final). */
export type RacePhase = 'upcoming' | 'live' | 'finished';

/**
 * The phase from the stream's race clock once a snapshot has arrived (it follows Start/End Race as they happen),
 * before that from the race as the page loaded it.
 */
export function racePhase(
  race: { HasStarted: boolean; HasFinished: boolean },
  clock: Pick<RaceClockView, 'clockStartedAt' | 'clockStoppedAt'>,
  haveSnapshot: boolean,
): RacePhase {
  if (haveSnapshot) {
    if (clock.clockStoppedAt !== null) return 'finished';
    return clock.clockStartedAt !== null ? 'live' : 'upcoming';
  }
  if (race.HasFinished) return 'finished';
  return race.HasStarted ? 'live' : 'upcoming';
}

/** A runner's status as shown: once the race is over nobody is "stale" or racing any more, only not finished. */
export type ShownStatus = LeaderboardRow['Status'] | 'unfinished';

export function shownStatus(status: LeaderboardRow['Status'], phase: RacePhase): ShownStatus {
  if (phase === 'finished' && (status === 'racing' || status === 'stale' || status === 'off-course'))
    return 'unfinished';
  return status;
}
