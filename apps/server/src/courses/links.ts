import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DbOrTx } from '../db/client';
import { getOrCreateSetting } from '../db/settings';

/**
 * The links of a Course: its map page, GeoJSON and GPX.
 *
 * For an approved race they are public. For an unapproved race they carry a `key` (an HMAC of race and course id
 * with a server secret): the owner gets working links from the director endpoints, while the bare URL stays a 404
 * like everything else about an unapproved race. A replaced course gets a new id, so old keys stop working.
 */
export interface CourseLinks {
  MapUrl: string;
  GeoJsonUrl: string;
  GpxUrl: string;
}

/** The server's secret for link keys, created on first use and kept in the settings table. */
async function linkSecret(db: DbOrTx): Promise<Buffer> {
  const b64 = await getOrCreateSetting(db, 'course_link_secret', () => randomBytes(32).toString('base64url'));
  return Buffer.from(b64, 'base64url');
}

function linkKey(secret: Buffer, raceId: number, courseId: number): string {
  return createHmac('sha256', secret).update(`course:${raceId}:${courseId}`).digest('base64url').slice(0, 32);
}

/** Absolute links under `publicUrl`; keyed unless the race is approved. */
export async function courseLinks(
  db: DbOrTx,
  publicUrl: string,
  course: { id: number; raceId: number },
  approved: boolean,
): Promise<CourseLinks> {
  const query = approved ? '' : `?key=${linkKey(await linkSecret(db), course.raceId, course.id)}`;
  return {
    MapUrl: `${publicUrl}/courses/${course.raceId}/map${query}`,
    GeoJsonUrl: `${publicUrl}/api/open/course/${course.raceId}/course.geojson${query}`,
    GpxUrl: `${publicUrl}/api/open/course/${course.raceId}/course.gpx${query}`,
  };
}

/** Whether `key` is the link key of this course (compared in constant time). */
export async function isLinkKey(
  db: DbOrTx,
  course: { id: number; raceId: number },
  key: string | undefined,
): Promise<boolean> {
  const expected = Buffer.from(linkKey(await linkSecret(db), course.raceId, course.id));
  const given = Buffer.from(key ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
