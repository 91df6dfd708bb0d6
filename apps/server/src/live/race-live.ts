import { randomBytes } from 'node:crypto';
import {
  addFix,
  alertHistoryWindowMs,
  type AlertSettings,
  buildLeaderboard,
  computeRunnerState,
  emptyRunnerState,
  type RunnerSplits,
  type SplitCheckpoint,
  type LeaderboardRow,
  type LeaderboardRunner,
  type PreparedCourse,
  type RaceClock,
  racePrivacy,
  samePrivacy,
  stricterPrivacy,
  type RacePrivacy,
  type RunnerPositions,
  type TrailPoint,
} from '@racebeacon/domain';
import { settingsOf } from '../alerts/settings';
import { cutoffRisksOf, splitsOf } from './race-splits';
import type { LiveFixRow, LiveRaceRow, LiveRunnerRow } from './repository';
import {
  alertSubjectOf,
  batteryLabel,
  hasBattery,
  leaderboardRunnerOf,
  manualStatusOf,
  newRunnerLive,
  rowWithoutCourse,
  upperBound,
  withRunnerStaleness,
  type BatteryReading,
  type LiveFix,
  type RunnerAlertSubject,
  type RunnerLive,
} from './runner-live';

/**
 * One race's live state in memory: the prepared course, each runner's fixes in time order and matched state.
 * Pure bookkeeping over the domain functions; the service feeds it from the database and the event bus. What is
 * decided per runner (their stale threshold and status, battery, alert input) is in `runner-live.ts`.
 */

export interface RaceLiveInput {
  race: LiveRaceRow;
  course: PreparedCourse | null;
  runners: LiveRunnerRow[];
  fixes: LiveFixRow[];
  offCourseM: number;
  nowMs: number;
  /** The race's checkpoints in course order (splits, last checkpoint passed, cutoffs). */
  checkpoints?: SplitCheckpoint[];
  /** Aid-station check-ins of the race's runners (each one's time is the runner's split at that checkpoint). */
  checkins?: { runnerId: number; checkpointId: number; t: number }[];
}

/**
 * Fields whose change is worth pushing a whole row to viewers. Elapsed time and gaps move with the clock for
 * everyone and are refreshed with the runner's next change (the browser derives "last seen" and gaps itself); a
 * change of rank alone travels as a compact [RunnerId, Rank] pair, since one runner passing many shifts them all.
 */
function rowKey(r: LeaderboardRow): string {
  return [
    r.Status,
    r.DistanceKm,
    r.Percent,
    r.PaceSecondsPerKm,
    r.EtaFinish,
    r.NextWaypoint,
    r.EtaNextWaypoint,
    r.EtaNextWaypointEarliest,
    r.EtaNextWaypointLatest,
    r.EtaFinishEarliest,
    r.EtaFinishLatest,
    // A silent runner's estimate moves with the clock. It is pushed when it appears, then again every whole km it
    // moves (and when it ends): at every 100 m, 2,500 silent runners re-sent every row about 7 times per 2.5-minute
    // cycle (bench/wire.bench.ts). The row carries EstimatedAt, so the browser says when the estimate was made.
    r.EstimatedDistanceKm == null ? '' : Math.floor(r.EstimatedDistanceKm),
    r.LastCheckpoint,
    r.LastCheckpointTime,
    r.CutoffRisk,
    r.FinishTime,
    r.LastPingTime,
    r.Latitude,
    r.Longitude,
    r.BatteryState,
  ].join('|');
}

export class RaceLive {
  /** Changes when the state is rebuilt; part of every SSE id so a resume against another build gets a snapshot. */
  readonly generation = randomBytes(4).toString('hex');
  /** Bumped on every change: the key of the cached serialisations. */
  version = 0;
  readonly race: LiveRaceRow;
  readonly course: PreparedCourse | null;
  /**
   * Fixed for the life of this state: the domain's incremental addFix assumes an unchanging clock. Start and End
   * Race publish `race-updated`, on which the service builds a new RaceLive from the database, so every runner is
   * recomputed with the new clock (test/live-race-clock.test.ts).
   */
  readonly clock: RaceClock;
  private readonly runners = new Map<number, RunnerLive>();
  /** The race's alert thresholds (LostSignalFactor: k of the per-runner stale threshold). */
  readonly settings: AlertSettings;
  /** The race's checkpoints in course order. */
  readonly checkpoints: SplitCheckpoint[];
  /**
   * What the public may see (privacy/public-view.ts); a change of it rebuilds the state (race-updated), and is
   * applied here before that, the stricter way, as soon as it is read (`tightenPrivacy`, live/race-cache.ts).
   */
  privacy: RacePrivacy;
  /** Moves each time `privacy` changes in place: the public view's cached answers depend on it. */
  privacyStamp = 0;
  private lastRowKeys = new Map<number, string>();
  private lastRanks = new Map<number, number | null>();
  private cachedRows: { version: number; bucket: number; rows: LeaderboardRow[] } | null = null;

