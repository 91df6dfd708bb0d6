import {
  expectedIntervalMs,
  type AlertFix,
  type CheckinPassing,
  type CutoffRisk,
  type LeaderboardRunner,
  type DeviceSource,
  type Fix,
  type LeaderboardRow,
  type MatchOptions,
  type RaceClock,
  type RunnerAlertInput,
  type RunnerState,
} from '@racebeacon/domain';
import type { LiveRunnerRow } from './repository';

/**
 * One runner's live state and the rules read per runner: the stale threshold from their own device's expected
 * interval, the status it decides, the battery shown, and the runner as the alert rules read them.
 */

export interface LiveFix extends Fix {
  batteryPercent: number | null;
  batteryState: string | null;
}

/** A battery level, from a fix or reported on its own. */
export type BatteryReading = Pick<LiveFix, 'batteryPercent' | 'batteryState'>;

export interface RunnerLive {
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
  /** Aid-station check-ins (checkpoint, time): a check-in's time is the runner's split there. */
  checkins: CheckinPassing[];
}

/** The status people set (DNS/DNF/DSQ) as the leaderboard reads it, or null. */
export function manualStatusOf(info: LiveRunnerRow): LeaderboardRunner['manualStatus'] {
  const s = info.status;
  if (s !== 'DNS' && s !== 'DNF' && s !== 'DSQ') return null;
  return { status: s, distanceM: info.statusDistanceM ?? null };
}

/**
 * A runner as the leaderboard reads them, with what holds at the moment asked: their state, battery label, status set
 * by people and check-ins. The one input of the live race's leaderboard and of the replay's.
 */
export function leaderboardRunnerOf(
  r: RunnerLive,
  now: Pick<LeaderboardRunner, 'state' | 'BatteryState' | 'manualStatus' | 'checkins'>,
): LeaderboardRunner {
  return {
    RunnerId: r.info.id,
    BibNumber: r.info.bibNumber,
    FirstName: r.info.firstName,
    LastName: r.info.lastName,
    Gender: r.info.gender === 'F' ? 'F' : 'M',
    Age: r.info.age,
    BatteryState: now.BatteryState,
    state: now.state,
    expectedIntervalMs: r.expectedMs,
    manualStatus: now.manualStatus,
    checkins: now.checkins,
  };
}

/** One runner as the alert sweep reads it. */
export interface RunnerAlertSubject {
  runnerId: number;
  deviceId: number | null;
  input: RunnerAlertInput;
}

/** A runner with no fixes yet, stale after `lostSignalFactor` × their device's expected interval. */
export function newRunnerLive(info: LiveRunnerRow, offCourseM: number, lostSignalFactor: number): RunnerLive {
  // Stale (and lost signal) after k × the device's expected interval, not one threshold for every tracker.
  const expectedMs = expectedIntervalMs(
    (info.deviceSource ?? 'osmand') as DeviceSource,
    info.expectedIntervalS ?? null,
  );
  return {
    info,
    fixes: [],
    state: null,
    batteryState: batteryLabel(info),
    batteryAt: -Infinity,
    battery: { batteryPercent: info.batteryPercent, batteryState: info.batteryState },
    expectedMs,
    opts: {
      offCourseMeters: offCourseM,
      staleAfterMs: Math.round(lostSignalFactor * expectedMs),
    },
    checkins: [],
  };
}

/**
 * The leaderboard refreshes statuses with one stale threshold for everyone; a runner is stale after k × their own
 * device's expected interval (a SPOT every 2.5 min, an inReach every 10 min, a phone every minute), so the racing
 * statuses are decided again here with the runner's threshold — the matcher's rule, the runner's number.
 */
export function withRunnerStaleness(
  rows: LeaderboardRow[],
  runners: Map<number, RunnerLive>,
  clock: RaceClock,
  nowMs: number,
): LeaderboardRow[] {
  const clockNow = clock.stopMs !== null ? Math.min(nowMs, clock.stopMs) : nowMs;
  return rows.map((row) => {
    if (row.Status !== 'racing' && row.Status !== 'stale' && row.Status !== 'off-course') return row;
    const r = runners.get(row.RunnerId);
    const last = r?.state?.lastFix;
    if (!r || !last) return row;
    const staleAfter = r.opts.staleAfterMs ?? Infinity;
    const Status = clockNow - last.t > staleAfter ? 'stale' : r.state!.isOffCourse ? 'off-course' : 'racing';
    return Status === row.Status ? row : { ...row, Status };
  });
}

