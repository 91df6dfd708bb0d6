import type { Checkpoint } from '@racebeacon/domain/entities';
import { api } from '../../lib/api-client';

export const checkpointsApi = {
  listPublic: (raceId: number) =>
    api.get<Checkpoint[]>(`/open/races/${raceId}/checkpoints`, { background: true }),
  listForDirector: (raceId: number) =>
    api.get<Checkpoint[]>(`/director/races/${raceId}/checkpoints`, { background: true }),
  /** An ISO date-time sets the cutoff, null clears it. */
  setCutoff: (raceId: number, checkpointId: number, CutoffTime: string | null) =>
    api.put<Checkpoint>(`/director/races/${raceId}/checkpoints/${checkpointId}`, { CutoffTime }),
};
