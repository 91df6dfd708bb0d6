import type { CheckinAnswer, CheckinBody, CheckinPage } from '@racebeacon/domain/checkin';
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
