import {
  buildLeaderboard,
  computeRunnerState,
  paceModel,
  prepareCourse,
  RunnerTimeline,
  trailIsPublic,
  type FlowAnswer,
  type LeaderboardRow,
  type LeaderboardRunner,
  type PreparedCourse,
  positionAtIsPublic,
  publicRows,
  rowWithoutPosition,
  type RacePrivacy,
  type ReplayAnswer,
  type RunnerPositions,
  type RunnerSplits,
  type TrailPoint,
} from '@racebeacon/domain';
import type { CheckpointRow } from '../checkpoints/repository';
import type { RaceLive } from './race-live';
import type { LiveRunnerRow } from './repository';
import { replayFlow } from './replay-flow';
import { splitsOf } from './race-splits';
import { ReplayRaceOps } from './replay-ops';
import type { CheckinPassingRow, ReceivedFixRow, StatusChangeRow } from './replay-repository';
import {
  batteryLabel,
  hasBattery,
  leaderboardRunnerOf,
  newRunnerLive,
  rowWithoutCourse,
  withRunnerStaleness,
  type LiveFix,
  type RunnerLive,
} from './runner-live';

/**
 * One race's replay: per runner a RunnerTimeline (the domain's matcher folded once over the fixes in arrival order),
 * so the race at any past moment is a binary search per runner plus the live leaderboard of those states. Fed with
 * the stored fixes in arrival order (`apply`), extended as new fixes arrive. Built for one RaceLive generation (its
 * race, course and clock); the service builds a new one when the live state is rebuilt.
 */

/** Ids at most this far below the highest seen are read again: a transaction may commit after a later one. */
export const REREAD_ID_WINDOW = 10_000;

export class RaceReplay {
  readonly generation: string;
  /** The live state's version when the fixes were last read (the service reads again when it moves). */
  liveVersion = -1;
  lastUsed = 0;
  maxId = 0;
  private readonly seen = new Set<number>();
  private readonly timelines = new Map<number, RunnerTimeline<LiveFix>>();
  private readonly runners: RunnerLive[];
  /** The newest arrival of a fix taken before the clock stopped (a late fix can extend a finished race's replay). */
  private lastArrivalInRaceMs = -Infinity;
  /** Statuses set by people and aid-station check-ins, each from when it was known. */
  private readonly ops = new ReplayRaceOps();

  constructor(
    private readonly live: RaceLive,
    runners: LiveRunnerRow[],
    offCourseM: number,
  ) {
    this.generation = live.generation;
    this.runners = runners.map((info) => newRunnerLive(info, offCourseM, live.settings.LostSignalFactor));
  }

  /**
   * Adds stored fixes, in arrival order, and the aid-station check-ins not applied yet: each a fix at its checkpoint
   * arriving when the server was told of it, as the live race takes them (a runner without a tracker appears at the
   * checkpoint). Fixes already applied (by id) are skipped.
   */
  apply(fixRows: ReceivedFixRow[], checkins: readonly CheckinPassingRow[] = []): void {
    const rows = this.ops.withCheckinFixes(fixRows, checkins);
    const course = this.live.course;
    const stopMs = this.live.clock.stopMs;
    const byId = new Map(this.runners.map((r) => [r.info.id, r]));
    let k = 0;
    while (k < rows.length) {
      // One arrival: the same runner's fixes received at the same instant (one request or batch).
      let e = k + 1;
      while (
        e < rows.length &&
        rows[e].runnerId === rows[k].runnerId &&
        rows[e].receivedMs === rows[k].receivedMs
      )
        e++;
      const group: LiveFix[] = [];
      for (let i = k; i < e; i++) {
        const row = rows[i];
        // Check-in fixes have no id (-1): the caller's list is new ones only.
        if (row.id >= 0) {
          if (this.seen.has(row.id)) continue;
          this.seen.add(row.id);
          if (row.id > this.maxId) this.maxId = row.id;
        }
        if (stopMs === null || row.t <= stopMs)
          this.lastArrivalInRaceMs = Math.max(this.lastArrivalInRaceMs, row.receivedMs);
        group.push({
          t: row.t,
          lat: row.lat,
          lon: row.lon,
          batteryPercent: row.batteryPercent,
          batteryState: row.batteryState,
          accuracy: row.accuracy ?? null,
        });
      }
      const r = byId.get(rows[k].runnerId);
      if (r && group.length > 0 && course) {
        let tl = this.timelines.get(r.info.id);
        if (!tl)
          this.timelines.set(r.info.id, (tl = new RunnerTimeline<LiveFix>(course, this.live.clock, r.opts)));
        tl.add(group, rows[k].receivedMs);
      } else if (r && group.length > 0) {
        // Without a course nobody is matched: the timeline still keeps the fixes by arrival (a dummy clock).
        let tl = this.timelines.get(r.info.id);
        if (!tl) this.timelines.set(r.info.id, (tl = courseless()));
        tl.add(group, rows[k].receivedMs);
      }
      k = e;
      // Keep only the ids that can be read again (a full build would otherwise hold every id of the race).
      if (this.seen.size > 4 * REREAD_ID_WINDOW) this.pruneSeen();
    }
    this.pruneSeen();
  }