  constructor(input: RaceLiveInput) {
    this.race = input.race;
    this.course = input.course;
    this.clock = {
      startMs: input.race.clockStartedAt?.getTime() ?? null,
      stopMs: input.race.clockStoppedAt?.getTime() ?? null,
    };
    this.settings = settingsOf(input.race.alertSettings);
    this.checkpoints = input.checkpoints ?? [];
    this.privacy = racePrivacy(input.race, input.runners);
    for (const info of input.runners)
      this.runners.set(info.id, newRunnerLive(info, input.offCourseM, this.settings.LostSignalFactor));
    for (const f of input.fixes) {
      const r = this.runners.get(f.runnerId);
      if (r)
        r.fixes.push({
          t: f.t,
          lat: f.lat,
          lon: f.lon,
          batteryPercent: f.batteryPercent,
          batteryState: f.batteryState,
          accuracy: f.accuracy ?? null,
        });
    }
    for (const c of input.checkins ?? []) this.runners.get(c.runnerId)?.checkins.push(c);
    for (const r of this.runners.values()) {
      // The battery follows the newest fix that reported one (the device row may lag behind a reload).
      for (let i = r.fixes.length - 1; i >= 0; i--) {
        const f = r.fixes[i];
        if (hasBattery(f)) {
          r.batteryState = batteryLabel(f);
          r.batteryAt = f.t;
          r.battery = { batteryPercent: f.batteryPercent, batteryState: f.batteryState };
          break;
        }
      }
      if (this.course) r.state = computeRunnerState(this.course, r.fixes, this.clock, input.nowMs, r.opts);
    }
    // The first diff compares against what a snapshot at this moment would show.
    for (const row of this.leaderboard(input.nowMs)) {
      this.lastRowKeys.set(row.RunnerId, rowKey(row));
      this.lastRanks.set(row.RunnerId, row.Rank);
    }
  }

  hasRunner(runnerId: number): boolean {
    return this.runners.has(runnerId);
  }

  runnerIds(): number[] {
    return [...this.runners.keys()];
  }

  /**
   * An aid-station check-in of a runner at a checkpoint: the runner's split there (the position fix it also is
   * comes through addFix). Returns false for an unknown runner or a repeat.
   */
  addCheckin(runnerId: number, checkpointId: number, t: number): boolean {
    const r = this.runners.get(runnerId);
    if (!r || r.checkins.some((c) => c.checkpointId === checkpointId && c.t === t)) return false;
    r.checkins.push({ checkpointId, t });
    this.version++;
    return true;
  }

  /** Every runner's splits (checkpoints passed by GPS or check-in), in runner order. */
  splits(): RunnerSplits[] {
    // Retention: the race's fixes were deleted; the results kept then stay.
    if (this.race.finalResults) return this.race.finalResults.Splits as RunnerSplits[];
    return splitsOf(this.runners.values(), this.checkpoints, this.clock);
  }

  /** The runner's progress along the course (the matcher's points: ms, metres), or null. */
  progressOf(runnerId: number): readonly { t: number; distanceM: number }[] | null {
    return this.runners.get(runnerId)?.state?.progress ?? null;
  }

  /** The runner's distance along the course (m), or null when they were never placed on it. */
  runnerDistanceM(runnerId: number): number | null {
    const s = this.runners.get(runnerId)?.state;
    return s && s.status !== 'not-started' ? s.distanceM : null;
  }

  /**
   * Adds a fix in its place in time (late fixes included). Returns false for a duplicate or an unknown runner.
   */
  addFix(runnerId: number, fix: LiveFix, nowMs: number): boolean {
    const r = this.runners.get(runnerId);
    if (!r) return false;
    const i = upperBound(r.fixes, fix.t);
    if (i > 0 && r.fixes[i - 1].t === fix.t) return false;
    const isNewest = i === r.fixes.length;
    r.fixes.splice(i, 0, fix);
    // The device's battery follows its newest reading, not the last arrival.
    if (isNewest && hasBattery(fix) && fix.t >= r.batteryAt) {
      r.batteryState = batteryLabel(fix);
      r.batteryAt = fix.t;
      r.battery = { batteryPercent: fix.batteryPercent, batteryState: fix.batteryState };
    }
    if (this.course) {
      r.state = r.state
        ? addFix(this.course, r.state, r.fixes, fix, this.clock, nowMs, r.opts)
        : computeRunnerState(this.course, r.fixes, this.clock, nowMs, r.opts);
    }
    this.version++;
    return true;
  }

  /**
   * A battery level reported without a position (at `atMs`, when it was received): shown unless a newer reading
   * is. Returns whether the runner's battery label changed.
   */
  setBattery(runnerId: number, reading: BatteryReading, atMs: number): boolean {
    const r = this.runners.get(runnerId);
    if (!r || !hasBattery(reading) || atMs < r.batteryAt) return false;
    r.batteryAt = atMs;
    r.battery = { batteryPercent: reading.batteryPercent, batteryState: reading.batteryState };
    const label = batteryLabel(reading);
    if (label === r.batteryState) return false;
    r.batteryState = label;
    this.version++;
    return true;
  }

