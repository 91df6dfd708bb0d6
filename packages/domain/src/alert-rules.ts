/**
 * The rules of race HQ alerts as pure functions, with no zod behind them: which self-clearing conditions hold for a
 * runner now (`evaluateRunnerConditions`), what that means for the runner's open alerts (`nextAlertTransitions`),
 * and one sweep over a whole race (`sweepRaceAlerts`). The server runs them on its live state; the browser may
 * import them (through `@racebeacon/domain/alert-rules`, which loads no zod) to word or preview a rule.
 *
 * `sos` and `help` are not evaluated here: they are raised by a device message (an inReach SOS code, a SPOT
 * `SOS`/`HELP` message, Traccar Client's `alarm=sos`, an inReach text with the race's help keyword) and stay open
 * until a person resolves them.
 */
import {
  ALERT_KINDS,
  ALERT_STATES,
  DEFAULT_ALERT_SETTINGS,
  DEFAULT_EXPECTED_INTERVAL_S,
  RUNNER_STATUSES,
  SELF_CLEARING_KINDS,
} from './constants';
import { alertMessage, type AlertMessageKey, type AlertMessageParams } from './alert-messages';
import type { AlertSettings } from './alerts';
import type { DeviceSource } from './entities';

export {
  ALERT_KINDS,
  ALERT_STATES,
  ALERT_SETTINGS_LIMITS,
  DEFAULT_ALERT_SETTINGS,
  DEFAULT_EXPECTED_INTERVAL_S,
  SELF_CLEARING_KINDS,
} from './constants';
export * from './alert-messages';

export type AlertKind = (typeof ALERT_KINDS)[number];
export type AlertState = (typeof ALERT_STATES)[number];
export type SelfClearingKind = (typeof SELF_CLEARING_KINDS)[number];

/** Progress of at most this many metres is "no movement". */
export const NO_MOVEMENT_DISTANCE_M = 100;

/** Used for a source this build does not know (a newer database): a LoRaWAN-like 5 minutes. */
const FALLBACK_INTERVAL_S = 300;

/** True for the kinds that resolve themselves when their condition clears. */
export function isSelfClearingKind(kind: AlertKind): kind is SelfClearingKind {
  return (SELF_CLEARING_KINDS as readonly string[]).includes(kind);
}

/**
 * How often a device is expected to report, in milliseconds: the device's own setting when it has one (a positive
 * number of seconds), else its source's default (DEFAULT_EXPECTED_INTERVAL_S).
 */
export function expectedIntervalMs(source: DeviceSource, overrideSeconds?: number | null): number {
  if (
    overrideSeconds !== undefined &&
    overrideSeconds !== null &&
    Number.isFinite(overrideSeconds) &&
    overrideSeconds > 0
  )
    return overrideSeconds * 1000;
  return (DEFAULT_EXPECTED_INTERVAL_S[source] ?? FALLBACK_INTERVAL_S) * 1000;
}

/**
 * After how long without a fix a device's runner is stale (leaderboard) and its signal lost (alert): k times the
 * expected interval. `k` defaults to the race's LostSignalFactor default (3).
 */
export function staleAfterMs(
  source: DeviceSource,
  overrideSeconds?: number | null,
  k: number = DEFAULT_ALERT_SETTINGS.LostSignalFactor,
): number {
  return Math.round(k * expectedIntervalMs(source, overrideSeconds));
}

/** How far back a runner's fixes must reach for every rule to see what it needs: 2 N minutes plus a margin. */
export function alertHistoryWindowMs(settings: Pick<AlertSettings, 'NoMovementMinutes'>): number {
  return (2 * settings.NoMovementMinutes + 5) * 60_000;
}

/** A runner's status as the alert rules read it: the leaderboard's statuses and the race-office ones. */
export type AlertRunnerStatus = (typeof RUNNER_STATUSES)[number] | 'dns' | 'dnf' | 'dsq';

/** Statuses of a runner who is out of the race: they raise nothing. */
const OUT_OF_RACE: ReadonlySet<string> = new Set(['finished', 'dns', 'dnf', 'dsq']);

