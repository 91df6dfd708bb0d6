import type { LeaderboardRow } from '@racebeacon/domain';

/** Wire shapes of the live endpoints (apps/server/src/live). */

/** [fix time ms, lat, lon] */
export type TrailPoint = [number, number, number];

export interface CourseTrack {
  HasCourse: boolean;
  LengthM: number;
  Line: [number, number][];
  KmMarkers: { Km: number; Latitude: number; Longitude: number }[];
  Waypoints: { Name: string; Latitude: number; Longitude: number; DistanceM: number }[];
  HasElevation: boolean;
  Profile: [number, number][];
}

export interface SnapshotMessage {
  Seq: number;
  At: string;
  RaceId: number;
  ClockStartedAt: string | null;
  ClockStoppedAt: string | null;
  HasCourse: boolean;
  Rows: LeaderboardRow[];
  Trails: { RunnerId: number; Trail: TrailPoint[] }[];
}

export interface UpdateMessage {
  Seq: number;
  At: string;
  Rows: LeaderboardRow[];
  /** [runnerId, rank]: runners whose rank alone changed. */
  Ranks: [number, number | null][];
  /** [runnerId, fix time ms, lat, lon] */
  Fixes: [number, number, number, number][];
}

/** Plain fetch (never the API client's spinner): live data refreshes in the background. */
export async function fetchCourseTrack(raceId: number, signal?: AbortSignal): Promise<CourseTrack> {
  const res = await fetch(`/api/open/races/${raceId}/course-track`, {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (!res.ok) throw new Error(`course-track: HTTP ${res.status}`);
  return (await res.json()) as CourseTrack;
}
