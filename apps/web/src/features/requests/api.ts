import type { Race } from '@racebeacon/domain';
import { api } from '../../lib/api-client';

export const requestsApi = {
  pending: () => api.get<Race[]>('/admin/requests'),
  approve: (raceId: number) => api.post<Race>(`/admin/requests/approve/${raceId}`),
};
