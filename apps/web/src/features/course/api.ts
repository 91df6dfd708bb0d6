import type { Course } from '@racebeacon/domain/entities';
import { MAX_GPX_BYTES } from '@racebeacon/domain/constants';
import { api } from '../../lib/api-client';
import { assertUploadFits } from '../../lib/upload-limit';

export const courseApi = {
  getPublic: (raceId: number) => api.get<Course | null>(`/open/course/${raceId}`, { notFoundAsNull: true }),
  getForDirector: (raceId: number) =>
    api.get<Course | null>(`/director/course/${raceId}`, { notFoundAsNull: true }),
  /** Refuses a file over the server's limit before sending it (rejects with the server's message). */
  upload: async (raceId: number, file: File) => {
    assertUploadFits(file, MAX_GPX_BYTES);
    const form = new FormData();
    form.append('file', file);
    return api.post<Course>(`/director/course/${raceId}`, form);
  },
  remove: (raceId: number, courseId: number) => api.del<unknown>(`/director/course/${raceId}/${courseId}`),
};
