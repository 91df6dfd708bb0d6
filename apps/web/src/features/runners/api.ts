import type { PublicRunner, Runner } from '@racebeacon/domain/entities';
import type { RunnerBody } from '@racebeacon/domain/schemas';
import { api } from '../../lib/api-client';

export const runnersApi = {
  listPublic: (raceId: number) => api.get<PublicRunner[]>(`/open/runners/${raceId}`),
  listForDirector: (raceId: number) => api.get<Runner[]>(`/director/runners/${raceId}`),
  create: (raceId: number, body: RunnerBody) => api.post<Runner>(`/director/runners/${raceId}`, body),
  update: (raceId: number, runner: Runner) =>
    api.put<Runner>(`/director/runners/${raceId}/${runner.RunnerId}`, runner),
  remove: (raceId: number, runnerId: number) => api.del<unknown>(`/director/runners/${raceId}/${runnerId}`),
};
