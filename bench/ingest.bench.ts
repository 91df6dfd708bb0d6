/**
 * Ingest throughput: OsmAnd HTTP pings into PostgreSQL (acknowledged only after commit), 128 concurrent clients,
 * 2,000 distinct devices, against the BUILT server (`node apps/server/dist/server.js`, its own process, built at the
 * start of the bench), beside a no-op Fastify route (its own process too) measured the same way in the same run.
 * BENCH_BASELINE_SERVER=<path to another build's dist/server.js> measures that build too, in the same rounds, on a
 * database of its own (e.g. the build of an earlier commit, for a before/after). BENCH_CPU_PROF=<dir> runs the
 * server under `node --cpu-prof` and writes its profile there.
 * Each round also measures the same server's GET /api/health (every app-wide hook, no ingest work): the ratio a
 * route of this app reaches before doing anything of its own.
 * Then the same well-behaved load with one poisoning device beside it (issue 9, defect 3), its figures against
 * the well-behaved load alone in the same rounds:
 * - a device sending `batt=1e39` (out of range for the `real` column): refused by validation (400) before it
 *   joins a batch;
 * - a device whose fixes pass validation but that the database refuses (a CHECK constraint added to this bench
 *   database only, standing in for any row-level failure): each one fails the group-commit batch it is in, which
 *   is then bisected to isolate it.
 * Needs the local PostgreSQL at postgres://postgres@127.0.0.1:5432 (BENCH_DATABASE_URL overrides); fresh databases
 * are created and dropped.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildServer, startBuiltServer, startNoopServer, type ChildServer } from './built-server';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = 128;
/** Rounds alternate no-op and ingest runs so background load on a shared machine hits both alike. */
const ROUNDS = 3;
const DURATION_S = 5;
const DEVICES = 2000;
/** Pings per second of the one poisoning device (kept under its rate-limit burst for the whole bench). */
const POISON_RATE = 20;
/** The bench database refuses a fix with this altitude (a row-level failure validation cannot foresee). */
const POISON_ALTITUDE = -4321;

type RunResult = Awaited<ReturnType<typeof run>>;

async function run(url: string, setup?: (req: { path?: string }) => { path: string }) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: setup ? [{ method: 'GET', setupRequest: setup as never }] : undefined,
  });
  return {
    rps: result.requests.average,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    p99: result.latency.p99,
  };
}

/** CPU time (ms, user + system) the processes have used so far (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
    } catch {
      // gone
    }
  }
  return ticks * 10;
}

/** The PostgreSQL backends serving a database now (the server's pool and LISTEN connections). */
async function backendPids(pool: pg.Pool, db: string): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [db],
  );
  return rows.map((r) => r.pid);
}

/**
 * A run with the CPU it cost: the server process's, and its PostgreSQL backends' (the bench's own connection and
 * the database's shared processes — WAL writer, checkpointer — aside). On a machine shared with other work the
 * requests per second move with the load around; the CPU per request much less.
 */
async function measured<T extends { ok: number }>(
  serverPid: number,
  pgPids: () => Promise<number[]>,
  f: () => Promise<T>,
): Promise<T & { serverCpuMs: number; pgCpuMs: number }> {
  const before = new Map((await pgPids()).map((pid) => [pid, cpuMs([pid])]));
  const s0 = cpuMs([serverPid]);
  const r = await f();
  const serverCpuMs = cpuMs([serverPid]) - s0;
  // Backends the server's pool opened during the run count from zero.
  let pgCpuMs = 0;
  for (const pid of new Set([...before.keys(), ...(await pgPids())]))
    pgCpuMs += cpuMs([pid]) - (before.get(pid) ?? 0);
  return { ...r, serverCpuMs, pgCpuMs };
}

/** The well-behaved load, and beside it one device sending POISON_RATE bad pings a second. */
async function runPoisoned(
  url: string,
  setup: (req: { path?: string }) => { path: string },
  poison: () => string,
) {
  const [good, bad] = await Promise.all([
    run(url, setup),
    autocannon({
      url,
      connections: 1,
      connectionRate: POISON_RATE,
      duration: DURATION_S,
      requests: [{ method: 'GET', setupRequest: ((req: object) => ({ ...req, path: poison() })) as never }],
    }),
  ]);
  return { ...good, poisonSent: bad.requests.total, poison4xx: bad['4xx'], poison5xx: bad['5xx'] };
}

