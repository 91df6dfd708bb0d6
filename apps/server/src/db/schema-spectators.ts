import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { races } from './schema';

/** Spectators: Web Push subscriptions of followers (no account: one per browser endpoint). */

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    /** The followed runners' ids. */
    runnerIds: jsonb('runner_ids').$type<number[]>().notNull(),
    /** Which notifications: checkpoint, finished, dnf, no-news. */
    kinds: jsonb('kinds').$type<string[]>().notNull(),
    /** Language of the texts sent (e.g. 'en', 'fr'). */
    locale: text('locale').notNull().default('en'),
    /** What was already sent, so nothing is sent twice: { [runnerId]: { checkpointSeq, finished, dnf, noNewsAt } }. */
    sentState: jsonb('sent_state').$type<Record<string, unknown>>(),
    createdAt: tz('created_at').notNull().defaultNow(),
    lastSentAt: tz('last_sent_at'),
  },
  (t) => [
    uniqueIndex('push_subscriptions_endpoint_race_uq').on(t.endpoint, t.raceId),
    index('push_subscriptions_race_idx').on(t.raceId),
  ],
);
