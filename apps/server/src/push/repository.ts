import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { pushSubscriptions, races, runners } from '../db/schema';

/** What was already sent to one subscription about one runner: each passing, finish, DNF and silence once. */
export interface RunnerSent {
  /** Followed since (epoch ms): what happened before is not news to this browser. */
  since: number;
  /** Checkpoint ids whose passing was sent. */
  cps: number[];
  finished?: boolean;
  dnf?: boolean;
  /** The last ping time (ISO) whose silence was sent. */
  silentPing?: string;
}
export type SentState = Record<string, RunnerSent>;

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;

export interface NewPushSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  raceId: number;
  runnerIds: number[];
  kinds: string[];
  locale: string;
}

/** The subscription of this endpoint in this race, locked until the transaction ends. */
export async function findSubscriptionForUpdate(
  db: DbOrTx,
  endpoint: string,
  raceId: number,
): Promise<PushSubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.raceId, raceId)))
    .for('update');
  return row;
}

/** Inserts, or (a concurrent insert of the same endpoint and race won) replaces what it follows. */
export async function upsertSubscription(
  db: DbOrTx,
  values: NewPushSubscription & { sentState: SentState },
): Promise<void> {
  await db
    .insert(pushSubscriptions)
    .values(values)
    .onConflictDoUpdate({
      target: [pushSubscriptions.endpoint, pushSubscriptions.raceId],
      set: {
        p256dh: values.p256dh,
        auth: values.auth,
        runnerIds: values.runnerIds,
        kinds: values.kinds,
        locale: values.locale,
        sentState: values.sentState,
      },
    });
}

/** Deletes the endpoint's subscriptions (of one race, or all); returns how many. */
export async function deleteSubscriptionsByEndpoint(
  db: DbOrTx,
  endpoint: string,
  raceId?: number,
): Promise<number> {
  const rows = await db
    .delete(pushSubscriptions)
    .where(
      raceId === undefined
        ? eq(pushSubscriptions.endpoint, endpoint)
        : and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.raceId, raceId)),
    )
    .returning({ id: pushSubscriptions.id });
  return rows.length;
}

export async function deleteSubscription(db: DbOrTx, id: number): Promise<void> {
  await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id));
}

/** Deletes every subscription of a race; returns how many. */
export async function deleteRaceSubscriptions(db: DbOrTx, raceId: number): Promise<number> {
  const rows = await db
    .delete(pushSubscriptions)
    .where(eq(pushSubscriptions.raceId, raceId))
    .returning({ id: pushSubscriptions.id });
  return rows.length;
}

/** Races somebody follows with notifications. */
export async function listSubscribedRaceIds(db: DbOrTx): Promise<number[]> {
  const rows = await db.selectDistinct({ raceId: pushSubscriptions.raceId }).from(pushSubscriptions);
  return rows.map((r) => r.raceId);
}

export async function listRaceSubscriptions(db: DbOrTx, raceId: number): Promise<PushSubscriptionRow[]> {
  return db
    .select()
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.raceId, raceId))
    .orderBy(pushSubscriptions.id);
}

/**
 * Records what was sent, unless the browser changed the runners it follows meanwhile (its new state, with the
 * `since` of the runners it added, is kept; the next pass starts from it).
 */
export async function recordSent(
  db: DbOrTx,
  id: number,
  runnerIds: number[],
  sentState: SentState,
  at: Date,
): Promise<void> {
  await db
    .update(pushSubscriptions)
    .set({ sentState: sql`${JSON.stringify(sentState)}::jsonb`, lastSentAt: at })
    .where(
      and(
        eq(pushSubscriptions.id, id),
        sql`${pushSubscriptions.runnerIds} = ${JSON.stringify(runnerIds)}::jsonb`,
      ),
    );
}

/** The race's public delay, or undefined when the race does not exist or is not public. */
export async function findPublicRace(
  db: DbOrTx,
  raceId: number,
): Promise<{ publicDelayMin: number; endedAt: Date | null } | undefined> {
  const [row] = await db
    .select({ approved: races.approved, publicDelayMin: races.publicDelayMin, endedAt: races.clockStoppedAt })
    .from(races)
    .where(eq(races.id, raceId));
  return row?.approved ? { publicDelayMin: row.publicDelayMin, endedAt: row.endedAt } : undefined;
}

/** The runners of the race among `ids`, with the status set by people and when. */
export async function findRaceRunners(db: DbOrTx, raceId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: runners.id, status: runners.status, statusAt: runners.statusAt })
    .from(runners)
    .where(and(eq(runners.raceId, raceId), inArray(runners.id, ids)));
}