/** One fix of a runner as the alert rules read it. */
export interface AlertFix {
  /** Epoch ms, device time. */
  t: number;
  /** Metres along the course the matcher gave this fix; null when it could not place it (e.g. off course). */
  progressM: number | null;
  /** The matcher found this fix farther than its off-course distance from the course. */
  offCourse: boolean;
  lat: number;
  lon: number;
}

export interface RunnerAlertInput {
  /** The runner's leaderboard status (or dns/dnf/dsq). Finished, dns, dnf and dsq runners raise nothing. */
  status: AlertRunnerStatus;
  /** The race clock runs, the runner has started and has not finished. */
  racing: boolean;
  /** The runner's device's expected reporting interval (expectedIntervalMs). */
  expectedIntervalMs: number;
  /** The runner's fixes, oldest first, reaching back at least alertHistoryWindowMs (2 N minutes plus a margin). */
  fixes: readonly AlertFix[];
  /**
   * The runner's newest fix when it may be older than `fixes` reaches (a silent tracker); defaults to the last
   * entry of `fixes`. Without either, lost-signal cannot be told and is not raised.
   */
  lastFix?: { t: number; lat: number; lon: number } | null;
  /** Battery percentage the device last reported, or null. */
  batteryPercent: number | null;
  /** The device reported LOW without a percentage (SPOT, inReach). */
  batteryLow: boolean;
  /** Distances along the course (m) of the aid stations / checkpoints (the course's waypoints). */
  waypointDistancesM: readonly number[];
  /** The checkpoint whose cutoff the runner is expected to miss (course/cutoffs.ts `cutoffRisk`), or null. */
  cutoffRisk?: { checkpoint: string; cutoffMs: number; etaMs: number | null } | null;
}

/** A self-clearing condition that holds now for one runner. */
export interface ActiveCondition {
  kind: AlertKind;
  /** For people, e.g. "No fix for 34 min (expected every 2.5 min)": `alertMessageEnglish` of the key and params. */
  message: string;
  /** The same detail as a key and its parameters, for a screen to word in its language. */
  messageKey: AlertMessageKey;
  messageParams: AlertMessageParams;
  /** Last known position, or null. */
  lat: number | null;
  lon: number | null;
  /**
   * When the situation began (epoch ms): the last fix for lost-signal, the first fix of the stop for no-movement,
   * the first of the consecutive off-course fixes, the newest fix (or now) for low-battery. Not when the threshold
   * was crossed.
   */
  since: number;
}

/**
 * Which self-clearing conditions hold now for one runner. Pure and cheap (one pass over the fixes, one over the
 * waypoints):
 *
 * - `lost-signal`: a racing runner with no fix for k × the expected interval (k = LostSignalFactor).
 * - `no-movement`: a racing runner whose course progress has advanced by no more than 100 m for NoMovementMinutes
 *   while fixes keep arriving (its signal is not lost); inside an aid-station zone only after twice that. The zone is
 *   progress-based: the runner's progress is within AidStationRadiusM of a waypoint's distance along the course
 *   (robust on out-and-back courses, where a position test would also match the other direction's passage). Read
 *   from on-course fixes; while the newest fix is off course the off-course rule speaks instead.
 * - `off-course`: a racing runner whose latest fixes are off course, more than OffCourseFixes of them in a row.
 * - `low-battery`: percent ≤ LowBatteryPercent or reported LOW, for a racing runner or one not yet started (a flat
 *   battery on the start line can still be swapped).
 *
 * Finished, dns, dnf and dsq runners raise nothing; neither does a runner the race is not running for, except
 * low-battery before the start.
 */
