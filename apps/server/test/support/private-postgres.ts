import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port';

/**
 * A private PostgreSQL cluster for tests that stop and restart the database (outages): initdb into a temporary
 * directory, its own port on 127.0.0.1, trust authentication, fsync off. Running as root (containers, CI), the
 * server runs as the `postgres` OS user through `runuser`, since PostgreSQL refuses to run as root.
 *
 * The binaries come from PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian, Ubuntu, the CI image).
 * When none is found, `startPrivatePostgres` throws saying so: a test needing it fails, it is not silently skipped.
 */

const run = promisify(execFile);

export interface PrivatePostgres {
  port: number;
  /** postgres://user@127.0.0.1:port/database (trust authentication: no password). */
  url(database?: string, user?: string): string;
  /** SQL as the superuser, on the `postgres` database. */
  sql(text: string): Promise<pg.QueryResult>;
  running(): boolean;
  /** pg_ctl stop -m fast: open connections are terminated, new ones refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server if it runs and deletes its directory. Safe to call twice. */
  destroy(): Promise<void>;
}

export function findPostgresBin(): string {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join(root, v, 'bin'));
  }
  const bin = candidates.find(
    (d) => existsSync(path.join(d, 'initdb')) && existsSync(path.join(d, 'pg_ctl')),
  );
  if (!bin)
    throw new Error(
      'A private PostgreSQL cluster is needed (initdb, pg_ctl) but no binaries were found: install the PostgreSQL ' +
        'server package (e.g. postgresql-15, whose binaries are in /usr/lib/postgresql/15/bin) or set PG_BIN.',
    );
  return bin;
}

/** uid/gid of the `postgres` OS user, when running as root (PostgreSQL will not run as root). */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'Running as root, a private PostgreSQL cluster needs the "postgres" OS user; there is none.',
    );
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const live = new Set<{ dataDir: string; dir: string; bin: string; asPostgres: boolean }>();
process.once('exit', () => {
  // Last resort when a test process ends without its afterAll (crash, timeout): no cluster is left behind.
  for (const c of live) {
    const cmd = [path.join(c.bin, 'pg_ctl'), '-D', c.dataDir, '-m', 'immediate', '-w', 'stop'];
    spawnSync(
      c.asPostgres ? 'runuser' : cmd[0],
      c.asPostgres ? ['-u', 'postgres', '--', ...cmd] : cmd.slice(1),
      {
        stdio: 'ignore',
      },
    );
    rmSync(c.dir, { recursive: true, force: true });
  }
});

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = findPostgresBin();
  const user = postgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rb-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const entry = { dataDir, dir, bin, asPostgres: user !== null };
  live.add(entry);
  if (user) chownSync(dir, user.uid, user.gid);

  const exec = async (tool: string, args: string[]) => {
    const file = path.join(bin, tool);
    try {
      // cwd: the cluster's own directory, which the postgres user can always enter (and which exists).
      return user
        ? await run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: dir })
        : await run(file, args, { cwd: dir });
    } catch (err) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new Error(`${tool} ${args.join(' ')} failed: ${(err as Error).message}\n${log}`);
    }
  };

  const port = await freePort();
  let running = false;
  const handle: PrivatePostgres = {
    port,
    url: (database = 'postgres', u = 'postgres') => `postgres://${u}@127.0.0.1:${port}/${database}`,
    async sql(text) {
      const c = new pg.Client({ connectionString: handle.url() });
      await c.connect();
      try {
        return await c.query(text);
      } finally {
        await c.end();
      }
    },
    running: () => running,
    async start() {
      await exec('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        logFile,
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
        'start',
      ]);
      running = true;
    },
    async stop() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
      running = false;
    },
    async destroy() {
      if (!live.has(entry)) return;
      try {
        if (running || existsSync(path.join(dataDir, 'postmaster.pid')))
          await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } finally {
        running = false;
        live.delete(entry);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };

  try {
    await exec('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    await handle.start();
  } catch (err) {
    await handle.destroy().catch(() => {});
    throw err;
  }
  return handle;
}
