import type { AttachTrackerBody, DetachTracker, RunnerTracker } from '@racebeacon/domain/trackers';
import { api } from '../../lib/api-client';

/** A runner's own tracker: the tracker check, attaching one from the runner's row, detaching it. */
export const trackerApi = {
  get: (runnerId: number) => api.get<RunnerTracker | null>(`/director/runners/${runnerId}/tracker`),
  attach: (runnerId: number, body: AttachTrackerBody) =>
    api.post<RunnerTracker>(`/director/runners/${runnerId}/tracker`, body),
  detach: (runnerId: number) => api.del<DetachTracker>(`/director/runners/${runnerId}/tracker`),
};