/** A fresh database with the bench devices (migrated by the server that starts on it) and the poison constraint. */
async function benchDatabase(admin: pg.Client) {
  const name = `rb_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** Transactions committed and rolled back in a database (pg_stat_database): the ingest batch statements, mostly. */
async function xacts(pool: pg.Pool, db: string) {
  // Statistics are sent to the collector at most every 500 ms: read them after it caught up.
  await new Promise((r) => setTimeout(r, 700));
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query<{ c: string; r: string }>(
    'SELECT xact_commit AS c, xact_rollback AS r FROM pg_stat_database WHERE datname = $1',
    [db],
  );
  return { ok: Number(rows[0].c), failed: Number(rows[0].r) };
}

export default async function ingestBench() {
  const loadAtStart = os.loadavg()[0];
  buildServer();
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  const baselineEntry = process.env.BENCH_BASELINE_SERVER;
  const cpuProf = process.env.BENCH_CPU_PROF;
  const dbs = [await benchDatabase(admin)];
  if (baselineEntry) dbs.push(await benchDatabase(admin));
  const servers: ChildServer[] = [];
  const pools: pg.Pool[] = [];
  try {
    const noop = await startNoopServer();
    servers.push(noop);
    // One address plays all 128 trackers: no per-client connection cap (MAX_CONNECTIONS_PER_CLIENT).
    const env = (url: string) => ({
      DATABASE_URL: url,
      LOG_LEVEL: 'silent',
      MAX_CONNECTIONS_PER_CLIENT: '0',
    });
    const server = await startBuiltServer({
      env: env(dbs[0].url),
      nodeArgs: cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : [],
    });
    servers.push(server);
    const baseline = baselineEntry
      ? await startBuiltServer({ env: env(dbs[1].url), entry: baselineEntry })
      : null;
    if (baseline) servers.push(baseline);

    const keys: string[] = [];
    for (let i = 0; i < DEVICES; i++) keys.push(randomBytes(24).toString('base64url'));
    const rangeKey = randomBytes(24).toString('base64url');
    const dbKey = randomBytes(24).toString('base64url');
    for (const db of dbs) {
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      pools.push(pool);
      await pool.query(
        `INSERT INTO devices (name, source, tracking_key)
         SELECT 'Bench ' || n, 'osmand', k FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)`,
        [[...keys, rangeKey, dbKey]],
      );
      await pool.query(
        `ALTER TABLE positions ADD CONSTRAINT bench_poison CHECK (altitude IS DISTINCT FROM ${POISON_ALTITUDE})`,
      );
    }
    const pool = pools[0];
    // Count the transactions (ingest batch statements, and the failed ones) the server's database ran, per scenario.
    const counted = async <T>(f: () => Promise<T>) => {
      const before = await xacts(pool, dbs[0].name);
      const r = await f();
      const after = await xacts(pool, dbs[0].name);
      return { ...r, stmtOk: after.ok - before.ok, stmtFailed: after.failed - before.failed };
    };

    // Every request: a random device, a fix time never used before by that device (one new row each).
    const counters = new Array<number>(DEVICES).fill(0);
    const t0 = Math.floor(Date.now() / 1000) - 20 * 3600;
    const setup = (req: { path?: string }) => {
      const d = Math.floor(Math.random() * DEVICES);
      const ts = t0 + counters[d]++ * 5;
      const lat = (46 + Math.random() / 10).toFixed(6);
      const lon = (7 + Math.random() / 10).toFixed(6);
      return {
        ...req,
        path: `/api/ingest/osmand?id=${keys[d]}&lat=${lat}&lon=${lon}&timestamp=${ts}&speed=5.1&batt=80`,
      };
    };
    let poisonTs = t0;
    const poisonPoint = () => `lat=46.5&lon=7.05&timestamp=${(poisonTs += 5)}`;
    const rangePoison = () => `/api/ingest/osmand?id=${rangeKey}&${poisonPoint()}&batt=1e39`;
    const dbPoison = () => `/api/ingest/osmand?id=${dbKey}&${poisonPoint()}&altitude=${POISON_ALTITUDE}`;
    const noopUrl = `${noop.url}/noop`;
    const ingestUrl = server.url;

    // Warm up (JIT, connection pools, prepared statements), then measure in alternating rounds.
    await autocannon({ url: noopUrl, connections: 16, duration: 1 });
    for (const s of [server, baseline]) {
      if (!s) continue;
      await autocannon({
        url: s.url,
        connections: 16,
        duration: 1,
        requests: [{ method: 'GET', setupRequest: setup as never }],
      });
    }
    type Counted<T> = T & { stmtOk: number; stmtFailed: number };
    type Cpu<T> = T & { serverCpuMs: number; pgCpuMs: number };
    const rounds: {
      base: Cpu<RunResult>;
      health: Cpu<RunResult>;
      ingest: Counted<Cpu<RunResult>>;
      before: Cpu<RunResult> | null;
      beforeHealth: Cpu<RunResult> | null;
      range: Counted<Awaited<ReturnType<typeof runPoisoned>>>;
      db: Counted<Awaited<ReturnType<typeof runPoisoned>>>;
    }[] = [];
    const pgOf = (i: number) => () => backendPids(pools[0], dbs[i].name);
    const none = async () => [] as number[];
    for (let i = 0; i < ROUNDS; i++)
      rounds.push({
        base: await measured(noop.child.pid!, none, () => run(noopUrl)),
        // The same built server's GET /api/health: every app-wide hook and no ingest work, the ceiling of a route.
        health: await measured(server.child.pid!, none, () => run(`${ingestUrl}/api/health`)),
        ingest: await counted(() => measured(server.child.pid!, pgOf(0), () => run(ingestUrl, setup))),
        before: baseline
          ? await measured(baseline.child.pid!, pgOf(1), () => run(baseline.url, setup))
          : null,
        beforeHealth: baseline
          ? await measured(baseline.child.pid!, none, () => run(`${baseline.url}/api/health`))
          : null,
        range: await counted(() => runPoisoned(ingestUrl, setup, rangePoison)),
        db: await counted(() => runPoisoned(ingestUrl, setup, dbPoison)),
      });
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM positions');

    const sum = (f: (r: (typeof rounds)[number]) => number) => rounds.reduce((a, r) => a + f(r), 0);
    const baseRps = sum((r) => r.base.rps) / ROUNDS;
    const ingestRps = sum((r) => r.ingest.rps) / ROUNDS;
    for (const [i, r] of rounds.entries()) {
      console.log(
        `round ${i + 1}: no-op ${r.base.rps.toFixed(0)} req/s, /api/health ${r.health.rps.toFixed(0)} req/s, ingest ${r.ingest.rps.toFixed(0)} pings/s (p99 ${r.ingest.p99} ms), ratio ${(r.ingest.rps / r.base.rps).toFixed(2)}` +
          (r.before
            ? `; baseline build ${r.before.rps.toFixed(0)} pings/s (p99 ${r.before.p99} ms), ratio ${(r.before.rps / r.base.rps).toFixed(2)}`
            : ''),
      );
    }
    console.log(
      `no-op Fastify route:  ${baseRps.toFixed(0)} req/s (mean of ${ROUNDS} x ${DURATION_S} s; its own process)`,
    );
    console.log(
      `OsmAnd ingest (PG):   ${ingestRps.toFixed(0)} pings/s, ${CONNECTIONS} clients, ${DEVICES} devices, ack after commit; ` +
        `built server (node apps/server/dist/server.js, NODE_ENV=production)`,
    );
    console.log(
      `  2xx ${sum((r) => r.ingest.ok)}, non-2xx ${sum((r) => r.ingest.non2xx)}, errors ${sum((r) => r.ingest.errors)}, rows stored ${rows[0].n} (>= 2xx: requests cut off at the end of a run may be stored too)`,
    );
    console.log(
      `ratio ingest/no-op:   ${(ingestRps / baseRps).toFixed(2)} (goal >= 0.5), built server (its own process); ` +
        `machine load average ${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end, on ` +
        `${os.cpus().length} cores`,
    );
    // CPU per request, summed over the rounds: robust to the machine's other load, unlike requests per second.
    const perReq = (cpu: number, n: number) => (n ? (cpu * 1000) / n : NaN);
    const noopUs = perReq(
      sum((r) => r.base.serverCpuMs),
      sum((r) => r.base.ok),
    );
    const cpuLine = (label: string, f: (r: (typeof rounds)[number]) => Cpu<RunResult>) => {
      const n = sum((r) => f(r).ok);
      const srv = perReq(
        sum((r) => f(r).serverCpuMs),
        n,
      );
      const db = perReq(
        sum((r) => f(r).pgCpuMs),
        n,
      );
      console.log(
        `CPU per ping, ${label}: server ${srv.toFixed(0)} µs + PostgreSQL backends ${db.toFixed(0)} µs ` +
          `(no-op: ${noopUs.toFixed(0)} µs per request); CPU-cost ratio no-op/ingest: server alone ` +
          `${(noopUs / srv).toFixed(2)}, server + PostgreSQL ${(noopUs / (srv + db)).toFixed(2)}`,
      );
    };
    cpuLine('this build', (r) => r.ingest);
    const healthRps = sum((r) => r.health.rps) / ROUNDS;
    console.log(
      `GET /api/health of the same built server (its hooks, no ingest work): ${healthRps.toFixed(0)} req/s, ratio to ` +
        `no-op ${(healthRps / baseRps).toFixed(2)}, server CPU ${perReq(
          sum((r) => r.health.serverCpuMs),
          sum((r) => r.health.ok),
        ).toFixed(0)} µs per request: what any route of the app costs before its own work`,
    );
    if (baseline) cpuLine('baseline build', (r) => r.before!);
    if (baseline) {
      const beforeRps = sum((r) => r.before!.rps) / ROUNDS;
      const beforeHealthRps = sum((r) => r.beforeHealth!.rps) / ROUNDS;
      console.log(
        `baseline build (${baselineEntry}): ${beforeRps.toFixed(0)} pings/s, ratio ${(beforeRps / baseRps).toFixed(2)}; ` +
          `this build / baseline ${(ingestRps / beforeRps).toFixed(2)}`,
      );
      console.log(
        `GET /api/health of the baseline build: ${beforeHealthRps.toFixed(0)} req/s, ratio to no-op ` +
          `${(beforeHealthRps / baseRps).toFixed(2)}, server CPU ${perReq(
            sum((r) => r.beforeHealth!.serverCpuMs),
            sum((r) => r.beforeHealth!.ok),
          ).toFixed(0)} µs per request`,
      );
    }

    // Issue 9, defect 3: the same well-behaved devices with one poisoning device beside them.
    const p99 = (f: (r: (typeof rounds)[number]) => number) => Math.max(...rounds.map(f));
    const mean = (f: (r: (typeof rounds)[number]) => number) => sum(f) / ROUNDS;
    for (const [i, r] of rounds.entries()) {
      console.log(
        `round ${i + 1}: good devices alone ${r.ingest.rps.toFixed(0)}/s (p99 ${r.ingest.p99} ms); ` +
          `+ batt=1e39 device ${r.range.rps.toFixed(0)}/s (p99 ${r.range.p99} ms); ` +
          `+ device the database refuses ${r.db.rps.toFixed(0)}/s (p99 ${r.db.p99} ms)`,
      );
    }
    const line = (label: string, rps: number, p: number) =>
      console.log(
        `${label.padEnd(44)} ${rps.toFixed(0).padStart(6)} pings/s, ratio ${(rps / ingestRps).toFixed(2)}, worst-round p99 ${p} ms`,
      );
    console.log(`good devices' throughput and p99, ${CONNECTIONS} clients (baseline: the same load alone):`);
    line(
      '  alone (baseline)',
      ingestRps,
      p99((r) => r.ingest.p99),
    );
    line(
      `  + 1 device sending batt=1e39, ${POISON_RATE}/s`,
      mean((r) => r.range.rps),
      p99((r) => r.range.p99),
    );
    line(
      `  + 1 device the database refuses, ${POISON_RATE}/s`,
      mean((r) => r.db.rps),
      p99((r) => r.db.p99),
    );
    console.log(
      `  good devices' non-2xx: alone ${sum((r) => r.ingest.non2xx)}, with batt=1e39 ${sum((r) => r.range.non2xx)}, ` +
        `with database-refused ${sum((r) => r.db.non2xx)}`,
    );
    console.log(
      `  poisoning device: batt=1e39 sent ${sum((r) => r.range.poisonSent)} (4xx ${sum((r) => r.range.poison4xx)}), ` +
        `database-refused sent ${sum((r) => r.db.poisonSent)} (5xx ${sum((r) => r.db.poison5xx)})`,
    );
    const stmtLine = (
      label: string,
      f: (r: (typeof rounds)[number]) => { stmtOk: number; stmtFailed: number },
    ) =>
      console.log(
        `  transactions ${label}: ${sum((r) => f(r).stmtOk)} committed, ${sum((r) => f(r).stmtFailed)} rolled back`,
      );
    console.log("  (pg_stat_database of the server's database: the ingest batch statements, mostly)");
    stmtLine('alone', (r) => r.ingest);
    console.log(
      `  pings per committed transaction, alone: ${(
        sum((r) => r.ingest.ok) /
        Math.max(
          1,
          sum((r) => r.ingest.stmtOk),
        )
      ).toFixed(1)} ` +
        '(the group commit batch size, roughly: a statement costs PostgreSQL a fixed ~0.7 ms of CPU whatever its size)',
    );
    stmtLine('with batt=1e39', (r) => r.range);
    stmtLine('with database-refused', (r) => r.db);
  } finally {
    for (const p of pools) await p.end();
    for (const s of servers) await s.stop();
    if (cpuProf) console.log(`CPU profile of the server written to ${cpuProf}`);
    for (const db of dbs) await admin.query(`DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`);
    await admin.end();
  }
}