export function evaluateRunnerConditions(
  input: RunnerAlertInput,
  settings: AlertSettings,
  nowMs: number,
): ActiveCondition[] {
  const out: ActiveCondition[] = [];
  if (OUT_OF_RACE.has(input.status)) return out;
  const fixes = input.fixes;
  const newest = fixes.length > 0 ? fixes[fixes.length - 1] : null;
  const lastFix = input.lastFix ?? newest;
  const racing = input.racing && input.status !== 'not-started';

  if (racing) {
    const expected = input.expectedIntervalMs;
    const lostAfter = settings.LostSignalFactor * expected;
    const silent = lastFix !== null && nowMs - lastFix.t > lostAfter;
    if (silent) {
      out.push({
        kind: 'lost-signal',
        ...alertMessage('lost-signal', { silentMs: nowMs - lastFix.t, expectedMs: expected }),
        lat: lastFix.lat,
        lon: lastFix.lon,
        since: lastFix.t,
      });
    }

    // Off course: the run of off-course fixes at the end.
    let run = 0;
    for (let i = fixes.length - 1; i >= 0 && fixes[i].offCourse; i--) run++;
    if (run > settings.OffCourseFixes && newest !== null) {
      const first = fixes[fixes.length - run];
      out.push({
        kind: 'off-course',
        ...alertMessage('off-course', { fixes: run, durationMs: newest.t - first.t }),
        lat: newest.lat,
        lon: newest.lon,
        since: first.t,
      });
    }

    if (!silent && newest !== null && !newest.offCourse) {
      const stop = noMovement(fixes, input.waypointDistancesM, settings, nowMs);
      if (stop !== null) out.push(stop);
    }

    const risk = input.cutoffRisk;
    if (risk) {
      const late = risk.etaMs === null ? nowMs - risk.cutoffMs : risk.etaMs - risk.cutoffMs;
      out.push({
        kind: 'cutoff-risk',
        ...alertMessage(risk.etaMs === null ? 'cutoff-passed' : 'cutoff-late', {
          checkpoint: risk.checkpoint,
          lateMs: late,
        }),
        lat: lastFix?.lat ?? null,
        lon: lastFix?.lon ?? null,
        since: nowMs,
      });
    }
  }

  if (racing || input.status === 'not-started') {
    const pct = input.batteryPercent;
    const low = pct !== null && Number.isFinite(pct) && pct <= settings.LowBatteryPercent;
    if (low || input.batteryLow) {
      out.push({
        kind: 'low-battery',
        ...(low
          ? alertMessage('battery-percent', { percent: Math.round(pct) })
          : alertMessage('battery-low', {})),
        lat: lastFix?.lat ?? null,
        lon: lastFix?.lon ?? null,
        since: lastFix?.t ?? nowMs,
      });
    }
  }
  return out;
}

function noMovement(
  fixes: readonly AlertFix[],
  waypointDistancesM: readonly number[],
  settings: AlertSettings,
  nowMs: number,
): ActiveCondition | null {
  // Newest on-course progress, then back while progress stays within 100 m of it (progress never decreases, so the
  // fixes that qualify are a run at the end).
  let i = fixes.length - 1;
  while (i >= 0 && fixes[i].progressM === null) i--;
  if (i < 0) return null;
  const newest = fixes[i];
  const current = newest.progressM!;
  let since = newest.t;
  for (; i >= 0; i--) {
    const p = fixes[i].progressM;
    if (p === null) continue;
    if (current - p > NO_MOVEMENT_DISTANCE_M) break;
    since = fixes[i].t;
  }
  const n = settings.NoMovementMinutes * 60_000;
  const stoppedMs = nowMs - since;
  if (stoppedMs < n) return null;
  const radius = settings.AidStationRadiusM;
  let atAid = false;
  for (const d of waypointDistancesM) {
    if (Math.abs(d - current) <= radius) {
      atAid = true;
      break;
    }
  }
  if (atAid && stoppedMs < 2 * n) return null;
  const last = fixes[fixes.length - 1];
  return {
    kind: 'no-movement',
    ...alertMessage(atAid ? 'no-movement-aid' : 'no-movement', { durationMs: stoppedMs, progressM: current }),
    lat: last.lat,
    lon: last.lon,
    since,
  };
}

/** One of a runner's alerts that is not resolved (`open` or `acknowledged`). */
export interface OpenAlertRef {
  kind: AlertKind;
  state: AlertState;
}

export interface AlertTransitions {
  /** Conditions to raise as new `open` alerts: no unresolved alert of their kind exists. */
  raise: ActiveCondition[];
  /** Kinds whose unresolved alerts resolve themselves: self-clearing, and their condition no longer holds. */
  resolve: AlertKind[];
  /** Conditions that still hold and already have an unresolved alert (refresh its LastSeenAt, position, message). */
  ongoing: ActiveCondition[];
}

