import type {
  CheckinAnswer,
  CheckinBody,
  CheckinLink,
  CheckinPage,
  CreatedCheckinLink,
} from '@racebeacon/domain/checkin';
import type { Checkpoint } from '@racebeacon/domain/entities';
import { api } from '../../lib/api-client';

/**
 * The volunteer page's calls. The link's token is the credential (no sign-in). Background calls: the page must
 * stay usable while an entry is on its way, and a failure is shown on the entry itself.
 */
export const checkinApi = {
  page: (token: string) =>
    api.get<CheckinPage>(`/checkin/${encodeURIComponent(token)}`, { background: true }),
  send: (token: string, body: CheckinBody) =>
    api.post<CheckinAnswer>(`/checkin/${encodeURIComponent(token)}`, body, { background: true }),
};

/** The director's (or an admin's) check-in links of a race, and the checkpoints they are made for. */
export const checkinLinksApi = {
  checkpoints: (raceId: number) => api.get<Checkpoint[]>(`/director/races/${raceId}/checkpoints`),
  list: (raceId: number) => api.get<CheckinLink[]>(`/director/races/${raceId}/checkin-links`),
  create: (raceId: number, checkpointId: number, label: string) =>
    api.post<CreatedCheckinLink>(`/director/races/${raceId}/checkpoints/${checkpointId}/checkin-links`, {
      Label: label.trim() || null,
    }),
  revoke: (raceId: number, linkId: number) =>
    api.del<CheckinLink>(`/director/races/${raceId}/checkin-links/${linkId}`),
};
