import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { courses } from '../db/schema';

export type CourseRow = typeof courses.$inferSelect;
export type NewCourse = Omit<typeof courses.$inferInsert, 'id' | 'createdAt'>;

export async function findCourseByRace(db: DbOrTx, raceId: number): Promise<CourseRow | undefined> {
  const [row] = await db.select().from(courses).where(eq(courses.raceId, raceId));
  return row;
}

/** One course per race: the old one (if any) is removed and the new one inserted; call inside a transaction. */
export async function replaceCourse(db: DbOrTx, values: NewCourse): Promise<CourseRow> {
  await db.delete(courses).where(eq(courses.raceId, values.raceId));
  const [row] = await db.insert(courses).values(values).returning();
  return row;
}

export async function deleteCourse(db: DbOrTx, raceId: number, courseId: number): Promise<boolean> {
  const rows = await db
    .delete(courses)
    .where(and(eq(courses.raceId, raceId), eq(courses.id, courseId)))
    .returning({ id: courses.id });
  return rows.length > 0;
}
