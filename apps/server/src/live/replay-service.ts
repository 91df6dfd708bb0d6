import {
  publicMoment,
  type FlowAnswer,
  type LeaderboardRow,
  type ReplayAnswer,
  type RunnerSplits,
} from '@racebeacon/domain';
import { listCheckpoints } from '../checkpoints/repository';
import type { Db } from '../db/client';
import { RaceReplay, REREAD_ID_WINDOW } from './race-replay';
import { listCheckinPassings, listReceivedFixes, listStatusHistory } from './replay-repository';
import { listLiveRunners } from './repository';
import type { LiveService } from './service';

/**
 * Replay and the race-flow chart. Per race, a RaceReplay built once from the stored fixes (in arrival order) and
 * extended with the fixes stored since (read when the live state's version moved: a new fix arrived), rebuilt when
 * the live state is (race, course, clock or runners changed). Access is the live state's: a race that is not public
 * is a 404 like the other open routes. At most `maxRaces` replays are kept, the least recently used dropped.
 */

export interface ReplayServiceOptions {
  db: Db;
  live: LiveService;
  offCourseM: number;
  now?: () => number;
  maxRaces?: number;
}

/** Trail length of the replay's positions, as the live positions route. */
export const REPLAY_TRAIL = 100;

export class ReplayService {
  private readonly races = new Map<number, RaceReplay>();
  /** One update at a time per race: concurrent readers wait for the same read. */
  private readonly updating = new Map<number, Promise<RaceReplay>>();
  private readonly now: () => number;
  private readonly flows = new Map<number, { key: string; answer: FlowAnswer }>();

  constructor(private readonly opts: ReplayServiceOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The race at `atMs` (default: now or the end), clamped between the start and now/the end. */
  async replay(raceId: number, atMs: number | undefined, trail = REPLAY_TRAIL): Promise<ReplayAnswer> {
    const replay = await this.current(raceId);
    // The public rules (packages/domain privacy.ts), as the live state holds them: spectators see the race
    // `publicDelayMin` late, so the replay ends there too.
    const { privacy } = await this.opts.live.state(raceId);
    const now = publicMoment(privacy, this.now());
    return replay.at(atMs ?? now, now, trail, privacy);
  }

  /** Every runner's splits as the public knows them: from what the server received by now − the public delay. */
  async publicSplits(raceId: number): Promise<RunnerSplits[]> {
    const replay = await this.current(raceId);
    const { privacy } = await this.opts.live.state(raceId);
    return replay.splitsAt(publicMoment(privacy, this.now()));
  }

  /**
   * The leaderboard rows (without positions) and splits the public reads at `nowMs` of the caller's clock (the push
   * notifier's): the race as received by `nowMs` − the public delay.
   */
  async publicRaceAt(
    raceId: number,
    nowMs: number,
  ): Promise<{ rows: LeaderboardRow[]; splits: RunnerSplits[] }> {
    const replay = await this.current(raceId);
    const { privacy } = await this.opts.live.state(raceId);
    const moment = publicMoment(privacy, nowMs);
    return { rows: replay.at(moment, moment, 0, privacy).Leaderboard, splits: replay.splitsAt(moment) };
  }

  async flow(raceId: number): Promise<FlowAnswer> {
    const replay = await this.current(raceId);
    const [checkpoints, { privacy }] = await Promise.all([
      listCheckpoints(this.opts.db, raceId),
      this.opts.live.state(raceId),
    ]);
    // Every viewer of a race reads the same chart: one answer per state of the race, minute and checkpoints.
    const now = publicMoment(privacy, this.now());
    const key = `${replay.generation}:${replay.liveVersion}:${Math.floor(now / 60_000)}:${JSON.stringify(checkpoints)}`;
    const cached = this.flows.get(raceId);
    if (cached?.key === key) return cached.answer;
    const answer = replay.flow(now, checkpoints);
    this.flows.set(raceId, { key, answer });
    return answer;
  }

  private async current(raceId: number): Promise<RaceReplay> {
    const pending = this.updating.get(raceId);
    if (pending) await pending.catch(() => undefined);
    const live = await this.opts.live.state(raceId);
    const have = this.races.get(raceId);
    if (have && have.generation === live.generation && have.liveVersion === live.version)
      return this.used(have);
    const work = this.update(raceId, have?.generation === live.generation ? have : null);
    this.updating.set(raceId, work);
    try {
      return this.used(await work);
    } finally {
      if (this.updating.get(raceId) === work) this.updating.delete(raceId);
    }
  }

  private async update(raceId: number, have: RaceReplay | null): Promise<RaceReplay> {
    const live = await this.opts.live.state(raceId);
    // Taken before reading: a fix stored during the read moves the version again, and the next reader reads again.
    const version = live.version;
    const { db } = this.opts;
    if (have) {
      const [rows, history, checkins] = await Promise.all([
        listReceivedFixes(db, raceId, Math.max(0, have.maxId - REREAD_ID_WINDOW)),
        listStatusHistory(db, raceId),
        listCheckinPassings(db, raceId),
      ]);
      have.apply(rows, checkins);
      have.setRaceOps(history, checkins);
      have.liveVersion = version;
      return have;
    }
    const [runners, rows, history, checkins] = await Promise.all([
      listLiveRunners(db, raceId),
      listReceivedFixes(db, raceId),
      listStatusHistory(db, raceId),
      listCheckinPassings(db, raceId),
    ]);
    const replay = new RaceReplay(live, runners, this.opts.offCourseM);
    replay.apply(rows, checkins);
    replay.warmPaceModels();
    replay.setRaceOps(history, checkins);
    replay.liveVersion = version;
    this.races.set(raceId, replay);
    this.evict();
    return replay;
  }

  private evict(): void {
    const max = this.opts.maxRaces ?? 4;
    while (this.races.size > max) {
      let oldest: [number, RaceReplay] | null = null;
      for (const e of this.races) if (!oldest || e[1].lastUsed < oldest[1].lastUsed) oldest = e;
      this.races.delete(oldest![0]);
      this.flows.delete(oldest![0]);
    }
  }

  /** Replays in memory (tests). */
  loadedRaceIds(): number[] {
    return [...this.races.keys()];
  }

  private used(r: RaceReplay): RaceReplay {
    r.lastUsed = this.now();
    return r;
  }
}
