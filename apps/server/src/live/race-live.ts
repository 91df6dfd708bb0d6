import { randomBytes } from 'node:crypto';
import {
  addFix,
  alertHistoryWindowMs,
  expectedIntervalMs,
  type AlertFix,
  type AlertSettings,
  type DeviceSource,
  type RunnerAlertInput,
  buildLeaderboard,
  computeRunnerState,
  emptyRunnerState,
  type Fix,
  type LeaderboardRow,
  type LeaderboardRunner,
  type MatchOptions,
  type PreparedCourse,
  type RaceClock,
  type RunnerPositions,
  type RunnerState,
  type TrailPoint,
} from '@racebeacon/domain';
import { settingsOf } from '../alerts/service';
import type { LiveFixRow, LiveRaceRow, LiveRunnerRow } from './repository';

/**
 * One race's live state in memory: the prepared course, each runner's fixes in time order and matched state.
 * Pure bookkeeping over the domain functions; the service feeds it from the database and the event bus.
 */

export interface LiveFix extends Fix {
  batteryPercent: number | null;
  batteryState: string | null;
}

/** A battery level, from a fix or reported on its own. */
export type BatteryReading = Pick<LiveFix, 'batteryPercent' | 'batteryState'>;

interface RunnerLive {
  info: LiveRunnerRow;
  fixes: LiveFix[];
  state: RunnerState | null;
  /** The leaderboard's battery label, and the time of the reading it shows (-Infinity: the device row's). */
  batteryState: string | null;
  batteryAt: number;
  /** The newest battery reading itself (the alert rules read the percentage or LOW). */
  battery: BatteryReading;
  /** How often the runner's device is expected to report (its own setting or its source's), ms. */
  expectedMs: number;
  /** The matcher's options for this runner: stale after LostSignalFactor × expectedMs. */
  opts: Partial<MatchOptions>;
}

/** One runner as the alert sweep reads it. */
export interface RunnerAlertSubject {
  runnerId: number;
  deviceId: number | null;
  input: RunnerAlertInput;
}

export interface RaceLiveInput {
  race: LiveRaceRow;
  course: PreparedCourse | null;
  runners: LiveRunnerRow[];
  fixes: LiveFixRow[];
  offCourseM: number;
  nowMs: number;
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
    for (const info of input.runners) {
      // Stale (and lost signal) after k × the device's expected interval, not one threshold for every tracker.
      const expectedMs = expectedIntervalMs(
        (info.deviceSource ?? 'osmand') as DeviceSource,
        info.expectedIntervalS ?? null,
      );
      this.runners.set(info.id, {
        info,
        fixes: [],
        state: null,
        batteryState: batteryLabel(info),
        batteryAt: -Infinity,
        battery: { batteryPercent: info.batteryPercent, batteryState: info.batteryState },
        expectedMs,
        opts: {
          offCourseMeters: input.offCourseM,
          staleAfterMs: Math.round(this.settings.LostSignalFactor * expectedMs),
        },
      });
    }
    for (const f of input.fixes) {
      const r = this.runners.get(f.runnerId);
      if (r)
        r.fixes.push({
          t: f.t,
          lat: f.lat,
          lon: f.lon,
          batteryPercent: f.batteryPercent,
          batteryState: f.batteryState,
        });
    }
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

  /** The full leaderboard at `nowMs` (cached per version and 5-second bucket: status and elapsed move with time). */
  leaderboard(nowMs: number): LeaderboardRow[] {
    const bucket = Math.floor(nowMs / 5000);
    const c = this.cachedRows;
    if (c && c.version === this.version && c.bucket === bucket) return c.rows;
    let rows: LeaderboardRow[];
    if (this.course) {
      const input: LeaderboardRunner[] = [];
      for (const r of this.runners.values()) {
        input.push({
          RunnerId: r.info.id,
          BibNumber: r.info.bibNumber,
          FirstName: r.info.firstName,
          LastName: r.info.lastName,
          Gender: r.info.gender === 'F' ? 'F' : 'M',
          Age: r.info.age,
          BatteryState: r.batteryState,
          state: r.state ?? emptyRunnerState(),
        });
      }
      rows = this.withRunnerStaleness(buildLeaderboard(input, this.course, this.clock, nowMs), nowMs);
    } else {
      rows = this.rowsWithoutCourse();
    }
    this.cachedRows = { version: this.version, bucket, rows };
    return rows;
  }

