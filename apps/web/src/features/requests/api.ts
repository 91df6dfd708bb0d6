import type { Course, Race } from '@racebeacon/domain';
import { api } from '../../lib/api-client';

/** GET /api/admin/requests/{raceId}: the race with what the admin needs to judge it. */
export type RaceRequestDetail = Race & { RunnerCount: number; Course: Course | null };

export const requestsApi = {
  pending: () => api.get<Race[]>('/admin/requests'),
  detail: (raceId: number) => api.get<RaceRequestDetail>(`/admin/requests/${raceId}`),
  approve: (raceId: number) => api.post<Race>(`/admin/requests/approve/${raceId}`),
};