/** What the race tells every runner's alert input: the clock, the history window's start, the course. */
export interface AlertSubjectContext {
  clock: RaceClock;
  hasCourse: boolean;
  running: boolean;
  since: number;
  waypointDistancesM: number[];
  statuses: Map<number, LeaderboardRow['Status']>;
  /** Runners expected at a checkpoint after its cutoff. */
  cutoffRisks?: Map<number, CutoffRisk>;
}

/**
 * A runner as the alert rules read them: their leaderboard status, the fixes of the rules' history window with the
 * matcher's progress and off-course verdict for each, the newest fix, battery and the device's expected interval.
 */
export function alertSubjectOf(r: RunnerLive, c: AlertSubjectContext): RunnerAlertSubject {
  const state = r.state;
  const progress = new Map<number, number>();
  for (const p of state?.progress ?? []) progress.set(p.t, p.distanceM);
  const pendingT = state?.pendingJump?.t;
  const start = c.clock.startMs ?? Infinity;
  const fixes: AlertFix[] = [];
  for (let i = upperBound(r.fixes, c.since); i < r.fixes.length; i++) {
    const f = r.fixes[i];
    const progressM = progress.get(f.t) ?? null;
    fixes.push({
      t: f.t,
      lat: f.lat,
      lon: f.lon,
      progressM,
      offCourse: c.hasCourse && f.t >= start && progressM === null && f.t !== pendingT,
    });
  }
  const last = r.fixes.length ? r.fixes[r.fixes.length - 1] : null;
  // Without a course the leaderboard places nobody: a runner seen since the start is racing for these rules.
  const status = c.hasCourse
    ? (c.statuses.get(r.info.id) ?? 'not-started')
    : c.running && last && last.t >= start
      ? 'racing'
      : 'not-started';
  const b = r.battery;
  return {
    runnerId: r.info.id,
    deviceId: r.info.deviceId ?? null,
    input: {
      status,
      racing: c.running && status !== 'not-started' && status !== 'finished',
      expectedIntervalMs: r.expectedMs,
      fixes,
      lastFix: last ? { t: last.t, lat: last.lat, lon: last.lon } : null,
      batteryPercent: b.batteryPercent ?? null,
      batteryLow: (b.batteryState ?? '').toUpperCase() === 'LOW',
      waypointDistancesM: c.waypointDistancesM,
      cutoffRisk: cutoffRiskInput(c.cutoffRisks?.get(r.info.id)),
    },
  };
}

function cutoffRiskInput(risk: CutoffRisk | undefined) {
  if (!risk || risk.checkpoint.cutoffMs === null) return null;
  return { checkpoint: risk.checkpoint.name, cutoffMs: risk.checkpoint.cutoffMs, etaMs: risk.etaMs };
}

/** A runner's row when the race has no course: nobody placed or ranked, but where they are (and DNS/DNF/DSQ). */
export function rowWithoutCourse(r: RunnerLive): LeaderboardRow {
  const last = r.fixes.length ? r.fixes[r.fixes.length - 1] : null;
  const manual = manualStatusOf(r.info);
  return {
    Rank: null,
    RunnerId: r.info.id,
    BibNumber: r.info.bibNumber,
    FirstName: r.info.firstName,
    LastName: r.info.lastName,
    Gender: r.info.gender === 'F' ? 'F' : 'M',
    Age: r.info.age,
    Status: manual ? (manual.status.toLowerCase() as 'dns' | 'dnf' | 'dsq') : 'not-started',
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
  };
}

export const hasBattery = (b: BatteryReading) => !!b.batteryState || b.batteryPercent !== null;

export function batteryLabel(b: BatteryReading): string | null {
  if (b.batteryPercent !== null && b.batteryPercent !== undefined) return `${Math.round(b.batteryPercent)}%`;
  return b.batteryState ?? null;
}

/** First index whose fix time is greater than t. */
export function upperBound(fixes: { t: number }[], t: number): number {
  let lo = 0;
  let hi = fixes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fixes[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
