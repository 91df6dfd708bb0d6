/**
 * The leaderboard: finished runners by finish time, then everyone else on the course by distance (earlier arrival
 * at that distance first), then those who did not finish (DNF) by the distance they reached, then the disqualified
 * (DSQ), those who did not start (DNS), and runners not seen yet. Only finishers and runners on the course are
 * ranked. Gaps are to the leader: finish-time difference, or for a runner still out there the time since the leader
 * passed the same distance. With checkpoints, each row carries the last one passed and whether a cutoff is at risk.
 */
import { cutoffRisk } from './cutoffs';
import { trackingRowFields } from './estimate';
import { refreshRunnerState } from './matching';
import { lastCheckpointPassed, type SplitCheckpoint } from './splits';
import type {
  LeaderboardFilter,
  LeaderboardRow,
  LeaderboardRunner,
  PreparedCourse,
  ProgressPoint,
  RaceClock,
  RunnerState,
} from './types';

export const AGE_GROUPS: string[] = ['U20', '20-29', '30-39', '40-49', '50-59', '60-69', '70+'];

/** 'U20' (under 20), '20-29' (inclusive), '40+' (40 and over); null when it is none of these. */
export function parseAgeGroup(group: string): { min: number; max: number } | null {
  const g = group.trim();
  let m = /^U(\d{1,3})$/i.exec(g);
  if (m) return { min: 0, max: Number(m[1]) - 1 };
  m = /^(\d{1,3})\s*-\s*(\d{1,3})$/.exec(g);
  if (m && Number(m[1]) <= Number(m[2])) return { min: Number(m[1]), max: Number(m[2]) };
  m = /^(\d{1,3})\+$/.exec(g);
  if (m) return { min: Number(m[1]), max: Infinity };
  return null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const round = (x: number | null, digits: number): number | null => {
  if (x === null || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** Finished, on the course, DNF, DSQ, DNS, not started: the order of the groups. Only the first two are ranked. */
const GROUP = { finished: 0, racing: 1, dnf: 2, dsq: 3, dns: 4, 'not-started': 5 } as const;
type Group = (typeof GROUP)[keyof typeof GROUP];
const RANKED_GROUPS = 1;

interface Ranked {
  r: LeaderboardRunner;
  s: RunnerState;
  group: Group;
  /** When the runner first reached their current distance (finish time for finishers). */
  reachedMs: number;
  /** When the runner first reached their current distance along their progress (null: not in it). */
  firstAtDistanceMs: number | null;
  /** The distance that ranks a DNF: where the status was recorded, or the furthest progress. */
  dnfDistanceM: number;
}

/** The matcher's state with a status set by people on top (dns/dnf/dsq); a DNF keeps the distance it reached. */
function withManualStatus(r: LeaderboardRunner, s: RunnerState): { s: RunnerState; group: Group } {
  const manual = r.manualStatus;
  if (manual) {
    const status = manual.status === 'DNF' ? 'dnf' : manual.status === 'DSQ' ? 'dsq' : 'dns';
    return { s: { ...s, status, etaFinishMs: null, nextWaypoint: null }, group: GROUP[status] };
  }
  const group =
    s.status === 'finished'
      ? GROUP.finished
      : s.status === 'not-started'
        ? GROUP['not-started']
        : GROUP.racing;
  return { s, group };
}

/**
 * The leaderboard rows at `nowMs`. `checkpoints` (course order, optional) add each row's last checkpoint passed and
 * its cutoff risk.
 */
export function buildLeaderboard(
  runners: LeaderboardRunner[],
  course: PreparedCourse,
  clock: RaceClock,
  nowMs: number,
  checkpoints: readonly SplitCheckpoint[] = [],
): LeaderboardRow[] {
  const terrain = { course, startMs: clock.startMs };
  const ranked: Ranked[] = runners.map((r) => {
    const { s, group } = withManualStatus(r, refreshRunnerState(course, r.state, clock, nowMs));
    const firstAtDistanceMs = firstReached(s.progress, s.distanceM);
    const reachedMs = s.finishMs ?? firstAtDistanceMs ?? Infinity;
    const dnfDistanceM = r.manualStatus?.distanceM ?? s.distanceM;
    return { r, s, group, reachedMs, firstAtDistanceMs, dnfDistanceM };
  });
  ranked.sort(compareRanked);

  const leader = ranked.length > 0 && ranked[0].group <= RANKED_GROUPS ? ranked[0] : null;
  const rows: LeaderboardRow[] = [];
  let rank = 0;
  for (let k = 0; k < ranked.length; k++) {
    const x = ranked[k];
    const { r, s } = x;
    const ranks = x.group <= RANKED_GROUPS;
    if (ranks && (k === 0 || compareKey(ranked[k - 1], x) !== 0)) rank = k + 1;
    const onCourse = x.group === GROUP.racing || x.group === GROUP.finished;
    const known =
      s.status !== 'not-started' && s.status !== 'dns' && (x.group !== GROUP.dsq || s.progress.length > 0);
    const distanceM = x.group === GROUP.dnf ? x.dnfDistanceM : s.distanceM;
    const checkins = r.checkins ?? [];
    const passed =
      checkpoints.length > 0 && x.group !== GROUP.dns
        ? lastCheckpointPassed(s, checkpoints, checkins, clock)
        : null;
    const risk =
      checkpoints.length > 0 ? cutoffRisk(s, checkpoints, checkins, nowMs, terrain) !== null : false;
    rows.push({
      Rank: ranks ? rank : null,
      RunnerId: r.RunnerId,
      BibNumber: r.BibNumber,
      FirstName: r.FirstName,
      LastName: r.LastName,
      Gender: r.Gender,
      Age: r.Age,
      Status: s.status,
      DistanceKm: known ? round(distanceM / 1000, 3) : null,
      Percent: known
        ? round(course.lengthM > 0 ? Math.min(100, (distanceM / course.lengthM) * 100) : 0, 1)
        : null,
      ElapsedSeconds: s.elapsedMs === null ? null : Math.round(s.elapsedMs / 1000),
      PaceSecondsPerKm: round(s.paceSecPerKm, 0),
      EtaFinish: iso(s.etaFinishMs),
      FinishTime: iso(s.finishMs),
      LastPingTime: iso(s.lastFix?.t ?? null),
      Latitude: s.lastFix?.lat ?? null,
      Longitude: s.lastFix?.lon ?? null,
      BatteryState: r.BatteryState,
      GapSeconds: leader && known && onCourse ? round(gapSeconds(leader.s, s, x.firstAtDistanceMs), 0) : null,
      GapKm:
        leader && known && onCourse ? round(Math.max(0, leader.s.distanceM - s.distanceM) / 1000, 3) : null,
      NextWaypoint: s.nextWaypoint?.name ?? null,
      NextWaypointKm: s.nextWaypoint ? round(s.nextWaypoint.distanceM / 1000, 3) : null,
      EtaNextWaypoint: iso(s.nextWaypoint?.etaMs ?? null),
      LastCheckpoint: passed?.checkpoint.name ?? null,
      LastCheckpointKm: passed ? round(passed.checkpoint.distanceM / 1000, 3) : null,
      LastCheckpointTime: iso(passed?.split.t ?? null),
      CutoffRisk: risk,
      ...trackingRowFields(course, s, clock.startMs, nowMs, r.expectedIntervalMs),
    });
  }
  return rows;
}

function compareKey(a: Ranked, b: Ranked): number {
  if (a.group !== b.group) return a.group - b.group;
  if (a.group === GROUP.finished) return a.reachedMs - b.reachedMs;
  // By the whole metre the row shows, then who got there first: centimetres of a smoothed match are no race.
  if (a.group === GROUP.racing)
    return Math.round(b.s.distanceM) - Math.round(a.s.distanceM) || a.reachedMs - b.reachedMs;
  if (a.group === GROUP.dnf) return b.dnfDistanceM - a.dnfDistanceM;
  return 0;
}

// One collator for every comparison: localeCompare with options builds one per call, which dominates a sort.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compareRanked(a: Ranked, b: Ranked): number {
  return (
    compareKey(a, b) ||
    collator.compare(a.r.BibNumber ?? '\uffff', b.r.BibNumber ?? '\uffff') ||
    collator.compare(a.r.LastName, b.r.LastName) ||
    collator.compare(a.r.FirstName, b.r.FirstName) ||
    a.r.RunnerId - b.r.RunnerId
  );
}

/**
 * Index of the first progress point at or beyond distance d (p.length if none). Progress never goes backwards
 * (distances are non-decreasing), so a binary search: the leaderboard asks it for every runner.
 */
function firstIndexAtLeast(p: readonly ProgressPoint[], d: number): number {
  let lo = 0;
  let hi = p.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (p[mid].distanceM < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function firstReached(p: readonly ProgressPoint[], d: number): number | null {
  const k = firstIndexAtLeast(p, d);
  return k < p.length ? p[k].t : null;
}

/** When the runner with this progress first reached distance d (interpolated), or null if they have not. */
function timeAtDistance(p: readonly ProgressPoint[], d: number): number | null {
  const k = firstIndexAtLeast(p, d);
  if (k >= p.length) return null;
  if (k === 0) return p[0].t;
  const a = p[k - 1];
  const b = p[k];
  return b.distanceM > a.distanceM
    ? a.t + ((d - a.distanceM) / (b.distanceM - a.distanceM)) * (b.t - a.t)
    : b.t;
}

/** `mine`: when this runner first reached their current distance (the leaderboard's reachedMs, or null). */
function gapSeconds(leader: RunnerState, s: RunnerState, mine: number | null): number | null {
  if (leader.finishMs !== null && s.finishMs !== null) return (s.finishMs - leader.finishMs) / 1000;
  if (s.progress.length === 0) return null;
  const theirs = timeAtDistance(leader.progress, s.distanceM);
  if (mine === null || theirs === null) return null;
  return Math.max(0, mine - theirs) / 1000;
}

function normalise(x: string): string {
  return x.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * Keeps the overall Rank on each row (a filtered view of the race). With a gender or age-group filter, each row also
 * gets its CategoryRank: its place among the runners of that category (equal overall ranks share it), whatever the
 * search then narrows down to. The rows given are not modified.
 */
export function filterLeaderboard(rows: LeaderboardRow[], f: LeaderboardFilter): LeaderboardRow[] {
  const range = f.ageGroup ? parseAgeGroup(f.ageGroup) : null;
  const tokens = f.search ? normalise(f.search).split(/\s+/).filter(Boolean) : [];
  let shown = rows.filter((row) => {
    if (f.gender && row.Gender !== f.gender) return false;
    if (f.ageGroup) {
      // An unknown group matches nobody rather than everybody.
      if (range === null || row.Age === null || row.Age < range.min || row.Age > range.max) return false;
    }
    return true;
  });
  if (f.gender || f.ageGroup) shown = withCategoryRanks(shown);
  if (tokens.length === 0) return shown;
  return shown.filter((row) => {
    const bib = normalise(row.BibNumber ?? '');
    if (tokens.length === 1 && bib !== '' && bib.startsWith(tokens[0])) return true;
    const hay = normalise(`${row.FirstName} ${row.LastName} ${row.BibNumber ?? ''}`);
    return tokens.every((t) => hay.includes(t));
  });
}

/** 1 + the number of category members with a better overall rank: ties shared, row order irrelevant. */
function withCategoryRanks(category: LeaderboardRow[]): LeaderboardRow[] {
  const ranks: number[] = [];
  for (const r of category) if (r.Rank !== null) ranks.push(r.Rank);
  ranks.sort((a, b) => a - b);
  return category.map((r) => ({
    ...r,
    CategoryRank: r.Rank === null ? null : lowerBound(ranks, r.Rank) + 1,
  }));
}

/** Index of the first element of the sorted array not less than x. */
function lowerBound(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
