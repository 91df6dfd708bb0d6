import type { LeaderboardRow } from './course/types';

/**
 * Wire shapes of the live race endpoints (`/api/open/races/{id}/…`), shared by the server that sends them and the
 * browser that reads them.
 */

/** [fix time in epoch ms, lat, lon]: compact, because there are many. */
export type TrailPoint = [number, number, number];

/** GET …/course-track: what the live map and elevation profile draw (a 20k-point GPX is thinned). */
export interface CourseTrack {
  HasCourse: boolean;
  LengthM: number;
  /** [lat, lon] for Leaflet. */
  Line: [number, number][];
  KmMarkers: { Km: number; Latitude: number; Longitude: number }[];
  Waypoints: { Name: string; Latitude: number; Longitude: number; DistanceM: number }[];
  HasElevation: boolean;
  /** [distance m, elevation m] samples. */
  Profile: [number, number][];
}

/** GET …/positions: one entry per runner. */
export interface RunnerPositions {
  RunnerId: number;
  Latest: TrailPoint | null;
  Trail: TrailPoint[];
}

/** SSE `snapshot`: the whole live state (sent on connect, and after the race changed). */
export interface LiveSnapshot {
  Seq: number;
  At: string;
  RaceId: number;
  ClockStartedAt: string | null;
  ClockStoppedAt: string | null;
  HasCourse: boolean;
  Rows: LeaderboardRow[];
  Trails: { RunnerId: number; Trail: TrailPoint[] }[];
}

/** SSE `update`: what changed since the previous message. */
export interface LiveUpdate {
  Seq: number;
  At: string;
  /** Whole rows of runners whose state changed. */
  Rows: LeaderboardRow[];
  /** [RunnerId, Rank]: runners whose rank alone changed. */
  Ranks: [number, number | null][];
  /** [RunnerId, fix time ms, lat, lon]: new fixes. */
  Fixes: [number, number, number, number][];
}
