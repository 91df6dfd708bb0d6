import type { Race } from '@racebeacon/domain/entities';

/** 0 live, 1 upcoming, 2 finished. */
const stage = (r: Race): number => (r.HasFinished ? 2 : r.HasStarted ? 0 : 1);
const time = (r: Race): number | null => (r.StartTime ? new Date(r.StartTime).getTime() : null);

/**
 * Display order of race cards: what a spectator is most likely looking for first. Live races, then upcoming ones
 * (soonest first, those without a start time after them), then finished ones (most recent first). The API keeps
 * its own order (soonest start first); this only changes how the list reads as it grows.
 */
export function byRelevance(races: readonly Race[]): Race[] {
  return [...races].sort((a, b) => {
    const s = stage(a) - stage(b);
    if (s !== 0) return s;
    const ta = time(a);
    const tb = time(b);
    if (ta === null || tb === null) return ta === tb ? a.RaceId - b.RaceId : ta === null ? 1 : -1;
    const d = stage(a) === 2 ? tb - ta : ta - tb;
    return d !== 0 ? d : a.RaceId - b.RaceId;
  });
}
