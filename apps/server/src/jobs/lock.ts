import pg from 'pg';
import type { Database } from '../db/client';

/**
 * Who runs a job: exactly one process of a cluster, the one holding the job's lock. On PostgreSQL the lock is a
 * session advisory lock (pg_try_advisory_lock) held on a connection of its own, so it is released the moment that
 * process stops or loses its connection, and another process takes the job over at its next try. With PGlite there
 * is one process, which always holds every lock.
 */
export interface JobLock {
  /** Takes the job's lock if it is free, keeps it if held already; true when this process holds it. */
  acquire(name: string): Promise<boolean>;
  /** Whether this process holds the job's lock now (false once the session that held it is lost). */
  holds(name: string): boolean;
  /** Gives every lock back. */
  close(): Promise<void>;
}

interface LockLogger {
  info(obj: unknown, msg?: string): void;
}

/** A single process: every job's lock is always its own. */
export function inProcessLock(): JobLock {
  return { acquire: async () => true, holds: () => true, close: async () => {} };
}

/** Advisory-lock keys of our jobs: this namespace ('RBJB') and a 32-bit hash (FNV-1a) of the job's name. */
const NAMESPACE = 0x52424a42;
export function lockKey(name: string): [number, number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return [NAMESPACE, h | 0];
}

/** Session advisory locks on a dedicated connection to the database at `url` (opened on first use). */
export function advisoryLock(url: string, log: LockLogger): JobLock {
  const held = new Set<string>();
  let session: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let turn: Promise<unknown> = Promise.resolve();
  function inTurn<T>(query: () => Promise<T>): Promise<T> {
    const next = turn.then(query, query);
    turn = next.catch(() => {});
    return next;
  }

  function lost(c: pg.Client, err?: Error) {
    if (session !== c) return;
    session = null;
    c.end().catch(() => {});
    const jobs = [...held];
    held.clear();
    if (!closed && jobs.length)
      log.info(
        { jobs, reason: err?.message ?? 'connection ended' },
        'job lock connection lost; the jobs run wherever their lock is taken next',
      );
  }

  function connect(): Promise<pg.Client> {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, keepAlive: true });
      c.on('error', (err) => lost(c, err));
      c.on('end', () => lost(c));
      try {
        await c.connect();
      } catch (err) {
        c.end().catch(() => {});
        throw err;
      }
      if (closed) {
        await c.end().catch(() => {});
        throw new Error('The job lock is closed.');
      }
      session = c;
      return c;
    })().finally(() => (connecting = null));
    return connecting;
  }

  return {
    async acquire(name) {
      if (held.has(name)) return true;
      if (closed) return false;
      const c = session ?? (await connect());
      const [ns, key] = lockKey(name);
      // One query at a time on the session (every job tries its lock on the same connection at start): pg queues
      // concurrent queries on a client today, but that is deprecated (pg 9 refuses it).
      const res = await inTurn(() =>
        c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [ns, key]),
      );
      if (res.rows[0]?.ok && session === c) held.add(name);
      return held.has(name);
    },
    holds: (name) => held.has(name),
    async close() {
      closed = true;
      held.clear();
      const c = session;
      session = null;
      // Ending the session releases its advisory locks.
      if (c) await c.end().catch(() => {});
    },
  };
}

/** The lock for the app's database: advisory locks on PostgreSQL, the in-process lock on PGlite. */
export function jobLockFor(database: Database, log: LockLogger): JobLock {
  return database.kind === 'postgres' && database.url ? advisoryLock(database.url, log) : inProcessLock();
}
