import type { LeaderboardRow, RunnerPositions, TrailPoint } from './live-messages';

/**
 * Privacy of runners (issue 15), the one set of rules every public read applies: the live leaderboard, positions
 * and stream, the text view, embeds, the results file, replay, the flow chart and a runner's GPX track. The director
 * and admins (race HQ) read the race unmodified.
 *
 * - `publicDelayMin`: the public sees the race as it was that many minutes ago (0: live), every time counted from
 *   when the server received it (not the device's clock).
 * - `trailsPublic`: false: no trails for the public (the runner's current dot stays; no past dot, e.g. in replay).
 * - `hiddenRunnerIds`: runners who hide their live position: their row stays on the leaderboard by progress, with no
 *   dot (no latitude/longitude, estimated or real) and no trail.
 */
export interface RacePrivacy {
  publicDelayMin: number;
  trailsPublic: boolean;
  hiddenRunnerIds: ReadonlySet<number>;
}

export const OPEN_PRIVACY: RacePrivacy = {
  publicDelayMin: 0,
  trailsPublic: true,
  hiddenRunnerIds: new Set(),
};

/** The privacy of a race from its settings and its runners' choices. */
export function racePrivacy(
  race: { publicDelayMin?: number | null; trailsPublic?: boolean | null },
  runners: Iterable<{ id: number; hidePosition?: boolean | null }>,
): RacePrivacy {
  const hidden = new Set<number>();
  for (const r of runners) if (r.hidePosition) hidden.add(r.id);
  return {
    publicDelayMin: Math.max(0, race.publicDelayMin ?? 0),
    trailsPublic: race.trailsPublic ?? true,
    hiddenRunnerIds: hidden,
  };
}

/** True when the public may read the race exactly as it is live (no delay, trails public, nobody hidden). */
export function isOpenPrivacy(p: RacePrivacy): boolean {
  return p.publicDelayMin === 0 && p.trailsPublic && p.hiddenRunnerIds.size === 0;
}

/** The moment the public sees the race at: `nowMs` less the public delay. */
export function publicMoment(p: RacePrivacy, nowMs: number): number {
  return nowMs - p.publicDelayMin * 60_000;
}

/** Whether a runner's position (dot) may be shown to the public. */
export function positionIsPublic(p: RacePrivacy, runnerId: number): boolean {
  return !p.hiddenRunnerIds.has(runnerId);
}

/** Whether a runner's trail (and recorded track) may be shown to the public. */
export function trailIsPublic(p: RacePrivacy, runnerId: number): boolean {
  return p.trailsPublic && !p.hiddenRunnerIds.has(runnerId);
}

/**
 * Whether the public may see a runner's dot at a past moment `atMs` (replay) when the public's current moment is
 * `currentMs` (now − delay, or the end of the race): never for a hidden runner; with a private trail only the current
 * dot (`atMs` ≥ `currentMs`), which the live map shows anyway — a dot per past moment would rebuild the trail.
 */
export function positionAtIsPublic(
  p: RacePrivacy,
  runnerId: number,
  atMs: number,
  currentMs: number,
): boolean {
  if (!positionIsPublic(p, runnerId)) return false;
  return trailIsPublic(p, runnerId) || atMs >= currentMs;
}

/** A leaderboard row without any position (real or estimated); progress, rank and times stay. */
export function rowWithoutPosition(row: LeaderboardRow): LeaderboardRow {
  const out: LeaderboardRow = { ...row, Latitude: null, Longitude: null };
  if (row.EstimatedLatitude != null || row.EstimatedLongitude != null) {
    out.EstimatedLatitude = null;
    out.EstimatedLongitude = null;
  }
  return out;
}

/** A leaderboard row as the public sees it: a hidden runner keeps the row (progress, rank) without any position. */
export function publicRow(p: RacePrivacy, row: LeaderboardRow): LeaderboardRow {
  return positionIsPublic(p, row.RunnerId) ? row : rowWithoutPosition(row);
}

export function publicRows(p: RacePrivacy, rows: LeaderboardRow[]): LeaderboardRow[] {
  return p.hiddenRunnerIds.size === 0 ? rows : rows.map((r) => publicRow(p, r));
}

/** A trail as the public sees it: empty when trails are private or the runner hides their position. */
export function publicTrail(p: RacePrivacy, runnerId: number, trail: TrailPoint[]): TrailPoint[] {
  return trailIsPublic(p, runnerId) ? trail : [];
}

/** Positions as the public sees them: no dot, trail or estimate for a hidden runner; no trails when private. */
export function publicPositions(p: RacePrivacy, positions: RunnerPositions[]): RunnerPositions[] {
  if (p.trailsPublic && p.hiddenRunnerIds.size === 0) return positions;
  return positions.map((pos) => {
    if (!positionIsPublic(p, pos.RunnerId)) return { RunnerId: pos.RunnerId, Latest: null, Trail: [] };
    return pos.Trail.length && !p.trailsPublic ? { ...pos, Trail: [] } : pos;
  });
}

/** Of a list of timed items (splits, fixes), those the public may see: up to the public moment. */
export function publicUntil<T>(p: RacePrivacy, nowMs: number, items: T[], timeOf: (item: T) => number): T[] {
  if (p.publicDelayMin === 0) return items;
  const until = publicMoment(p, nowMs);
  return items.filter((i) => timeOf(i) <= until);
}

/**
 * The stricter of two privacies: the longer delay, trails public only when both say so, hidden when either hides.
 * A change read before the race's state is rebuilt is applied this way at once (privacy/, issue 24): tightening
 * takes effect immediately, loosening with the rebuild.
 */
export function stricterPrivacy(a: RacePrivacy, b: RacePrivacy): RacePrivacy {
  return {
    publicDelayMin: Math.max(a.publicDelayMin, b.publicDelayMin),
    trailsPublic: a.trailsPublic && b.trailsPublic,
    hiddenRunnerIds: new Set([...a.hiddenRunnerIds, ...b.hiddenRunnerIds]),
  };
}

export function samePrivacy(a: RacePrivacy, b: RacePrivacy): boolean {
  if (a.publicDelayMin !== b.publicDelayMin || a.trailsPublic !== b.trailsPublic) return false;
  if (a.hiddenRunnerIds.size !== b.hiddenRunnerIds.size) return false;
  for (const id of a.hiddenRunnerIds) if (!b.hiddenRunnerIds.has(id)) return false;
  return true;
}
