import { and, eq, getTableColumns, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { courses, type CourseGeometry } from '../db/schema';

export type CourseRow = typeof courses.$inferSelect;
/** geometry may be SQL (e.g. JSON text cast to jsonb, prepared off the main thread). */
export type NewCourse = Omit<typeof courses.$inferInsert, 'id' | 'createdAt' | 'geometry'> & {
  geometry: CourseGeometry | SQL;
};
/** A course row without its (large) points; what an upload answers with. */
export type CourseSummaryRow = Omit<CourseRow, 'geometry'> & { geometry: Pick<CourseGeometry, 'waypoints'> };

const { geometry: _geometry, ...summaryColumns } = getTableColumns(courses);

export async function findCourseByRace(db: DbOrTx, raceId: number): Promise<CourseRow | undefined> {
  const [row] = await db.select().from(courses).where(eq(courses.raceId, raceId));
  return row;
}

/**
 * One course per race: the old one (if any) is removed and the new one inserted; call inside a transaction.
 * Returns the new row without its geometry (the caller has it; reading a large one back costs a JSON parse).
 */
export async function replaceCourse(db: DbOrTx, values: NewCourse): Promise<Omit<CourseRow, 'geometry'>> {
  await db.delete(courses).where(eq(courses.raceId, values.raceId));
  const [row] = await db.insert(courses).values(values).returning(summaryColumns);
  return row;
}

export async function deleteCourse(db: DbOrTx, raceId: number, courseId: number): Promise<boolean> {
  const rows = await db
    .delete(courses)
    .where(and(eq(courses.raceId, raceId), eq(courses.id, courseId)))
    .returning({ id: courses.id });
  return rows.length > 0;
}
