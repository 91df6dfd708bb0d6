import { and, asc, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { alertLog, alerts, devices, races, runners } from '../db/schema';

/** Race HQ alerts and their log: the SQL. Every function accepts a transaction. */

export type AlertRow = typeof alerts.$inferSelect;
export type AlertState = 'open' | 'acknowledged' | 'resolved';

/** An alert with the names HQ shows beside it. */
export type AlertView = AlertRow & {
  bibNumber: string | null;
  firstName: string | null;
  lastName: string | null;
  deviceName: string | null;
};

function selectViews(db: DbOrTx) {
  return db
    .select({
      alert: alerts,
      bibNumber: runners.bibNumber,
      firstName: runners.firstName,
      lastName: runners.lastName,
      deviceName: devices.name,
    })
    .from(alerts)
    .leftJoin(runners, eq(runners.id, alerts.runnerId))
    .leftJoin(devices, eq(devices.id, alerts.deviceId))
    .$dynamic();
}

type Joined = Awaited<ReturnType<typeof selectViews>>[number];
const flatten = (r: Joined): AlertView => ({
  ...r.alert,
  bibNumber: r.bibNumber,
  firstName: r.firstName,
  lastName: r.lastName,
  deviceName: r.deviceName,
});

/**
 * Alerts, newest first: of one race (`raceId`), or of every race and of devices holding none (`raceId` undefined).
 * `states`: only those states.
 */
export async function listAlerts(
  db: DbOrTx,
  opts: { raceId?: number; states?: AlertState[] },
): Promise<AlertView[]> {
  const where: SQL[] = [];
  if (opts.raceId !== undefined) where.push(eq(alerts.raceId, opts.raceId));
  if (opts.states) where.push(inArray(alerts.state, opts.states));
  const rows = await selectViews(db)
    .where(and(...where))
    .orderBy(desc(alerts.raisedAt), desc(alerts.id));
  return rows.map(flatten);
}

export async function findAlertView(db: DbOrTx, id: number): Promise<AlertView | undefined> {
  const [r] = await selectViews(db).where(eq(alerts.id, id));
  return r ? flatten(r) : undefined;
}

/** The alert, its row locked until the transaction ends (a change of state reads then writes it). */
export async function findAlertForUpdate(db: DbOrTx, id: number): Promise<AlertRow | undefined> {
  const [row] = await db.select().from(alerts).where(eq(alerts.id, id)).for('update');
  return row;
}

export interface NewAlert {
  raceId: number | null;
  runnerId: number | null;
  deviceId: number | null;
  kind: string;
  at: Date;
  lat: number | null;
  lon: number | null;
  message: string;
  /** The message as a key and its parameters (`alertMessage` made both); null: the message alone. */
  messageKey: string | null;
  messageParams: Record<string, number | string> | null;
}

/**
 * Inserts an open alert unless one of its runner (or, without a runner, its device) and kind is already open or
 * acknowledged; the partial unique indexes decide, so two processes racing cannot both insert. Returns the new
 * row, or undefined when one existed.
 */
export async function insertAlertIfNone(db: DbOrTx, a: NewAlert): Promise<AlertRow | undefined> {
  const target =
    a.runnerId !== null
      ? sql`(runner_id, kind) WHERE state <> 'resolved' AND runner_id IS NOT NULL`
      : sql`(device_id, kind) WHERE state <> 'resolved' AND runner_id IS NULL`;
  const res = (await db.execute(sql`
    INSERT INTO alerts (race_id, runner_id, device_id, kind, state, raised_at, last_seen_at, lat, lon, message,
                        message_key, message_params)
    VALUES (${a.raceId}, ${a.runnerId}, ${a.deviceId}, ${a.kind}, 'open', ${a.at.toISOString()}::timestamptz,
            ${a.at.toISOString()}::timestamptz, ${a.lat}, ${a.lon}, ${a.message}, ${a.messageKey},
            ${a.messageParams === null ? null : JSON.stringify(a.messageParams)}::jsonb)
    ON CONFLICT ${target} DO NOTHING
    RETURNING id`)) as unknown as { rows: { id: number }[] };
  const id = res.rows[0]?.id;
  if (id === undefined) return undefined;
  const [row] = await db
    .select()
    .from(alerts)
    .where(eq(alerts.id, Number(id)));
  return row;
}

/** The unresolved alert of a runner (or of a device without a runner) and kind, if any. */
export async function findActiveAlert(
  db: DbOrTx,
  subject: { runnerId: number | null; deviceId: number | null },
  kind: string,
): Promise<AlertRow | undefined> {
  const who =
    subject.runnerId !== null
      ? eq(alerts.runnerId, subject.runnerId)
      : and(isNull(alerts.runnerId), eq(alerts.deviceId, subject.deviceId ?? -1));
  const [row] = await db
    .select()
    .from(alerts)
    .where(and(who, eq(alerts.kind, kind), ne(alerts.state, 'resolved')));
  return row;
}

/** Unresolved alerts of a race's runners (what the sweep compares the conditions with). */
export async function listActiveRaceAlerts(db: DbOrTx, raceId: number): Promise<AlertRow[]> {
  return db
    .select()
    .from(alerts)
    .where(and(eq(alerts.raceId, raceId), ne(alerts.state, 'resolved')));
}

/** A race's unresolved alerts, and its resolved ones of `kinds` (kinds raised once per runner: cutoff-risk). */
export async function listSweepRefs(db: DbOrTx, raceId: number, onceKinds: string[]): Promise<AlertRow[]> {
  return db
    .select()
    .from(alerts)
    .where(and(eq(alerts.raceId, raceId), or(ne(alerts.state, 'resolved'), inArray(alerts.kind, onceKinds))));
}

/**
 * The condition still holds (or the device repeated it): newer LastSeenAt, position and message. A new message
 * replaces the key and parameters too (null when not given: they would no longer say the message).
 */
export async function touchAlert(
  db: DbOrTx,
  id: number,
  v: {
    at: Date;
    lat: number | null;
    lon: number | null;
    message?: string;
    messageKey?: string | null;
    messageParams?: Record<string, number | string> | null;
  },
): Promise<boolean> {
  const rows = await db
    .update(alerts)
    .set({
      lastSeenAt: sql`GREATEST(${alerts.lastSeenAt}, ${v.at.toISOString()}::timestamptz)`,
      ...(v.lat !== null && v.lon !== null ? { lat: v.lat, lon: v.lon } : {}),
      ...(v.message !== undefined
        ? { message: v.message, messageKey: v.messageKey ?? null, messageParams: v.messageParams ?? null }
        : {}),
    })
    .where(and(eq(alerts.id, id), ne(alerts.state, 'resolved')))
    .returning({ id: alerts.id });
  return rows.length > 0;
}

export async function acknowledgeAlert(
  db: DbOrTx,
  id: number,
  v: { by: string; at: Date; note: string | null },
): Promise<void> {
  await db
    .update(alerts)
    .set({
      state: 'acknowledged',
      acknowledgedBy: v.by,
      acknowledgedAt: v.at,
      ...(v.note !== null ? { note: v.note } : {}),
    })
    .where(eq(alerts.id, id));
}

/** Resolves an unresolved alert; false when it already was (another process resolved it first). */
export async function resolveAlert(
  db: DbOrTx,
  id: number,
  v: { by: string | null; at: Date; note: string | null },
): Promise<boolean> {
  const rows = await db
    .update(alerts)
    .set({
      state: 'resolved',
      resolvedBy: v.by,
      resolvedAt: v.at,
      ...(v.note !== null ? { note: v.note } : {}),
    })
    .where(and(eq(alerts.id, id), ne(alerts.state, 'resolved')))
    .returning({ id: alerts.id });
  return rows.length > 0;
}

export async function insertLog(
  db: DbOrTx,
  v: { alertId: number; state: AlertState; at: Date; by: string | null; note: string | null },
): Promise<void> {
  await db.insert(alertLog).values(v);
}

/** Every change of state of a race's alerts, oldest first. */
export async function listRaceLog(db: DbOrTx, raceId: number) {
  return db
    .select({
      alertId: alertLog.alertId,
      state: alertLog.state,
      at: alertLog.at,
      by: alertLog.by,
      note: alertLog.note,
    })
    .from(alertLog)
    .innerJoin(alerts, eq(alerts.id, alertLog.alertId))
    .where(eq(alerts.raceId, raceId))
    .orderBy(asc(alertLog.at), asc(alertLog.id));
}

export async function findRaceSettings(
  db: DbOrTx,
  raceId: number,
): Promise<{ directorId: string; alertSettings: Record<string, unknown> | null } | undefined> {
  const [row] = await db
    .select({ directorId: races.directorId, alertSettings: races.alertSettings })
    .from(races)
    .where(eq(races.id, raceId));
  return row;
}

export async function saveRaceSettings(
  db: DbOrTx,
  raceId: number,
  settings: Record<string, unknown>,
): Promise<void> {
  await db.update(races).set({ alertSettings: settings }).where(eq(races.id, raceId));
}

/** Races whose clock runs now: started and not ended (the sweep's races). */
export async function listRunningRaceIds(db: DbOrTx): Promise<number[]> {
  const rows = await db
    .select({ id: races.id })
    .from(races)
    .where(and(sql`${races.clockStartedAt} IS NOT NULL`, isNull(races.clockStoppedAt)))
    .orderBy(asc(races.id));
  return rows.map((r) => r.id);
}