  /**
   * Folds every runner's pace model once over their newest progress (after a full build): the folds it keeps every
   * 32 progress points serve the ETAs of any moment from the nearest one, instead of the first questions of a replay
   * folding whole races. A moment on an older branch (before a late fix) folds from where the branches part.
   */
  warmPaceModels(): void {
    const course = this.live.course;
    const startMs = this.live.clock.startMs;
    if (!course || startMs === null) return;
    for (const tl of this.timelines.values()) {
      const { state } = tl.rawAt(Infinity);
      if (state.progress.length > 0) paceModel(course, state.progress, startMs);
    }
  }

  /** The race's status history and check-ins as stored now (read again with every new fix or change). */
  setRaceOps(history: StatusChangeRow[], checkins: CheckinPassingRow[]): void {
    this.ops.set(history, checkins);
  }

  private pruneSeen(): void {
    for (const id of this.seen) if (id <= this.maxId - REREAD_ID_WINDOW) this.seen.delete(id);
  }

  /** The times a replay can show: the start (null before one is known) and now or the end of the race. */
  range(nowMs: number): { fromMs: number | null; toMs: number } {
    const { clock, race } = this.live;
    const fromMs = clock.startMs ?? race.startTime?.getTime() ?? null;
    const toMs =
      clock.stopMs !== null ? Math.min(nowMs, Math.max(clock.stopMs, this.lastArrivalInRaceMs)) : nowMs;
    return { fromMs, toMs: fromMs !== null ? Math.max(fromMs, toMs) : toMs };
  }

