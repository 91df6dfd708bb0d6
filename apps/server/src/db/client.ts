import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema';

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * The application's database handle. Both drivers expose the same Drizzle API; the type is the node-postgres
 * one so that code above the driver is written once.
 */
export type Db = NodePgDatabase<typeof schema>;
/** A transaction or the database itself: repositories accept either. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Raw driver, for LISTEN/NOTIFY and the like. */
  pglite?: PGlite;
  pool?: pg.Pool;
  /** Connection string (postgres only), for dedicated LISTEN connections. */
  url?: string;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… → PostgreSQL; otherwise PGlite. */
  databaseUrl?: string;
  /** PGlite data directory; undefined → in-memory. */
  dataDir?: string;
  poolSize?: number;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      // An unreachable server (no answer at all) fails the request with 503 after 10 s instead of hanging it.
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    });
    pool.on('error', () => {
      /* idle client errors are reported on next use */
    });
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return { db, kind: 'postgres', pool, url: opts.databaseUrl, close: () => pool.end() };
  }
  let dataDir: string | undefined;
  if (opts.dataDir) {
    dataDir = path.resolve(opts.dataDir, 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(db as never, { migrationsFolder });
  return { db, kind: 'pglite', pglite: client, close: () => client.close() };
}