  /**
   * The leaderboard refreshes statuses with one stale threshold for everyone; a runner is stale after k × their own
   * device's expected interval (a SPOT every 2.5 min, an inReach every 10 min, a phone every minute), so the racing
   * statuses are decided again here with the runner's threshold — the matcher's rule, the runner's number.
   */
  private withRunnerStaleness(rows: LeaderboardRow[], nowMs: number): LeaderboardRow[] {
    const clockNow = this.clock.stopMs !== null ? Math.min(nowMs, this.clock.stopMs) : nowMs;
    return rows.map((row) => {
      if (row.Status !== 'racing' && row.Status !== 'stale' && row.Status !== 'off-course') return row;
      const r = this.runners.get(row.RunnerId);
      const last = r?.state?.lastFix;
      if (!r || !last) return row;
      const staleAfter = r.opts.staleAfterMs ?? Infinity;
      const Status =
        clockNow - last.t > staleAfter ? 'stale' : r.state!.isOffCourse ? 'off-course' : 'racing';
      return Status === row.Status ? row : { ...row, Status };
    });
  }

  /**
   * Every runner as the alert rules read them at `nowMs`: their leaderboard status, the fixes of the rules' history
   * window with the matcher's progress and off-course verdict for each, the newest fix, battery and the device's
   * expected interval. Without a course, nobody is placed: only battery and lost signal can be told.
   */
  alertSubjects(nowMs: number): RunnerAlertSubject[] {
    const statuses = new Map(this.leaderboard(nowMs).map((row) => [row.RunnerId, row.Status]));
    const running = this.clock.startMs !== null && this.clock.stopMs === null;
    const since = nowMs - alertHistoryWindowMs(this.settings);
    const waypointDistancesM = this.course ? this.course.waypoints.map((w) => w.distanceM) : [];
    const out: RunnerAlertSubject[] = [];
    for (const r of this.runners.values()) {
      const state = r.state;
      const progress = new Map<number, number>();
      for (const p of state?.progress ?? []) progress.set(p.t, p.distanceM);
      const pendingT = state?.pendingJump?.t;
      const start = this.clock.startMs ?? Infinity;
      const fixes: AlertFix[] = [];
      for (let i = upperBound(r.fixes, since); i < r.fixes.length; i++) {
        const f = r.fixes[i];
        const progressM = progress.get(f.t) ?? null;
        fixes.push({
          t: f.t,
          lat: f.lat,
          lon: f.lon,
          progressM,
          offCourse: !!this.course && f.t >= start && progressM === null && f.t !== pendingT,
        });
      }
      const last = r.fixes.length ? r.fixes[r.fixes.length - 1] : null;
      // Without a course the leaderboard places nobody: a runner seen since the start is racing for these rules.
      const status = this.course
        ? (statuses.get(r.info.id) ?? 'not-started')
        : running && last && last.t >= start
          ? 'racing'
          : 'not-started';
      const b = r.battery;
      out.push({
        runnerId: r.info.id,
        deviceId: r.info.deviceId ?? null,
        input: {
          status,
          racing: running && status !== 'not-started' && status !== 'finished',
          expectedIntervalMs: r.expectedMs,
          fixes,
          lastFix: last ? { t: last.t, lat: last.lat, lon: last.lon } : null,
          batteryPercent: b.batteryPercent ?? null,
          batteryLow: (b.batteryState ?? '').toUpperCase() === 'LOW',
          waypointDistancesM,
        },
      });
    }
    return out;
  }

  /** Without a course nobody can be placed or ranked; the map still shows where runners are. */
  private rowsWithoutCourse(): LeaderboardRow[] {
    const rows: LeaderboardRow[] = [];
    for (const r of this.runners.values()) {
      const last = r.fixes.length ? r.fixes[r.fixes.length - 1] : null;
      rows.push({
        Rank: null,
        RunnerId: r.info.id,
        BibNumber: r.info.bibNumber,
        FirstName: r.info.firstName,
        LastName: r.info.lastName,
        Gender: r.info.gender === 'F' ? 'F' : 'M',
        Age: r.info.age,
        Status: 'not-started',
        DistanceKm: null,
        Percent: null,
        ElapsedSeconds: null,
        PaceSecondsPerKm: null,
        EtaFinish: null,
        FinishTime: null,
        LastPingTime: last ? new Date(last.t).toISOString() : null,
        Latitude: last?.lat ?? null,
        Longitude: last?.lon ?? null,
        BatteryState: r.batteryState,
        GapSeconds: null,
        GapKm: null,
        NextWaypoint: null,
        NextWaypointKm: null,
        EtaNextWaypoint: null,
      });
    }
    return rows;
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

const hasBattery = (b: BatteryReading) => !!b.batteryState || b.batteryPercent !== null;

function batteryLabel(b: BatteryReading): string | null {
  if (b.batteryPercent !== null && b.batteryPercent !== undefined) return `${Math.round(b.batteryPercent)}%`;
  return b.batteryState ?? null;
}

/** First index whose fix time is greater than t. */
function upperBound(fixes: { t: number }[], t: number): number {
  let lo = 0;
  let hi = fixes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fixes[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
