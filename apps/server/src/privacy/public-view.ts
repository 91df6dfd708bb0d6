import {
  filterLeaderboard,
  isOpenPrivacy,
  publicMoment,
  publicPositions,
  publicRows,
  publicUntil,
  type LeaderboardFilter,
  type LeaderboardRow,
  type LiveSnapshot,
  type LiveUpdate,
  type RunnerPositions,
  type RunnerSplits,
  type TrailPoint,
} from '@racebeacon/domain';
import type { RaceLive } from '../live/race-live';
import type { ReplayService } from '../live/replay-service';
import { POSITIONS_TRAIL, PUBLIC_CHANNELS, type LiveService } from '../live/service';
import { SNAPSHOT_TRAIL } from '../live/sse-messages';
import { encodeSseMessage } from '../live/sse-hub';

/**
 * The race as the public sees it (issue 15, privacy of runners). Every public read of live data goes through here:
 * the leaderboard, positions, splits and SSE stream of `/api/open/races/{id}/…`, the text view, embeds (the same
 * routes) and the results file. The rules are the domain's (`packages/domain/src/privacy.ts`); the race's settings
 * and its runners' choices are read with its live state (`RaceLive.privacy`), so a change rebuilds it.
 *
 * - A race with no privacy set is served exactly as live, through the live service's cached answers (no cost).
 * - Hidden runners or private trails without a delay: the live state, masked.
 * - A public delay: the race at now − delay, from the replay machinery (`ReplayService`: the state at a moment from
 *   the stored fixes by arrival), masked the same way.
 * - The director of the race and admins (race HQ, signed in) read it live and unmasked.
 *
 * The SSE stream of a race whose public view is not the live state: its viewers get a public snapshot on connect and
 * then, every `tickMs`, an update of the rows that changed and the new trail points, built once per race for all
 * viewers (the live service's own messages for that race are not sent to them; they go to the director and admins
 * who opened the stream with a ticket, live/stream-ticket.ts, and this view's messages do not).
 */

export interface Viewer {
  id: string;
  isAdmin: boolean;
}

export interface PublicViewOptions {
  live: LiveService;
  replay: ReplayService;
  now?: () => number;
  /** How often viewers of a private race get an update (default 2 s). */
  tickMs?: number;
  log?: { error(obj: unknown, msg?: string): void };
}

/** The public state of a race at one moment. */
interface PublicState {
  key: string;
  madeAt: number;
  moment: number;
  rows: LeaderboardRow[];
  positions: RunnerPositions[];
  /** The rows as JSON bytes, made on first read: every reader of this state shares them (and their compression). */
  json?: Buffer;
}

/** What the viewers of a private race's stream were sent last. */
interface Sent {
  seq: number;
  rowKeys: Map<number, string>;
  ranks: Map<number, number | null>;
  lastFixT: Map<number, number>;
  clock: PublicClock;
  snapshot: Buffer;
}

interface PublicClock {
  ClockStartedAt: string | null;
  ClockStoppedAt: string | null;
}

export class PublicView {
  private readonly now: () => number;
  /** Per race and trail length. */
  private readonly states = new Map<string, PublicState>();
  private readonly sent = new Map<number, Sent>();
  private readonly timer: NodeJS.Timeout;
  private ticking = false;
  private closed = false;
  /** Stream turns completed (tests wait for one). */
  ticks = 0;

