import type { LeaderboardRow, RunnerPositions, TrailPoint } from './live-messages';

/**
 * Privacy of runners (issue 15), the one set of rules every public read applies: the live leaderboard, positions
 * and stream, the text view, embeds, the results file, replay, the flow chart and a runner's GPX track. The director
 * and admins (race HQ) read the race unmodified.
 *
 * - `publicDelayMin`: the public sees the race as it was that many minutes ago (0: live).
 * - `trailsPublic`: false: no trails for the public (the runner's current dot stays).
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

/** A leaderboard row as the public sees it: a hidden runner keeps the row (progress, rank) without any position. */
export function publicRow(p: RacePrivacy, row: LeaderboardRow): LeaderboardRow {
  if (positionIsPublic(p, row.RunnerId)) return row;
  const out: LeaderboardRow = { ...row, Latitude: null, Longitude: null };
  if (row.EstimatedLatitude != null || row.EstimatedLongitude != null) {
    out.EstimatedLatitude = null;
    out.EstimatedLongitude = null;
  }
  return out;
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