  /**
   * The race at `atMs` (clamped to the range) with trails of at most `trail` fixes, as public as the race allows:
   * `nowMs` already set back by the public delay, no trails when they are private, no position for a runner who hides
   * it, and with private trails no position before the current moment (`To`): only the dot the live map shows.
   */
  at(requestedMs: number, nowMs: number, trail: number, privacy?: RacePrivacy): ReplayAnswer {
    const { fromMs, toMs } = this.range(nowMs);
    const atMs = Math.min(toMs, fromMs !== null ? Math.max(fromMs, requestedMs) : requestedMs);
    const course = this.live.course;
    const clock = this.live.clock;
    const states = new Map<number, RunnerLive>();
    const input: LeaderboardRunner[] = [];
    const Positions: RunnerPositions[] = [];
    const noCourseRows: LeaderboardRow[] = [];
    const withoutDot = new Set<number>();
    for (const r of this.runners) {
      // Raw states: buildLeaderboard refreshes them for atMs.
      const got = this.timelines.get(r.info.id)?.rawAt(atMs);
      const fixes = got ? got.fixes : [];
      const count = got?.count ?? 0;
      // The battery the leaderboard showed then: the newest fix received by then that reported one.
      let battery: string | null = null;
      for (let i = count - 1; i >= 0; i--) {
        if (hasBattery(fixes[i])) {
          battery = batteryLabel(fixes[i]);
          break;
        }
      }
      // The public rules (packages/domain privacy.ts): no dot for a hidden runner, no trail when not public, and
      // then no dot at a past moment either (only the current one, at To): sampling `at` would rebuild the trail.
      const hidden = privacy ? !positionAtIsPublic(privacy, r.info.id, atMs, toMs) : false;
      if (hidden) withoutDot.add(r.info.id);
      const Trail: TrailPoint[] = [];
      const from = privacy && !trailIsPublic(privacy, r.info.id) ? count : Math.max(0, count - trail);
      for (let i = from; i < count; i++) Trail.push([fixes[i].t, fixes[i].lat, fixes[i].lon]);
      const last = count > 0 && !hidden ? fixes[count - 1] : null;
      Positions.push({ RunnerId: r.info.id, Latest: last ? [last.t, last.lat, last.lon] : null, Trail });
      if (!course) {
        noCourseRows.push(rowWithoutCourse({ ...r, fixes: last ? [last] : [], batteryState: battery }));
        continue;
      }
      const state = got ? got.state : computeRunnerState(course, [], clock, atMs, r.opts);
      states.set(r.info.id, { ...r, state, batteryState: battery });
      input.push(
        leaderboardRunnerOf(r, {
          state,
          BatteryState: battery,
          manualStatus: this.ops.manualStatusAt(r.info.id, atMs),
          checkins: this.ops.checkinsAt(r.info.id, atMs),
        }),
      );
    }
    const rows = course
      ? withRunnerStaleness(
          buildLeaderboard(input, course, clock, atMs, this.live.checkpoints),
          states,
          clock,
          atMs,
        )
      : noCourseRows;
    let Leaderboard = privacy ? publicRows(privacy, rows) : rows;
    if (withoutDot.size > 0)
      Leaderboard = Leaderboard.map((row) => (withoutDot.has(row.RunnerId) ? rowWithoutPosition(row) : row));
    return {
      At: new Date(atMs).toISOString(),
      From: fromMs === null ? null : new Date(fromMs).toISOString(),
      To: new Date(toMs).toISOString(),
      Leaderboard,
      Positions,
    };
  }

  /**
   * Every runner's splits as they were known at `atMs`: from the fixes and check-ins the server had received by then
   * (a passing told late, or by a device whose clock is behind, counts from its arrival), as the live splits.
   */
  splitsAt(atMs: number): RunnerSplits[] {
    const course = this.live.course;
    const runners = this.runners.map((r) => ({
      ...r,
      state: (course && this.timelines.get(r.info.id)?.rawAt(atMs).state) || null,
      checkins: this.ops.checkinsAt(r.info.id, atMs),
    }));
    return splitsOf(runners, this.live.checkpoints, this.live.clock);
  }

  /** Every runner's distance against time for the race-flow chart, with the checkpoints (or course waypoints). */
  flow(nowMs: number, checkpoints: CheckpointRow[]): FlowAnswer {
    const course = this.live.course;
    return replayFlow(this.range(nowMs), course, checkpoints, this.runners, (runnerId, atMs) =>
      course ? this.timelines.get(runnerId)?.at(atMs) : undefined,
    );
  }
}

let placeholder: PreparedCourse | null = null;

/**
 * A timeline that only keeps fixes by arrival (the race has no course: nobody is matched or placed). Without a clock
 * start the matcher never looks at the course, so any course will do.
 */
function courseless(): RunnerTimeline<LiveFix> {
  placeholder ??= prepareCourse({
    points: [
      [0, 0, null],
      [0.01, 0, null],
    ],
  });
  return new RunnerTimeline<LiveFix>(placeholder, { startMs: null, stopMs: null });
}