  /** Applies a privacy read after this state was built, the stricter way; true when the public's view changed. */
  tightenPrivacy(read: RacePrivacy): boolean {
    const next = stricterPrivacy(this.privacy, read);
    if (samePrivacy(next, this.privacy)) return false;
    this.privacy = next;
    this.privacyStamp++;
    return true;
  }

  /** The full leaderboard at `nowMs` (cached per version and 5-second bucket: status and elapsed move with time). */
  leaderboard(nowMs: number): LeaderboardRow[] {
    const bucket = Math.floor(nowMs / 5000);
    const c = this.cachedRows;
    if (c && c.version === this.version && c.bucket === bucket) return c.rows;
    let rows: LeaderboardRow[];
    if (this.race.finalResults) {
      // Retention: the race's fixes were deleted (jobs/retention-job.ts); the results kept then stay.
      rows = this.race.finalResults.Rows as LeaderboardRow[];
    } else if (this.course) {
      const input: LeaderboardRunner[] = [];
      for (const r of this.runners.values()) {
        input.push(
          leaderboardRunnerOf(r, {
            state: r.state ?? emptyRunnerState(),
            BatteryState: r.batteryState,
            manualStatus: manualStatusOf(r.info),
            checkins: r.checkins,
          }),
        );
      }
      rows = withRunnerStaleness(
        buildLeaderboard(input, this.course, this.clock, nowMs, this.checkpoints),
        this.runners,
        this.clock,
        nowMs,
      );
    } else {
      rows = this.rowsWithoutCourse();
    }
    this.cachedRows = { version: this.version, bucket, rows };
    return rows;
  }

  /**
   * Every runner as the alert rules read them at `nowMs` (see `alertSubjectOf`). Without a course, nobody is placed:
   * only battery and lost signal can be told.
   */
  alertSubjects(nowMs: number): RunnerAlertSubject[] {
    const context = {
      clock: this.clock,
      hasCourse: !!this.course,
      running: this.clock.startMs !== null && this.clock.stopMs === null,
      since: nowMs - alertHistoryWindowMs(this.settings),
      waypointDistancesM: this.course ? this.course.waypoints.map((w) => w.distanceM) : [],
      statuses: new Map(this.leaderboard(nowMs).map((row) => [row.RunnerId, row.Status])),
      cutoffRisks:
        this.course && this.checkpoints.some((c) => c.cutoffMs !== null)
          ? cutoffRisksOf(
              this.leaderboard(nowMs),
              this.runners,
              this.checkpoints,
              nowMs,
              this.course ? { course: this.course, startMs: this.clock.startMs } : undefined,
            )
          : undefined,
    };
    return [...this.runners.values()].map((r) => alertSubjectOf(r, context));
  }

  /** Without a course nobody can be placed or ranked; the map still shows where runners are. */
  private rowsWithoutCourse(): LeaderboardRow[] {
    return [...this.runners.values()].map(rowWithoutCourse);
  }

  /**
   * What changed for viewers since the last call: whole rows whose watched fields changed, and [RunnerId, Rank]
   * for rows whose rank alone changed. Updates the remembered state.
   */
  takeChanges(nowMs: number): { rows: LeaderboardRow[]; ranks: [number, number | null][] } {
    const rows: LeaderboardRow[] = [];
    const ranks: [number, number | null][] = [];
    const nextKeys = new Map<number, string>();
    const nextRanks = new Map<number, number | null>();
    for (const row of this.leaderboard(nowMs)) {
      const key = rowKey(row);
      nextKeys.set(row.RunnerId, key);
      nextRanks.set(row.RunnerId, row.Rank);
      if (this.lastRowKeys.get(row.RunnerId) !== key) rows.push(row);
      else if (this.lastRanks.get(row.RunnerId) !== row.Rank) ranks.push([row.RunnerId, row.Rank]);
    }
    this.lastRowKeys = nextKeys;
    this.lastRanks = nextRanks;
    return { rows, ranks };
  }

  /** Latest position and a bounded trail per runner: fixes after `sinceMs`, at most `limit` newest. */
  trails(limit: number, sinceMs?: number): RunnerPositions[] {
    const out: RunnerPositions[] = [];
    for (const r of this.runners.values()) {
      let from = Math.max(0, r.fixes.length - limit);
      if (sinceMs !== undefined) from = Math.max(from, upperBound(r.fixes, sinceMs));
      const Trail: TrailPoint[] = [];
      for (let i = from; i < r.fixes.length; i++) {
        const f = r.fixes[i];
        Trail.push([f.t, f.lat, f.lon]);
      }
      const last = r.fixes.length ? r.fixes[r.fixes.length - 1] : null;
      out.push({ RunnerId: r.info.id, Latest: last ? [last.t, last.lat, last.lon] : null, Trail });
    }
    return out;
  }
}
