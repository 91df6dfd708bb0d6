import { prepareCourse } from '@racebeacon/domain';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { checkpoints, courses, races } from '../db/schema';

export type CheckpointRow = typeof checkpoints.$inferSelect;
export type CheckpointKind = 'start' | 'waypoint' | 'finish';

/** A checkpoint as derived from the course, before it is stored. */
export interface CheckpointPlan {
  kind: CheckpointKind;
  name: string;
  distanceM: number;
  lat: number;
  lon: number;
}

/** What the checkpoints are made from: the course's ends, its named waypoints (distance of the first pass) and length. */
export interface CourseOutline {
  lengthM: number;
  first: [number, number, number | null] | null;
  last: [number, number, number | null] | null;
  waypoints: { name: string; lat: number; lon: number; distanceM?: number | null; passesM?: number[] }[];
}

/** Waypoints this close (m along the course) to the start or finish are that start or finish, not extra checkpoints. */
const END_MERGE_M = 50;

/**
 * The checkpoints of a course: start, the named waypoints that lie on the course (by distance; off-course ones have
 * no distance and are left out) — one per pass when the course passes a waypoint again (laps, out-and-back: "Aid",
 * "Aid (2)", …) — and finish. Pure.
 */
export function planCheckpoints(c: CourseOutline): CheckpointPlan[] {
  if (!c.first || !c.last) return [];
  const plan: CheckpointPlan[] = [
    { kind: 'start', name: 'Start', distanceM: 0, lat: c.first[1], lon: c.first[0] },
  ];
  const onCourse: CheckpointPlan[] = [];
  for (const w of c.waypoints) {
    if (typeof w.distanceM !== 'number' || !Number.isFinite(w.distanceM)) continue;
    const passes = w.passesM && w.passesM.length > 1 ? w.passesM : [w.distanceM];
    const base = w.name.trim() || `Waypoint at ${(w.distanceM / 1000).toFixed(1)} km`;
    passes.forEach((d, k) => {
      if (!(d > END_MERGE_M && d < c.lengthM - END_MERGE_M)) return;
      const name = k === 0 ? base : `${base} (${k + 1})`;
      onCourse.push({ kind: 'waypoint', name, distanceM: d, lat: w.lat, lon: w.lon });
    });
  }
  onCourse.sort((a, b) => a.distanceM - b.distanceM);
  plan.push(...onCourse);
  plan.push({ kind: 'finish', name: 'Finish', distanceM: c.lengthM, lat: c.last[1], lon: c.last[0] });
  return plan;
}

/** The race's course outline read straight from the stored geometry (no large JSON parse), or null: no course. */
export async function findCourseOutline(db: DbOrTx, raceId: number): Promise<CourseOutline | null> {
  const [row] = await db
    .select({
      lengthM: courses.lengthM,
      first: sql<CourseOutline['first']>`${courses.geometry}->'points'->0`,
      last: sql<CourseOutline['last']>`${courses.geometry}->'points'->-1`,
      waypoints: sql<CourseOutline['waypoints'] | null>`${courses.geometry}->'waypoints'`,
    })
    .from(courses)
    .where(eq(courses.raceId, raceId));
  if (!row) return null;
  return { lengthM: row.lengthM, first: row.first, last: row.last, waypoints: row.waypoints ?? [] };
}

/**
 * Waypoints stored without a distance (a course written before uploads measured them, e.g. the demo's) get the
 * distance of their first pass here, as an upload gives it (null when off the course). Reads the whole geometry.
 */
