import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { users } from '../db/schema';
import { hashPassword, verifyPassword } from './passwords';

export type Account = typeof users.$inferSelect;
export type DemoWho = 'admin' | 'director1' | 'director2';

export const DEMO_PASSWORD = 'demo';

export const DEMO_ACCOUNTS: Record<DemoWho, { email: string; name: string; admin: boolean }> = {
  admin: { email: 'admin@racebeacon.example', name: 'Avery Admin', admin: true },
  director1: { email: 'director1@racebeacon.example', name: 'Dana Director', admin: false },
  director2: { email: 'director2@racebeacon.example', name: 'Drew Director', admin: false },
};

export class DuplicateEmailError extends Error {
  constructor() {
    super('An account with this email already exists. Sign in instead.');
  }
}

export interface AccountStoreOptions {
  /** ADMIN_EMAILS: accounts with these emails are in the admin group (how a real install gets its first admin). */
  adminEmails?: string[];
  adminGroupId?: string;
}

/** Accounts of the embedded identity provider (table users). Emails are unique case-insensitively. */
export function createAccountStore(db: Db, opts: AccountStoreOptions = {}) {
  const adminEmails = new Set((opts.adminEmails ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean));

  /** Stored groups, plus the admin group for an ADMIN_EMAILS address (decided at every token, so it can be revoked). */
  function withConfiguredGroups(account: Account): Account {
    if (!opts.adminGroupId || !adminEmails.has(account.email.toLowerCase())) return account;
    if (account.groups.includes(opts.adminGroupId)) return account;
    return { ...account, groups: [...account.groups, opts.adminGroupId] };
  }

  async function findById(id: string): Promise<Account | undefined> {
    const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
    return row && withConfiguredGroups(row);
  }

  async function findByEmail(email: string): Promise<Account | undefined> {
    const [row] = await db
      .select()
      .from(users)
      .where(sql`lower(${users.email}) = lower(${email.trim()})`)
      .limit(1);
    return row;
  }

  async function create(input: {
    email: string;
    name: string;
    password: string;
    groups?: string[];
    isDemo?: boolean;
  }): Promise<Account> {
    const passwordHash = await hashPassword(input.password);
    const rows = await db
      .insert(users)
      .values({
        id: randomUUID(),
        email: input.email.trim(),
        name: input.name.trim(),
        passwordHash,
        groups: input.groups ?? [],
        isDemo: input.isDemo ?? false,
      })
      .onConflictDoNothing()
      .returning();
    if (!rows[0]) throw new DuplicateEmailError();
    return rows[0];
  }

  /** The account for these credentials, or undefined (unknown email and wrong password look the same). */
  async function authenticate(email: string, password: string): Promise<Account | undefined> {
    const account = await findByEmail(email);
    if (!account) {
      // Spend the same time as a real check so response timing does not reveal which emails exist.
      await verifyPassword(password, DUMMY_HASH);
      return undefined;
    }
    return (await verifyPassword(password, account.passwordHash)) ? account : undefined;
  }

  /** A fresh install (no accounts at all) gets the demo administrator and two demo directors. */
  async function seedDemoAccounts(adminGroupId: string): Promise<void> {
    const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(users);
    if (count > 0) return;
    for (const demo of Object.values(DEMO_ACCOUNTS)) {
      try {
        await create({
          email: demo.email,
          name: demo.name,
          password: DEMO_PASSWORD,
          groups: demo.admin ? [adminGroupId] : [],
          isDemo: true,
        });
      } catch (err) {
        // Another server process on the same database seeded it first.
        if (!(err instanceof DuplicateEmailError)) throw err;
      }
    }
  }

  async function demoAccounts(): Promise<Account[]> {
    return db.select().from(users).where(eq(users.isDemo, true));
  }

  return { findById, findByEmail, create, authenticate, seedDemoAccounts, demoAccounts };
}

export type AccountStore = ReturnType<typeof createAccountStore>;

// A valid hash of a random password, used to equalise timing for unknown emails.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
