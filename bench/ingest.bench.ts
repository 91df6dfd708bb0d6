/**
 * Ingest throughput: OsmAnd HTTP pings into PostgreSQL (acknowledged only after commit), 128 concurrent clients,
 * 2,000 distinct devices, beside a no-op Fastify route measured the same way in the same run.
 * Then the same well-behaved load with one poisoning device beside it (issue 9, defect 3), its figures against
 * the well-behaved load alone in the same rounds:
 * - a device sending `batt=1e39` (out of range for the `real` column): refused by validation (400) before it
 *   joins a batch;
 * - a device whose fixes pass validation but that the database refuses (a CHECK constraint added to this bench
 *   database only, standing in for any row-level failure): each one fails the group-commit batch it is in, which
 *   is then bisected to isolate it.
 * Needs the local PostgreSQL at postgres://postgres@127.0.0.1:5432 (BENCH_DATABASE_URL overrides); a fresh
 * database is created and dropped.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';

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

export default async function ingestBench() {
  const dbName = `rb_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(BASE_URL);
  dbUrl.pathname = `/${dbName}`;

  const noop = Fastify({ logger: false });
  noop.get('/noop', async (_req, reply) => reply.code(200).send());
  await noop.listen({ port: 0, host: '127.0.0.1' });

  const app = await buildApp({
    config: loadConfig({ DATABASE_URL: dbUrl.toString(), DEMO: 'off', LOG_LEVEL: 'silent', PORT: '0' }),
    logger: false,
  });
  try {
    await app.ready();
    const pool = new pg.Pool({ connectionString: dbUrl.toString(), max: 2 });
    const keys: string[] = [];
    for (let i = 0; i < DEVICES; i++) keys.push(randomBytes(24).toString('base64url'));
    const rangeKey = randomBytes(24).toString('base64url');
    const dbKey = randomBytes(24).toString('base64url');
    await pool.query(
      `INSERT INTO devices (name, source, tracking_key)
       SELECT 'Bench ' || n, 'osmand', k FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)`,
      [[...keys, rangeKey, dbKey]],
    );
    await pool.query(
      `ALTER TABLE positions ADD CONSTRAINT bench_poison CHECK (altitude IS DISTINCT FROM ${POISON_ALTITUDE})`,
    );
    // Count the ingest batch statements (and the failed ones) the server runs, per scenario.
    const stmts = { ok: 0, failed: 0 };
    const serverPool = app.database.kind === 'postgres' ? app.database.pool : null;
    if (serverPool) {
      const query = serverPool.query.bind(serverPool) as (...a: unknown[]) => Promise<unknown>;
      (serverPool as unknown as { query: typeof query }).query = (...a: unknown[]) => {
        const named = (a[0] as { name?: string } | undefined)?.name === 'racebeacon_store_fixes';
        const p = query(...a);
        if (named)
          p.then(
            () => stmts.ok++,
            () => stmts.failed++,
          );
        return p;
      };
    }
    const counted = async <T>(f: () => Promise<T>) => {
      const before = { ...stmts };
      const r = await f();
      return { ...r, stmtOk: stmts.ok - before.ok, stmtFailed: stmts.failed - before.failed };
    };
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const noopPort = (noop.server.address() as AddressInfo).port;

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
    const noopUrl = `http://127.0.0.1:${noopPort}/noop`;
    const ingestUrl = `http://127.0.0.1:${port}`;

    // Warm up both (JIT, connection pools, prepared statements), then measure in alternating rounds.
    await autocannon({ url: noopUrl, connections: 16, duration: 1 });
    await autocannon({
      url: ingestUrl,
      connections: 16,
      duration: 1,
      requests: [{ method: 'GET', setupRequest: setup as never }],
    });
    type Counted<T> = T & { stmtOk: number; stmtFailed: number };
    const rounds: {
      base: RunResult;
      ingest: Counted<RunResult>;
      range: Counted<Awaited<ReturnType<typeof runPoisoned>>>;
      db: Counted<Awaited<ReturnType<typeof runPoisoned>>>;
    }[] = [];
    for (let i = 0; i < ROUNDS; i++)
      rounds.push({
        base: await run(noopUrl),
        ingest: await counted(() => run(ingestUrl, setup)),
        range: await counted(() => runPoisoned(ingestUrl, setup, rangePoison)),
        db: await counted(() => runPoisoned(ingestUrl, setup, dbPoison)),
      });
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM positions');
    await pool.end();

    const sum = (f: (r: (typeof rounds)[number]) => number) => rounds.reduce((a, r) => a + f(r), 0);
    const baseRps = sum((r) => r.base.rps) / ROUNDS;
    const ingestRps = sum((r) => r.ingest.rps) / ROUNDS;
    for (const [i, r] of rounds.entries()) {
      console.log(
        `round ${i + 1}: no-op ${r.base.rps.toFixed(0)} req/s, ingest ${r.ingest.rps.toFixed(0)} pings/s (p99 ${r.ingest.p99} ms), ratio ${(r.ingest.rps / r.base.rps).toFixed(2)}`,
      );
    }
    console.log(`no-op Fastify route:  ${baseRps.toFixed(0)} req/s (mean of ${ROUNDS} x ${DURATION_S} s)`);
    console.log(
      `OsmAnd ingest (PG):   ${ingestRps.toFixed(0)} pings/s, ${CONNECTIONS} clients, ${DEVICES} devices, ack after commit`,
    );
    console.log(
      `  2xx ${sum((r) => r.ingest.ok)}, non-2xx ${sum((r) => r.ingest.non2xx)}, errors ${sum((r) => r.ingest.errors)}, rows stored ${rows[0].n} (>= 2xx: requests cut off at the end of a run may be stored too)`,
    );
    console.log(`ratio ingest/no-op:   ${(ingestRps / baseRps).toFixed(2)} (goal >= 0.5)`);

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
        `  batch statements ${label}: ${sum((r) => f(r).stmtOk)} ok, ${sum((r) => f(r).stmtFailed)} failed`,
      );
    stmtLine('alone', (r) => r.ingest);
    stmtLine('with batt=1e39', (r) => r.range);
    stmtLine('with database-refused', (r) => r.db);
  } finally {
    await app.close();
    await noop.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
