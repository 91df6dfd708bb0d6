import {
  bigint,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { races, runners } from './schema';

/** Race operations: runner status history, checkpoints with cutoffs, aid-station check-in links and entries. */

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Every change of a runner's status (DNS/DNF/DSQ or cleared), with who and when. */
export const runnerStatusLog = pgTable(
  'runner_status_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    runnerId: integer('runner_id')
      .notNull()
      .references(() => runners.id, { onDelete: 'cascade' }),
    /** 'DNS' | 'DNF' | 'DSQ'; null: cleared. */
    status: text('status'),
    reason: text('reason'),
    at: tz('at').notNull(),
    by: text('by'),
    distanceM: doublePrecision('distance_m'),
  },
  (t) => [index('runner_status_log_race_idx').on(t.raceId, t.id)],
);

/**
 * A race's checkpoints: start, the course's named waypoints on the course, finish — with their distance along the
 * course and an optional cutoff. Rebuilt when the course changes (cutoffs kept by name).
 */
export const checkpoints = pgTable(
  'checkpoints',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    /** Order along the course (0 = start). */
    seq: integer('seq').notNull(),
    /** 'start' | 'waypoint' | 'finish' */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    distanceM: doublePrecision('distance_m').notNull(),
    lat: doublePrecision('lat').notNull(),
    lon: doublePrecision('lon').notNull(),
    cutoffTime: tz('cutoff_time'),
  },
  (t) => [index('checkpoints_race_idx').on(t.raceId, t.seq)],
);

/** A volunteer's link for one checkpoint: a secret token (stored hashed), revocable, no account needed. */
export const checkinLinks = pgTable(
  'checkin_links',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    checkpointId: integer('checkpoint_id')
      .notNull()
      .references(() => checkpoints.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    label: text('label'),
    createdBy: text('created_by'),
    createdAt: tz('created_at').notNull().defaultNow(),
    revokedAt: tz('revoked_at'),
  },
  (t) => [
    uniqueIndex('checkin_links_token_uq').on(t.tokenHash),
    index('checkin_links_race_idx').on(t.raceId),
  ],
);

/**
 * One aid-station entry (in, out, dnf) as sent by the volunteer's phone. EntryId is made on the phone: a repeat gets
 * the first answer (stored in `answer`). A check-in is a position fix at the checkpoint (source 'check-in').
 */
export const checkinEntries = pgTable(
  'checkin_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    entryId: text('entry_id').notNull(),
    linkId: integer('link_id').references(() => checkinLinks.id, { onDelete: 'set null' }),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    checkpointId: integer('checkpoint_id')
      .notNull()
      .references(() => checkpoints.id, { onDelete: 'cascade' }),
    runnerId: integer('runner_id').references(() => runners.id, { onDelete: 'cascade' }),
    bibNumber: text('bib_number').notNull(),
    /** 'in' | 'out' | 'dnf' */
    kind: text('kind').notNull(),
    time: tz('time').notNull(),
    receivedAt: tz('received_at').notNull().defaultNow(),
    /** The first answer given for this EntryId, returned again for a repeat. */
    answer: jsonb('answer').$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex('checkin_entries_entry_uq').on(t.raceId, t.entryId),
    index('checkin_entries_runner_idx').on(t.raceId, t.runnerId, t.time),
  ],
);
