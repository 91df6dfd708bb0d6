import type { Checkpoint, RunnerSplits } from '@racebeacon/domain/entities';
import type { CourseTrack } from '@racebeacon/domain/live';
import { api } from '../../lib/api-client';

export const liveApi = {
  /** A background call: live data loads without the blocking spinner overlay. */
  courseTrack: (raceId: number, signal?: AbortSignal) =>
    api.get<CourseTrack>(`/open/races/${raceId}/course-track`, { background: true, signal }),
  /** Every runner's splits (GPS passing times, or check-ins). */
  splits: (raceId: number, signal?: AbortSignal) =>
    api.get<RunnerSplits[]>(`/open/races/${raceId}/splits`, { background: true, signal }),
  checkpoints: (raceId: number, signal?: AbortSignal) =>
    api.get<Checkpoint[]>(`/open/races/${raceId}/checkpoints`, { background: true, signal }),
  /**
   * A stream ticket (the race's director or an admin): opens the live stream live, undelayed and unmasked, for 60 s
   * (EventSource cannot send the bearer token).
   */
  streamTicket: (raceId: number) =>
    api.post<{ Ticket: string; ExpiresAt: string }>(`/director/races/${raceId}/live-ticket`, undefined, {
      background: true,
    }),
};
