import { eq } from 'drizzle-orm';
import type { DbOrTx } from './client';
import { settings } from './schema';

/** Reads a setting, creating it with `initial` if absent. Concurrent first calls agree on one stored value. */
export async function getOrCreateSetting<T>(db: DbOrTx, key: string, initial: () => T): Promise<T> {
  const [existing] = await db.select().from(settings).where(eq(settings.key, key));
  if (existing) return existing.value as T;
  await db.insert(settings).values({ key, value: initial() }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, key));
  return row.value as T;
}
