import { GpxError, toGeoJson, toGpx, type Course, type CoursePoint } from '@racebeacon/domain';
import { sql } from 'drizzle-orm';
import { rebuildCheckpoints } from '../checkpoints/repository';
import type { Db } from '../db/client';
import { badRequest, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import * as racesRepo from '../races/repository';
import type { RaceService } from '../races/service';
import { analyseGpxFile } from './gpx-off-thread';
import { courseLinks, isLinkKey, type CourseLinks } from './links';
import * as repo from './repository';

const noCourse = (raceId: number) => notFound(`Race ${raceId} has no course yet.`);

function toCourse(row: repo.CourseSummaryRow, links: CourseLinks): Course {
  return {
    CourseId: row.id,
    RaceId: row.raceId,
    ...links,
    Name: row.name,
    LengthM: Math.round(row.lengthM * 10) / 10,
    ClimbM: Math.round(row.climbM * 10) / 10,
    DescentM: Math.round(row.descentM * 10) / 10,
    PointCount: row.pointCount,
    HasElevation: row.hasElevation,
    Waypoints: row.geometry.waypoints.map((w) => ({
      Name: w.name,
      Latitude: w.lat,
      Longitude: w.lon,
      DistanceM: w.distanceM ?? null,
    })),
  };
}

/**
 * Courses: GPX upload (one per race, a new upload replaces the old), the Course with its links (links.ts), and the
 * course behind a link. An upload or delete is announced to the race's live viewers.
 */
export class CourseService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly races: RaceService,
    /** The server's public base URL: the links in a Course are absolute. */
    private readonly publicUrl: string,
  ) {}

  private linksFor(course: { id: number; raceId: number }, approved: boolean): Promise<CourseLinks> {
    return courseLinks(this.db, this.publicUrl, course, approved);
  }

  /** The course of an approved race; null when none was uploaded yet (a normal state, not an error). */
  async getPublicCourse(raceId: number): Promise<Course | null> {
    await this.races.getApprovedRace(raceId);
    const row = await repo.findCourseByRace(this.db, raceId);
    return row ? toCourse(row, await this.linksFor(row, true)) : null;
  }

  /** The course of one of the director's races; null when none was uploaded yet. */
  async getDirectorCourse(directorId: string, raceId: number): Promise<Course | null> {
    const race = await this.races.getOwnedRace(directorId, raceId);
    const row = await repo.findCourseByRace(this.db, raceId);
    return row ? toCourse(row, await this.linksFor(row, race.approved)) : null;
  }

  /**
   * A race's course for the admin reviewing a request (any race, approved or not), or null when none was
   * uploaded. An unapproved race's links carry the key, so the admin can open the map before approving.
   */
  async getCourseForReview(raceId: number): Promise<Course | null> {
    const race = await racesRepo.findRace(this.db, raceId);
    if (!race) return null;
    const row = await repo.findCourseByRace(this.db, raceId);
    return row ? toCourse(row, await this.linksFor(row, race.approved)) : null;
  }

  /**
   * Parses first (nothing is written for a bad file; a large file in a worker thread, see gpx-off-thread.ts),
   * then replaces the race's course in one transaction. The points reach the database as JSON text made by the
   * parser.
   */
  async uploadCourse(
    directorId: string,
    raceId: number,
    file: { data: Buffer; fileName: string | null },
  ): Promise<Course> {
    const race = await this.races.getOwnedRace(directorId, raceId);
    let analysed;
    try {
      analysed = await analyseGpxFile(file.data);
    } catch (err) {
      if (err instanceof GpxError) throw badRequest(err.message, 'invalid_gpx');
      throw err;
    }
    const { stats } = analysed;
    const fileName = file.fileName ? file.fileName.slice(0, 255) : null;
    const name = analysed.name ?? (fileName ? fileName.replace(/\.gpx$/i, '') : null);
    const row = await this.db.transaction(async (tx) => {
      // The race may have been deleted meanwhile; lock it so the course never outlives it.
      if (!(await racesRepo.findRaceForUpdate(tx, raceId))) throw notFound(`Race ${raceId} was not found.`);
      const replaced = await repo.replaceCourse(tx, {
        raceId,
        name,
        fileName,
        geometry: sql`${analysed.geometryJson}::jsonb`,
        lengthM: stats.lengthM,
        climbM: stats.climbM,
        descentM: stats.descentM,
        pointCount: stats.pointCount,
        hasElevation: stats.hasElevation,
      });
      // Start, the waypoints on the course and finish; cutoffs kept by name.
      await rebuildCheckpoints(tx, raceId);
      return replaced;
    });
    await this.events.raceChanged(raceId);
    const course = { ...row, geometry: { waypoints: analysed.waypoints } };
    return toCourse(course, await this.linksFor(course, race.approved));
  }

  async deleteCourse(directorId: string, raceId: number, courseId: number): Promise<void> {
    await this.races.getOwnedRace(directorId, raceId);
    await this.db.transaction(async (tx) => {
      if (!(await repo.deleteCourse(tx, raceId, courseId))) {
        throw notFound(`Course ${courseId} was not found for race ${raceId}.`);
      }
      await rebuildCheckpoints(tx, raceId);
    });
    await this.events.raceChanged(raceId);
  }

  /** The course behind a map/download link: public for approved races, otherwise only with the right key. */
  async getCourseForLink(raceId: number, key: string | undefined): Promise<repo.CourseRow> {
    const race = await racesRepo.findRace(this.db, raceId);
    const row = race ? await repo.findCourseByRace(this.db, raceId) : undefined;
    if (!race || !row) throw noCourse(raceId);
    if (!race.approved && !(await isLinkKey(this.db, row, key))) throw noCourse(raceId);
    return row;
  }
}

export function courseGeoJson(row: repo.CourseRow) {
  return toGeoJson({
    name: row.name,
    points: row.geometry.points as CoursePoint[],
    waypoints: row.geometry.waypoints,
    properties: {
      raceId: row.raceId,
      courseId: row.id,
      lengthM: row.lengthM,
      climbM: row.climbM,
      descentM: row.descentM,
    },
  });
}

export function courseGpx(row: repo.CourseRow, productName: string): string {
  return toGpx({
    name: row.name,
    points: row.geometry.points as CoursePoint[],
    waypoints: row.geometry.waypoints,
    creator: productName,
  });
}
