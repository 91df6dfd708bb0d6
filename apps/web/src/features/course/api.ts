import type { Course } from '@racebeacon/domain/entities';
import { api } from '../../lib/api-client';

export const courseApi = {
  getPublic: (raceId: number) => api.get<Course | null>(`/open/course/${raceId}`, { notFoundAsNull: true }),
  getForDirector: (raceId: number) =>
    api.get<Course | null>(`/director/course/${raceId}`, { notFoundAsNull: true }),
  upload: (raceId: number, file: File) => {
    const form = new FormData();
    form.append('file', file);
    return api.post<Course>(`/director/course/${raceId}`, form);
  },
  remove: (raceId: number, courseId: number) => api.del<unknown>(`/director/course/${raceId}/${courseId}`),
};
