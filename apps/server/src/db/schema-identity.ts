import { sql } from 'drizzle-orm';
import {
  boolean,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Accounts of the embedded identity provider (unused when an external OIDC_ISSUER is configured). */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    groups: jsonb('groups')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    isDemo: boolean('is_demo').notNull().default(false),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_email_uq').on(sql`lower(${t.email})`)],
);

/** Storage of the embedded OIDC provider (sessions, grants, codes, refresh tokens…), see oidc-provider's adapter API. */
export const oidcPayloads = pgTable(
  'oidc_payloads',
  {
    id: text('id').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    expiresAt: tz('expires_at'),
    consumedAt: tz('consumed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.type] }),
    index('oidc_payloads_grant_idx').on(t.grantId),
    index('oidc_payloads_uid_idx').on(t.uid),
    index('oidc_payloads_user_code_idx').on(t.userCode),
  ],
);

/** Small key/value store for server state that must survive restarts (e.g. the embedded provider's signing keys). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
});

/**
 * The embedded sign-in page's attempt limits (identity/sign-in-limits.ts): one token bucket per key ("a:" address,
 * "p:" email and address, "e:" email, "s:" strikes of an address on an email), shared by every process on the
 * database and kept across restarts. `expiresAt`: when the bucket is full again, so the row can go.
 */
export const signInBuckets = pgTable(
  'sign_in_buckets',
  {
    key: text('key').primaryKey(),
    tokens: doublePrecision('tokens').notNull(),
    at: tz('at').notNull(),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [index('sign_in_buckets_expires_idx').on(t.expiresAt)],
);