async function measureWaypoints(db: DbOrTx, raceId: number, outline: CourseOutline): Promise<CourseOutline> {
  if (outline.waypoints.every((w) => w.distanceM !== undefined)) return outline;
  const [row] = await db
    .select({ geometry: courses.geometry })
    .from(courses)
    .where(eq(courses.raceId, raceId));
  if (!row) return outline;
  let prepared;
  try {
    prepared = prepareCourse({ points: row.geometry.points, waypoints: outline.waypoints });
  } catch {
    return outline; // a degenerate course: only the ends
  }
  const passes = new Map<string, number[]>();
  for (const p of prepared.waypoints) {
    const key = `${p.name}\u0001${p.lat}\u0001${p.lon}`;
    const list = passes.get(key) ?? [];
    list.push(p.distanceM);
    passes.set(key, list);
  }
  return {
    ...outline,
    waypoints: outline.waypoints.map((w) => {
      if (w.distanceM !== undefined) return w;
      const all = passes.get(`${w.name}\u0001${w.lat}\u0001${w.lon}`);
      return { ...w, distanceM: all ? all[0] : null, passesM: all };
    }),
  };
}

async function selectCheckpoints(db: DbOrTx, raceId: number): Promise<CheckpointRow[]> {
  return db
    .select()
    .from(checkpoints)
    .where(eq(checkpoints.raceId, raceId))
    .orderBy(asc(checkpoints.seq), asc(checkpoints.id));
}

/**
 * Makes the race's checkpoints match its course (call inside the transaction that changed the course): a
 * checkpoint of the same kind and name keeps its id (so its check-in links survive) and its cutoff; the others are
 * inserted, and old ones no longer on the course deleted. No course: no checkpoints.
 */
export async function rebuildCheckpoints(db: DbOrTx, raceId: number): Promise<CheckpointRow[]> {
  const outline = await findCourseOutline(db, raceId);
  const plan = outline ? planCheckpoints(await measureWaypoints(db, raceId, outline)) : [];
  const old = await selectCheckpoints(db, raceId);
  const unused = new Map<string, CheckpointRow[]>();
  for (const row of old) {
    const key = `${row.kind}\u0001${row.name}`;
    const list = unused.get(key) ?? [];
    list.push(row);
    unused.set(key, list);
  }
  const keep = new Set<number>();
  for (let seq = 0; seq < plan.length; seq++) {
    const p = plan[seq];
    const match = unused.get(`${p.kind}\u0001${p.name}`)?.shift();
    const values = { seq, kind: p.kind, name: p.name, distanceM: p.distanceM, lat: p.lat, lon: p.lon };
    if (match) {
      keep.add(match.id);
      await db.update(checkpoints).set(values).where(eq(checkpoints.id, match.id));
    } else {
      await db.insert(checkpoints).values({ ...values, raceId });
    }
  }
  const gone = old.filter((r) => !keep.has(r.id)).map((r) => r.id);
  if (gone.length > 0) await db.delete(checkpoints).where(inArray(checkpoints.id, gone));
  return selectCheckpoints(db, raceId);
}

/**
 * The race's checkpoints ordered by seq (start first, finish last). A race whose course was uploaded before
 * checkpoints existed gets them built here, on first read (the race row locked, so two readers build once).
 */
export async function listCheckpoints(db: DbOrTx, raceId: number): Promise<CheckpointRow[]> {
  const rows = await selectCheckpoints(db, raceId);
  if (rows.length > 0) return rows;
  return db.transaction(async (tx) => {
    const [race] = await tx.select({ id: races.id }).from(races).where(eq(races.id, raceId)).for('update');
    if (!race) return [];
    const again = await selectCheckpoints(tx, raceId);
    if (again.length > 0) return again;
    const outline = await findCourseOutline(tx, raceId);
    return outline ? rebuildCheckpoints(tx, raceId) : [];
  });
}

export async function findCheckpoint(
  db: DbOrTx,
  raceId: number,
  checkpointId: number,
): Promise<CheckpointRow | undefined> {
  const [row] = await db
    .select()
    .from(checkpoints)
    .where(and(eq(checkpoints.raceId, raceId), eq(checkpoints.id, checkpointId)));
  return row;
}

export async function setCutoff(
  db: DbOrTx,
  raceId: number,
  checkpointId: number,
  cutoffTime: Date | null,
): Promise<CheckpointRow | undefined> {
  const [row] = await db
    .update(checkpoints)
    .set({ cutoffTime })
    .where(and(eq(checkpoints.raceId, raceId), eq(checkpoints.id, checkpointId)))
    .returning();
  return row;
}
