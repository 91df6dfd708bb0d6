import type { PublicRunner, Runner, RunnerStatusInfo } from '@racebeacon/domain/entities';
import type { RunnerBody, RunnerStatusBody } from '@racebeacon/domain/schemas';
import { MAX_RUNNER_CSV_BYTES } from '@racebeacon/domain/constants';
import { api, apiDownload, API_BASE } from '../../lib/api-client';
import { assertUploadFits } from '../../lib/upload-limit';

/** What an import did (or would do, on a dry run): POST /api/director/runners/{raceId}/import. */
export interface RunnerImportResult {
  Created: number;
  Updated: number;
  Unchanged: number;
  Errors: { Line: number; Message: string }[];
  DryRun: boolean;
  Rows: {
    Line: number;
    Action: 'create' | 'update' | 'unchanged';
    BibNumber: string;
    FirstName: string;
    LastName: string;
  }[];
}

export const runnersApi = {
  listPublic: (raceId: number) => api.get<PublicRunner[]>(`/open/runners/${raceId}`),
  listForDirector: (raceId: number) => api.get<Runner[]>(`/director/runners/${raceId}`),
  create: (raceId: number, body: RunnerBody) => api.post<Runner>(`/director/runners/${raceId}`, body),
  update: (raceId: number, runner: Runner) =>
    api.put<Runner>(`/director/runners/${raceId}/${runner.RunnerId}`, runner),
  remove: (raceId: number, runnerId: number) => api.del<unknown>(`/director/runners/${raceId}/${runnerId}`),
  /**
   * The CSV file as a multipart upload; a file with errors rejects with `{ message, Errors }` (unless skipInvalid),
   * a file over the server's limit is refused before sending (rejects with the server's message).
   */
  importCsv: async (raceId: number, file: File, opts: { dryRun: boolean; skipInvalid: boolean }) => {
    assertUploadFits(file, MAX_RUNNER_CSV_BYTES);
    const form = new FormData();
    form.append('file', file);
    const query = `?dryRun=${opts.dryRun}&skipInvalid=${opts.skipInvalid}`;
    return api.post<RunnerImportResult>(`/director/runners/${raceId}/import${query}`, form);
  },
  exportCsv: (raceId: number) => apiDownload(`/director/runners/${raceId}/export.csv`),
  /** DNS / DNF / DSQ with a reason, or Status null to clear it (the race's director or an admin). */
  setStatus: (runnerId: number, body: RunnerStatusBody) =>
    api.put<RunnerStatusInfo>(`/director/runners/${runnerId}/status`, body),
  /** The public results file: a plain link (no token needed). */
  resultsCsvUrl: (raceId: number) => `${API_BASE}/open/races/${raceId}/results.csv`,
};
