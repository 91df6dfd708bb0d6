/**
 * Ingest throughput: OsmAnd HTTP pings into PostgreSQL (acknowledged only after commit), 128 concurrent clients,
 * 2,000 distinct devices, beside a no-op Fastify route measured the same way in the same run.
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
    await pool.query(
      `INSERT INTO devices (name, source, tracking_key)
       SELECT 'Bench ' || n, 'osmand', k FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)`,
      [keys],
    );
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
    const rounds: { base: Awaited<ReturnType<typeof run>>; ingest: Awaited<ReturnType<typeof run>> }[] = [];
    for (let i = 0; i < ROUNDS; i++)
      rounds.push({ base: await run(noopUrl), ingest: await run(ingestUrl, setup) });
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
  } finally {
    await app.close();
    await noop.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
