import type { Race, RaceRequest } from '@racebeacon/domain/entities';
import { api } from '../../lib/api-client';

export const requestsApi = {
  pending: () => api.get<Race[]>('/admin/requests'),
  detail: (raceId: number) => api.get<RaceRequest>(`/admin/requests/${raceId}`),
  approve: (raceId: number) => api.post<Race>(`/admin/requests/approve/${raceId}`),
};
