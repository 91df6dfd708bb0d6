import type { CourseTrack } from '@racebeacon/domain/live';
import { api } from '../../lib/api-client';

export const liveApi = {
  /** A background call: live data loads without the blocking spinner overlay. */
  courseTrack: (raceId: number, signal?: AbortSignal) =>
    api.get<CourseTrack>(`/open/races/${raceId}/course-track`, { background: true, signal }),
};
