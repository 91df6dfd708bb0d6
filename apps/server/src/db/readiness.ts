import { readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsFolder, type Database } from './client';

/** The newest migration this server was built with (`when` of the last journal entry, as Drizzle records it). */
export function expectedMigrationMillis(): number {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(0, ...journal.entries.map((e) => e.when));
}

export class DatabaseTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * One round trip to the database with a deadline: the newest applied migration's timestamp (which doubles as
 * `SELECT 1`). Rejects with the driver's error, or a DatabaseTimeoutError (code ETIMEDOUT) past `timeoutMs`.
 */
export async function newestAppliedMigration(database: Database, timeoutMs: number): Promise<number | null> {
  const text = 'SELECT max(created_at) AS m FROM drizzle.__drizzle_migrations';
  const query: Promise<{ rows: { m: unknown }[] }> = database.pool
    ? database.pool.query<{ m: unknown }>(text)
    : database.pglite
      ? database.pglite.query<{ m: unknown }>(text)
      : Promise.reject(new Error('no database driver'));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    const { rows } = await Promise.race([query, deadline]);
    const m = rows[0]?.m;
    return m === null || m === undefined ? null : Number(m);
  } finally {
    clearTimeout(timer);
    // A query that lost the race still settles later; its rejection must not be unhandled.
    query.catch(() => {});
  }
}