  constructor(private readonly opts: PublicViewOptions) {
    this.now = opts.now ?? Date.now;
    this.timer = setInterval(() => void this.tick(), opts.tickMs ?? 2000);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /** Whether `viewer` reads the race live: its director or an admin. */
  static manages(viewer: Viewer | null | undefined, live: RaceLive): boolean {
    return !!viewer && (viewer.isAdmin || viewer.id === live.race.directorId);
  }

  /** The unfiltered leaderboard as JSON bytes (the live service's cached bytes when the race is read live). */
  async leaderboardJson(raceId: number, viewer?: Viewer | null): Promise<Buffer> {
    const live = await this.opts.live.state(raceId);
    if (isOpenPrivacy(live.privacy) || PublicView.manages(viewer, live))
      return this.opts.live.leaderboardJson(raceId);
    const state = await this.state(raceId, live);
    return (state.json ??= Buffer.from(JSON.stringify(state.rows)));
  }

  async leaderboard(
    raceId: number,
    filter: LeaderboardFilter,
    viewer?: Viewer | null,
  ): Promise<LeaderboardRow[]> {
    const live = await this.opts.live.state(raceId);
    if (isOpenPrivacy(live.privacy) || PublicView.manages(viewer, live))
      return this.opts.live.leaderboard(raceId, filter);
    return filterLeaderboard((await this.state(raceId, live)).rows, filter);
  }

  async positions(raceId: number, sinceMs?: number, viewer?: Viewer | null): Promise<RunnerPositions[]> {
    const live = await this.opts.live.state(raceId);
    if (isOpenPrivacy(live.privacy) || PublicView.manages(viewer, live))
      return this.opts.live.positions(raceId, sinceMs);
    if (live.privacy.publicDelayMin === 0)
      return publicPositions(live.privacy, await this.opts.live.positions(raceId, sinceMs));
    const { positions } = await this.state(raceId, live);
    if (sinceMs === undefined) return positions;
    return positions.map((p) => ({ ...p, Trail: p.Trail.filter((t) => t[0] > sinceMs) }));
  }

  /**
   * Splits: the passings the server knew at the public moment (now − delay; a passing counts from the arrival of the
   * fix or check-in that told it, not from the device's clock), from the replay.
   */
  async splits(raceId: number, viewer?: Viewer | null): Promise<RunnerSplits[]> {
    const live = await this.opts.live.state(raceId);
    if (live.privacy.publicDelayMin === 0 || PublicView.manages(viewer, live))
      return this.opts.live.splits(raceId);
    if (!live.race.finalResults) return this.opts.replay.publicSplits(raceId);
    // The race's fixes were deleted (retention): its kept splits, up to the public moment.
    const splits = await this.opts.live.splits(raceId);
    const now = this.now();
    return splits.map((r) => ({
      ...r,
      Splits: publicUntil(live.privacy, now, r.Splits, (s) => Date.parse(s.PassingTime)),
    }));
  }

  /**
   * The leaderboard rows and splits the public reads at `nowMs` of the caller's clock (push notices: news is what the
   * public sees, every time counted from when the server received it). Rows carry positions only as live (the
   * notices never use them).
   */
  async raceAt(raceId: number, nowMs: number): Promise<{ rows: LeaderboardRow[]; splits: RunnerSplits[] }> {
    const live = await this.opts.live.state(raceId);
    if (live.privacy.publicDelayMin === 0 || live.race.finalResults)
      return { rows: live.leaderboard(nowMs), splits: live.splits() };
    return this.opts.replay.publicRaceAt(raceId, nowMs);
  }

  // ---------------------------------------------------------------- the public state

  /**
   * The race's public rows and positions now: the masked live state, or the replay at now − delay. Kept per race for
   * the live state's version and a 2-second bucket (5 seconds for a delayed race, whose state costs a replay), so a
   * crowd of readers shares one computation.
   */
  private async state(raceId: number, live: RaceLive, trail = POSITIONS_TRAIL): Promise<PublicState> {
    const now = this.now();
    const p = live.privacy;
    const bucket = Math.floor(now / (p.publicDelayMin === 0 ? 2000 : 5000));
    const key = `${live.generation}:${live.version}:${live.privacyStamp}:${bucket}`;
    const have = this.states.get(`${raceId}:${trail}`);
    if (have?.key === key) return have;
    let state: PublicState;
    if (p.publicDelayMin === 0) {
      state = {
        key,
        madeAt: now,
        moment: now,
        rows: publicRows(p, await this.opts.live.leaderboard(raceId, {})),
        positions: publicPositions(p, live.trails(trail)),
      };
    } else {
      // The replay applies the same rules (RaceReplay.at with the race's privacy) at the public moment.
      const answer = await this.opts.replay.replay(raceId, undefined, trail);
      state = {
        key,
        madeAt: now,
        moment: publicMoment(p, now),
        rows: answer.Leaderboard,
        positions: answer.Positions,
      };
    }
    this.states.set(`${raceId}:${trail}`, state);
    return state;
  }

  // ---------------------------------------------------------------- the stream of a private race

  /** The snapshot a new viewer of a private race gets: what every other viewer has been sent. */
  async snapshot(raceId: number): Promise<Buffer> {
    const sent = this.sent.get(raceId);
    if (sent) return sent.snapshot;
    return this.resend(raceId);
  }

  /** The race was rebuilt (settings, runners, clock changed): every viewer gets a new public snapshot. */
  rebuilt(raceId: number): void {
    this.opts.live
      .state(raceId)
      .then(async (live) => {
        const stamp = live.privacyStamp;
        const message = await this.resend(raceId, live);
        // Rebuilt or its privacy changed meanwhile: that change sends its own snapshot.
        if (this.opts.live.publicViewCurrent(raceId, live, stamp))
          this.opts.live.hub.broadcast(raceId, message, PUBLIC_CHANNELS);
      })
      .catch((err: unknown) => this.opts.log?.error({ err, raceId }, 'public snapshot failed'));
  }

  private async resend(raceId: number, given?: RaceLive): Promise<Buffer> {
    const live = given ?? (await this.opts.live.state(raceId));
    const state = await this.state(raceId, live, SNAPSHOT_TRAIL);
    const seq = (this.sent.get(raceId)?.seq ?? 0) + 1;
    const clock = this.clock(live, state.moment);
    const snapshot = snapshotOf(raceId, seq, this.now(), clock, live, state);
    this.sent.set(raceId, { seq, ...remember(state), clock, snapshot });
    return snapshot;
  }

  /** The race clock as the public knows it at its moment (a race ended after it is still running for them). */
  private clock(live: RaceLive, moment: number): PublicClock {
    const started = live.race.clockStartedAt;
    const stopped = live.race.clockStoppedAt;
    return {
      ClockStartedAt: started && started.getTime() <= moment ? started.toISOString() : null,
      ClockStoppedAt: stopped && stopped.getTime() <= moment ? stopped.toISOString() : null,
    };
  }

  /** Every `tickMs`: an update for the viewers of each private race in memory. */
  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      const { live } = this.opts;
      const now = this.now();
      // A state is good for seconds and a race's rows are large: older ones are dropped (a reader makes a new one).
      for (const [key, st] of this.states) if (now - st.madeAt > 60_000) this.states.delete(key);
      for (const raceId of this.sent.keys()) if (live.viewerCount(raceId) === 0) this.sent.delete(raceId);
      for (const raceId of live.loadedRaceIds()) {
        // Only races with viewers are read: reading a race keeps it in memory (idle races are evicted).
        if (live.viewerCount(raceId) === 0) continue;
        const state = await live.state(raceId).catch(() => null);
        if (!state || isOpenPrivacy(state.privacy)) {
          this.sent.delete(raceId);
          continue;
        }
        try {
          const stamp = state.privacyStamp;
          const message = await this.update(raceId, state);
          // Not when the race was rebuilt or its privacy changed (or is being read again) meanwhile: a snapshot of
          // the new view follows (issue 24: a change applies to what is sent from the moment it is answered).
          if (message && !this.closed && live.publicViewCurrent(raceId, state, stamp))
            live.hub.broadcast(raceId, message, PUBLIC_CHANNELS);
        } catch (err) {
          this.opts.log?.error({ err, raceId }, 'public update failed');
        }
      }
    } finally {
      this.ticking = false;
      this.ticks++;
    }
  }

  /** What changed for the public since the last message (null: nothing); a new snapshot after the clock moved. */
  private async update(raceId: number, live: RaceLive): Promise<Buffer | null> {
    const sent = this.sent.get(raceId);
    if (!sent) return null; // no viewer got a snapshot yet
    const state = await this.state(raceId, live, SNAPSHOT_TRAIL);
    const clock = this.clock(live, state.moment);
    if (
      clock.ClockStartedAt !== sent.clock.ClockStartedAt ||
      clock.ClockStoppedAt !== sent.clock.ClockStoppedAt
    ) {
      // The public moment passed the start or the end: a snapshot carries the clock.
      return this.resend(raceId, live);
    }
    const next = remember(state);
    const Rows: LeaderboardRow[] = [];
    const Ranks: [number, number | null][] = [];
    for (const row of state.rows) {
      if (sent.rowKeys.get(row.RunnerId) !== next.rowKeys.get(row.RunnerId)) Rows.push(row);
      else if (sent.ranks.get(row.RunnerId) !== row.Rank) Ranks.push([row.RunnerId, row.Rank]);
    }
    const Fixes: [number, number, number, number][] = [];
    for (const p of state.positions) {
      const before = sent.lastFixT.get(p.RunnerId) ?? -Infinity;
      for (const t of p.Trail) if (t[0] > before) Fixes.push([p.RunnerId, t[0], t[1], t[2]]);
      next.lastFixT.set(p.RunnerId, Math.max(before, next.lastFixT.get(p.RunnerId) ?? -Infinity));
    }
    if (!Rows.length && !Ranks.length && !Fixes.length) return null;
    const seq = sent.seq + 1;
    const now = this.now();
    const update: LiveUpdate = { Seq: seq, At: new Date(now).toISOString(), Rows, Ranks, Fixes };
    // A viewer who connects now gets the state this update leads to.
    this.sent.set(raceId, {
      seq,
      ...next,
      clock,
      snapshot: snapshotOf(raceId, seq, now, clock, live, state),
    });
    return encodeSseMessage('update', JSON.stringify(update));
  }
}

