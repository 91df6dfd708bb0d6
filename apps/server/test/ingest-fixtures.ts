import { randomBytes } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { deviceAssignments, devices, positions, races, runners } from '../src/db/schema';
import type { LiveEvent } from '../src/events/bus';

/** Test data written straight to the database (ingestion is under test, not the admin API). */

export async function addRace(app: FastifyInstance, opts: { startedAt?: Date; live?: boolean } = {}) {
  const [r] = await app.db
    .insert(races)
    .values({
      name: `Race ${randomBytes(3).toString('hex')}`,
      directorId: 'director-1',
      approved: true,
      hasStarted: opts.live ?? !!opts.startedAt,
      startTime: opts.startedAt ?? null,
      clockStartedAt: opts.startedAt ?? null,
    })
    .returning();
  return r.id;
}

export async function addRunner(app: FastifyInstance, raceId: number, firstName = 'Ada') {
  const [r] = await app.db.insert(runners).values({ raceId, firstName, lastName: 'Runner' }).returning();
  return r.id;
}

export async function addDevice(
  app: FastifyInstance,
  opts: { source?: string; hardwareId?: string | null; name?: string } = {},
) {
  const trackingKey = randomBytes(24).toString('base64url');
  const [d] = await app.db
    .insert(devices)
    .values({
      name: opts.name ?? 'Tracker',
      source: opts.source ?? 'osmand',
      hardwareId: opts.hardwareId ?? null,
      trackingKey,
    })
    .returning();
  return { id: d.id, trackingKey };
}

/** What H1's assign endpoint records: the device row and a history row (closing the previous holder's). */
export async function assign(
  app: FastifyInstance,
  deviceId: number,
  raceId: number,
  runnerId: number,
  at: Date,
) {
  await app.db
    .update(deviceAssignments)
    .set({ unassignedAt: at })
    .where(sql`${deviceAssignments.deviceId} = ${deviceId} AND ${deviceAssignments.unassignedAt} IS NULL`);
  await app.db.update(devices).set({ assignedRunnerId: null }).where(eq(devices.assignedRunnerId, runnerId));
  await app.db.update(devices).set({ raceId, assignedRunnerId: runnerId }).where(eq(devices.id, deviceId));
  await app.db.insert(deviceAssignments).values({ deviceId, raceId, runnerId, assignedAt: at });
}

export async function positionsOf(app: FastifyInstance, deviceId: number) {
  return app.db
    .select()
    .from(positions)
    .where(eq(positions.deviceId, deviceId))
    .orderBy(asc(positions.fixTime));
}

/**
 * The device's row, once this process's pending newest-fix columns are written (they follow an acknowledged fix
 * within a second: ingest/device-state.ts).
 */
export async function deviceRow(app: FastifyInstance, deviceId: number) {
  await app.ingest.flushDeviceState();
  const [d] = await app.db.select().from(devices).where(eq(devices.id, deviceId));
  return d;
}

export async function countPositions(app: FastifyInstance): Promise<number> {
  const [r] = await app.db.select({ n: sql<number>`count(*)::int` }).from(positions);
  return Number(r.n);
}

export function collectEvents(app: FastifyInstance): LiveEvent[] {
  const seen: LiveEvent[] = [];
  app.events.subscribe((e) => seen.push(e));
  return seen;
}

export async function waitFor<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Epoch seconds `minutesAgo` minutes before now, rounded to the second (OsmAnd timestamps are seconds). */
export const secondsAgo = (s: number) => Math.floor(Date.now() / 1000) - s;
