import type { Race } from '@racebeacon/domain/entities';
import type { RaceBody } from '@racebeacon/domain/schemas';
import { api } from '../../lib/api-client';

export const openRacesApi = {
  list: () => api.get<Race[]>('/open/races'),
  get: (id: number) => api.get<Race>(`/open/races/${id}`),
  notStarted: () => api.get<Race[]>('/open/races/not-started'),
};

export const directorRacesApi = {
  list: () => api.get<Race[]>('/director/races'),
  get: (id: number) => api.get<Race>(`/director/races/${id}`),
  create: (body: RaceBody) => api.post<Race>('/director/races', body),
  update: (id: number, body: RaceBody) => api.put<Race>(`/director/races/${id}`, body),
  remove: (id: number) => api.del<unknown>(`/director/races/${id}`),
  start: (id: number) => api.put<Race>(`/director/races/start/${id}`),
  end: (id: number) => api.put<Race>(`/director/races/end/${id}`),
};
