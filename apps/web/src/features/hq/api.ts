import type { Runner, RunnerStatusLogEntry } from '@racebeacon/domain/entities';
import type { CourseTrack, LeaderboardRow, RunnerPositions } from '@racebeacon/domain/live';
import { api, apiStream, type StreamOptions } from '../../lib/api-client';
import type { Alert, AlertLogEntry, AlertSettings, AlertState } from './alert-types';

/** The race HQ's calls: the director's alert API (owner or admin) and the public live data for the map. */
/** The runner as the director's runner read returns it: with the HQ fields (who to call). */
export type DirectorRunner = Runner & { EmergencyContact: string | null; Phone: string | null };

export const hqApi = {
  /** The race's runners with Phone and EmergencyContact (director or admin), for the alert cards. */
  runners: (raceId: number, signal?: AbortSignal) =>
    api.get<DirectorRunner[]>(`/director/runners/${raceId}`, { background: true, signal }),
  alerts: (raceId: number, state?: AlertState, signal?: AbortSignal) =>
    api.get<Alert[]>(`/director/races/${raceId}/alerts${state ? `?state=${state}` : ''}`, {
      background: true,
      signal,
    }),
  log: (raceId: number, signal?: AbortSignal) =>
    api.get<AlertLogEntry[]>(`/director/races/${raceId}/alerts/log`, { background: true, signal }),
  /** Every DNS/DNF/DSQ set or cleared, who and why (shown in the HQ log). */
  statusLog: (raceId: number, signal?: AbortSignal) =>
    api.get<RunnerStatusLogEntry[]>(`/director/runners/${raceId}/status-log`, { background: true, signal }),
  acknowledge: (alertId: number, note: string) =>
    api.post<Alert>(`/director/alerts/${alertId}/acknowledge`, { Note: note.trim() }),
  resolve: (alertId: number, note: string) =>
    api.post<Alert>(`/director/alerts/${alertId}/resolve`, { Note: note.trim() }),
  settings: (raceId: number) => api.get<AlertSettings>(`/director/races/${raceId}/alert-settings`),
  saveSettings: (raceId: number, body: AlertSettings) =>
    api.put<AlertSettings>(`/director/races/${raceId}/alert-settings`, body),
  /** The authenticated alert stream: `alerts` (open and acknowledged) on connect, then one `alert` per change. */
  stream: (raceId: number, opts: StreamOptions) => apiStream(`/director/races/${raceId}/alerts/stream`, opts),

  // Public live data for the HQ map; background calls, no spinner. A race without live data answers 404: no map data.
  courseTrack: (raceId: number, signal?: AbortSignal) =>
    api.get<CourseTrack | null>(`/open/races/${raceId}/course-track`, {
      background: true,
      signal,
      notFoundAsNull: true,
    }),
  positions: (raceId: number, signal?: AbortSignal) =>
    api.get<RunnerPositions[] | null>(`/open/races/${raceId}/positions`, {
      background: true,
      signal,
      notFoundAsNull: true,
    }),
  leaderboard: (raceId: number, signal?: AbortSignal) =>
    api.get<LeaderboardRow[] | null>(`/open/races/${raceId}/leaderboard`, {
      background: true,
      signal,
      notFoundAsNull: true,
    }),
};
