import type { Race } from '@racebeacon/domain/entities';
import { api } from '../../lib/api-client';

export const legalApi = {
  /** The public races with their privacy and retention settings, for the privacy policy. */
  races: () => api.get<Race[]>('/open/races', { background: true }),
};
