import type { FlowAnswer, ReplayAnswer } from '@racebeacon/domain/course';
import { api } from '../../lib/api-client';

/**
 * Replay and the race-flow chart: background calls (no blocking spinner while the slider moves). Splits and
 * checkpoints are the live panel's (`liveApi`).
 */
export const storyApi = {
  /** The race at `atMs` (null: now or the end) with trails of at most `trail` fixes. */
  replay: (raceId: number, atMs: number | null, trail: number, signal?: AbortSignal) => {
    const q = new URLSearchParams({ trail: String(trail) });
    if (atMs !== null) q.set('at', new Date(atMs).toISOString());
    return api.get<ReplayAnswer>(`/open/races/${raceId}/replay?${q}`, { background: true, signal });
  },
  flow: (raceId: number, signal?: AbortSignal) =>
    api.get<FlowAnswer>(`/open/races/${raceId}/flow`, { background: true, signal }),
};