/** Kinds raised once per runner: resolved by a person, they are not raised again while the condition holds. */
const RAISED_ONCE: ReadonlySet<AlertKind> = new Set(['cutoff-risk']);

/**
 * What to do with one runner's alerts given the conditions that hold now: at most one unresolved alert per runner
 * and kind; self-clearing kinds resolve when their condition clears; sos, help and cutoff-risk never resolve by
 * themselves. Resolved entries of `open` are ignored, except that a resolved cutoff-risk is never raised again (it
 * is raised once per runner). Each kind appears once in the result.
 */
export function nextAlertTransitions(
  open: readonly OpenAlertRef[],
  active: readonly ActiveCondition[],
): AlertTransitions {
  const unresolved = new Set<AlertKind>();
  const raisedOnce = new Set<AlertKind>();
  for (const a of open) {
    if (a.state !== 'resolved') unresolved.add(a.kind);
    else if (RAISED_ONCE.has(a.kind)) raisedOnce.add(a.kind);
  }
  const raise: ActiveCondition[] = [];
  const ongoing: ActiveCondition[] = [];
  const holding = new Set<AlertKind>();
  for (const c of active) {
    if (holding.has(c.kind)) continue;
    holding.add(c.kind);
    if (raisedOnce.has(c.kind) && !unresolved.has(c.kind)) continue;
    (unresolved.has(c.kind) ? ongoing : raise).push(c);
  }
  const resolve: AlertKind[] = [];
  for (const kind of unresolved) if (isSelfClearingKind(kind) && !holding.has(kind)) resolve.push(kind);
  return { raise, resolve, ongoing };
}

/** One runner of a race sweep: its id, what the rules read, and its unresolved alerts. */
export interface RaceAlertRunner {
  runnerId: number;
  input: RunnerAlertInput;
  open: readonly OpenAlertRef[];
}

export interface RunnerAlertTransitions extends AlertTransitions {
  runnerId: number;
}

/**
 * Every rule for every runner of a race in one pass: only runners with something to raise, resolve or refresh are
 * returned. Cost is linear in the fixes given (pass each runner's last alertHistoryWindowMs of fixes).
 */
export function sweepRaceAlerts(
  runners: Iterable<RaceAlertRunner>,
  settings: AlertSettings,
  nowMs: number,
): RunnerAlertTransitions[] {
  const out: RunnerAlertTransitions[] = [];
  for (const r of runners) {
    const active = evaluateRunnerConditions(r.input, settings, nowMs);
    if (active.length === 0 && r.open.length === 0) continue;
    const t = nextAlertTransitions(r.open, active);
    if (t.raise.length > 0 || t.resolve.length > 0 || t.ongoing.length > 0)
      out.push({ runnerId: r.runnerId, ...t });
  }
  return out;
}

/**
 * A free-text device message (an inReach message) as an alert: `help` when the race's help keyword is set and the
 * text contains it, case-insensitively. Never `sos`: an SOS comes from the device's SOS code or message type, not
 * from words (a text reading "no SOS needed" must not call rescue).
 */
export function sosOrHelpFromText(
  text: string | null | undefined,
  helpKeyword: string | null | undefined,
): 'help' | null {
  const keyword = helpKeyword?.trim().toLowerCase();
  if (!keyword || !text) return null;
  return text.toLowerCase().includes(keyword) ? 'help' : null;
}

/**
 * A SPOT message type as an alert: `SOS` raises `sos`, `HELP` raises `help`, `HELP-CANCEL` resolves an open `help`
 * (an SOS is only ever resolved by a person). Anything else (TRACK, OK, CUSTOM, …) is not an alert.
 */
export function alertFromSpotMessageType(
  messageType: string | null | undefined,
): { raise: 'sos' | 'help' } | { cancel: 'help' } | null {
  switch (messageType?.trim().toUpperCase()) {
    case 'SOS':
      return { raise: 'sos' };
    case 'HELP':
      return { raise: 'help' };
    case 'HELP-CANCEL':
      return { cancel: 'help' };
    default:
      return null;
  }
}
