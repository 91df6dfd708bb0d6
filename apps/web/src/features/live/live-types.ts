import type { CourseTrack } from '@racebeacon/domain';

export type {
  CourseTrack,
  LiveSnapshot as SnapshotMessage,
  LiveUpdate as UpdateMessage,
  TrailPoint,
} from '@racebeacon/domain';

/** Plain fetch (never the API client's spinner): live data refreshes in the background. */
export async function fetchCourseTrack(raceId: number, signal?: AbortSignal): Promise<CourseTrack> {
  const res = await fetch(`/api/open/races/${raceId}/course-track`, {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (!res.ok) throw new Error(`course-track: HTTP ${res.status}`);
  return (await res.json()) as CourseTrack;
}