function snapshotOf(
  raceId: number,
  seq: number,
  now: number,
  clock: PublicClock,
  live: RaceLive,
  state: PublicState,
): Buffer {
  const snapshot: LiveSnapshot = {
    Seq: seq,
    At: new Date(now).toISOString(),
    RaceId: raceId,
    ...clock,
    HasCourse: live.course !== null,
    Rows: state.rows,
    Trails: state.positions.map(({ RunnerId, Trail }) => ({ RunnerId, Trail })),
  };
  return encodeSseMessage('snapshot', JSON.stringify(snapshot));
}

/**
 * What is worth a whole row to viewers, as the live stream decides (live/race-live.ts): not the elapsed time and gaps
 * that move with the clock for everyone, nor the rank (sent as a pair); a silent runner's estimate per whole km.
 */
function rowKey(r: LeaderboardRow): string {
  const {
    Rank: _rank,
    ElapsedSeconds: _elapsed,
    GapSeconds: _gap,
    EstimatedDistanceKm: est,
    EstimatedDistanceKmMin: _min,
    EstimatedDistanceKmMax: _max,
    EstimatedAt: _at,
    EstimatedLatitude: _lat,
    EstimatedLongitude: _lon,
    ...rest
  } = r;
  return `${JSON.stringify(rest)}|${est == null ? '' : Math.floor(est)}`;
}

function remember(state: PublicState): Pick<Sent, 'rowKeys' | 'ranks' | 'lastFixT'> {
  const rowKeys = new Map<number, string>();
  const ranks = new Map<number, number | null>();
  for (const row of state.rows) {
    rowKeys.set(row.RunnerId, rowKey(row));
    ranks.set(row.RunnerId, row.Rank);
  }
  const lastFixT = new Map<number, number>();
  for (const p of state.positions) lastFixT.set(p.RunnerId, lastOf(p.Trail));
  return { rowKeys, ranks, lastFixT };
}

const lastOf = (trail: TrailPoint[]) => (trail.length ? trail[trail.length - 1][0] : -Infinity);
