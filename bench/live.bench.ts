/**
 * Live race benches (`npm run bench -- live`):
 * 1. Leaderboard read for a 2,500-runner race beside a static-JSON route serving a body of the same size, both on
 *    the same kind of Fastify instance, measured the same way in the same run (goal: ratio >= 0.5).
 * 2. SSE fan-out: up to 10,000 viewers of one race on one server process (a separate `node` running
 *    apps/server/src/server.ts on PostgreSQL), real OsmAnd pings into it; p99 delay from ping to viewer
 *    (goal <= 1 s) and the server process's RSS (goal <= 400 MB), each beside a 1-viewer / idle baseline.
 * Needs the local PostgreSQL for part 2 (BENCH_DATABASE_URL overrides); a fresh database is created and dropped.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase, type Db } from '../apps/server/src/db/client';
import { positions } from '../apps/server/src/db/schema';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { startServerProcess } from '../apps/server/test/support/server-process';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MIN = 60_000;

// ------------------------------------------------------------------------------------------ shared helpers

/** Stores `count` fixes per runner at a steady pace (3 m/s ± 10 %), every 2.5 minutes from the clock start. */
async function storeHistory(db: Db, race: SeededRace, count: number): Promise<void> {
  const rows: (typeof positions.$inferInsert)[] = [];
  for (const [k, r] of race.runners.entries()) {
    const speed = 2.7 + ((k * 37) % 60) / 100;
    for (let i = 1; i <= count; i++) {
      const t = race.clockStartMs + i * 150_000;
      const p = pointAlong(speed * i * 150);
      rows.push({
        deviceId: r.deviceId,
        raceId: race.raceId,
        runnerId: r.runnerId,
        fixTime: new Date(t),
        lat: p.lat,
        lon: p.lon,
        batteryPercent: 90,
        source: 'osmand',
      });
    }
  }
  for (let i = 0; i < rows.length; i += 2000) await db.insert(positions).values(rows.slice(i, i + 2000));
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

function rssMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

// ------------------------------------------------------------------------------------------ 1. leaderboard read

const LB_RUNNERS = 2500;
const LB_CONNECTIONS = 50;
const LB_DURATION_S = 8;

async function leaderboardBench() {
  const database = await openDatabase({});
  const app = await buildApp({
    config: loadConfig({ DEMO: 'off', LOG_LEVEL: 'silent', PORT: '0' }),
    database,
    logger: false,
  });
  const staticApp = Fastify({ logger: false });
  try {
    await app.ready();
    const race = await seedLiveRace(app.db, {
      runners: LB_RUNNERS,
      courseLengthM: 50_000,
      clockStartMs: Date.now() - 30 * MIN,
    });
    await storeHistory(app.db, race, 10);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const lbUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/open/races/${race.raceId}/leaderboard`;
    const loadStart = performance.now();
    const body = await (await fetch(lbUrl)).text();
    const loadMs = performance.now() - loadStart;
    const rows = JSON.parse(body) as unknown[];

    // The baseline: the same bytes from a route that only sends a constant string.
    const bytes = Buffer.from(body);
    staticApp.get('/static', async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(bytes),
    );
    await staticApp.listen({ port: 0, host: '127.0.0.1' });
    const staticUrl = `http://127.0.0.1:${(staticApp.server.address() as AddressInfo).port}/static`;

    const run = async (url: string) => {
      const r = await autocannon({ url, connections: LB_CONNECTIONS, duration: LB_DURATION_S });
      return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
    };
    await autocannon({ url: staticUrl, connections: 8, duration: 1 });
    await autocannon({ url: lbUrl, connections: 8, duration: 1 });
    // Interleaved, best of two each: the machine is shared, so one unlucky window should not decide the ratio.
    const best = (a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>) =>
      a.rps >= b.rps ? a : b;
    const base1 = await run(staticUrl);
    const lb1 = await run(lbUrl);
    const base = best(base1, await run(staticUrl));
    const lb = best(lb1, await run(lbUrl));
    console.log(
      `leaderboard: ${rows.length} runners, ${(body.length / 1024).toFixed(0)} KB JSON; first read (load from DB + match ${rows.length * 10} fixes): ${fmt(loadMs)}`,
    );
    console.log(`static-JSON route (same body):  ${base.rps.toFixed(0)} req/s (p99 ${base.p99} ms)`);
    console.log(
      `GET /leaderboard (2,500 runners): ${lb.rps.toFixed(0)} req/s (p99 ${lb.p99} ms), non-2xx ${lb.non2xx}, errors ${lb.errors}`,
    );
    console.log(`ratio leaderboard/static: ${(lb.rps / base.rps).toFixed(2)} (goal >= 0.5)`);
  } finally {
    await staticApp.close();
    await app.close();
    await database.close();
  }
}

// ------------------------------------------------------------------------------------------ 2. SSE fan-out

const FANOUT_RUNNERS = 50;
const WANTED_VIEWERS = 10_000;
const OPEN_BATCH = 250;
const SNAPSHOT = Buffer.from('event: snapshot');

interface Viewers {
  count: number;
  /** recv[ping][viewer] = performance.now() when the viewer first saw the ping's fix (0 = not yet). */
  recv: Float64Array[];
  watch(pingIndex: number, token: string): void;
  close(): void;
}

/** Opens `n` raw-HTTP SSE viewers (keep-alive agent), resolving when each has its snapshot. */
async function openViewers(url: string, n: number, maxPings: number): Promise<Viewers> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const recv = Array.from({ length: maxPings }, () => new Float64Array(n));
  const watching: { index: number; token: Buffer }[] = [];
  const reqs: http.ClientRequest[] = [];
  const open = (v: number) =>
    new Promise<void>((resolve, reject) => {
      // Raw bytes, no decoding: the measuring side should cost as little as possible (it shares the machine).
      let tail: Buffer | null = null;
      let ready = false;
      const req = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`viewer ${v}: HTTP ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => {
          const now = performance.now();
          const data = tail ? Buffer.concat([tail, chunk]) : chunk;
          if (!ready && data.includes(SNAPSHOT)) {
            ready = true;
            resolve();
          }
          for (const w of watching) {
            if (recv[w.index][v] === 0 && data.includes(w.token)) recv[w.index][v] = now;
          }
          tail = data.subarray(Math.max(0, data.length - 40));
        });
      });
      req.on('error', reject);
      reqs.push(req);
    });
  for (let i = 0; i < n; i += OPEN_BATCH) {
    const batch: Promise<void>[] = [];
    for (let v = i; v < Math.min(n, i + OPEN_BATCH); v++) batch.push(open(v));
    await Promise.all(batch);
  }
  return {
    count: n,
    recv,
    watch: (index, token) => watching.push({ index, token: Buffer.from(token) }),
    close() {
      for (const r of reqs) r.destroy();
      agent.destroy();
    },
  };
}

interface PingResult {
  /** Delay per (ping, viewer) from sending the ping, and from its 200 (accepted = committed). */
  fromSend: number[];
  fromAccept: number[];
  /** Per ping: delay to the first viewer, and from the first viewer to the last (the fan-out spread). */
  first: number[];
  spread: number[];
  missing: number;
}

/** Sends `pings` real OsmAnd pings `gapMs` apart, each for a different runner, and collects viewer delays. */
async function pingAndMeasure(
  serverUrl: string,
  race: SeededRace,
  viewers: Viewers,
  firstRunner: number,
  pings: number,
  gapMs: number,
): Promise<PingResult> {
  const sent: number[] = [];
  const accepted: number[] = [];
  for (let k = 0; k < pings; k++) {
    const runner = race.runners[firstRunner + k];
    // The runner's next fix, 1 minute after its last stored one, at its pace (plausible for the matcher).
    const t = race.clockStartMs + 4 * 150_000 + 60_000;
    const fix = { t, ...pointAlong(3 * (4 * 150 + 60)) };
    viewers.watch(k, `[${runner.runnerId},${t},`);
    sent[k] = performance.now();
    const res = await fetch(osmandUrl(serverUrl, runner, fix));
    accepted[k] = performance.now();
    if (res.status !== 200) throw new Error(`ping ${k}: HTTP ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  await new Promise((r) => setTimeout(r, 3000)); // stragglers
  const fromSend: number[] = [];
  const fromAccept: number[] = [];
  const first: number[] = [];
  const spread: number[] = [];
  let missing = 0;
  for (let k = 0; k < pings; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let v = 0; v < viewers.count; v++) {
      const at = viewers.recv[k][v];
      if (at === 0) missing++;
      else {
        fromSend.push(at - sent[k]);
        fromAccept.push(Math.max(0, at - accepted[k]));
        lo = Math.min(lo, at);
        hi = Math.max(hi, at);
      }
    }
    if (hi >= lo) {
      first.push(lo - sent[k]);
      spread.push(hi - lo);
    }
  }
  for (const a of [fromSend, fromAccept, first, spread]) a.sort((x, y) => x - y);
  return { fromSend, fromAccept, first, spread, missing };
}

async function fanoutBench() {
  const limit = Number(execSync('sh -c "ulimit -n"').toString().trim());
  const viewersN = Math.min(WANTED_VIEWERS, Math.max(100, limit - 1000));
  if (viewersN < WANTED_VIEWERS) {
    console.log(
      `NOTE: ulimit -n is ${limit}; using ${viewersN} viewers instead of ${WANTED_VIEWERS} (node cannot raise it).`,
    );
  }
  const dbName = `rb_bench_live_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(BASE_URL);
  dbUrl.pathname = `/${dbName}`;
  const database = await openDatabase({ databaseUrl: dbUrl.toString(), poolSize: 2 });
  let server: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  try {
    const race = await seedLiveRace(database.db, {
      runners: FANOUT_RUNNERS,
      courseLengthM: 42_195,
      clockStartMs: Date.now() - 30 * MIN,
    });
    await storeHistory(database.db, race, 4);
    server = await startServerProcess({
      DATABASE_URL: dbUrl.toString(),
      LOG_LEVEL: 'warn',
      // Every viewer comes from this one address, and up to 10,000 of them: lift the stream caps for the bench.
      LIVE_MAX_STREAMS: String(viewersN + 10),
      LIVE_MAX_STREAMS_PER_CLIENT: '0',
    });
    const pid = server.child.pid!;
    const liveUrl = `${server.url}/api/open/races/${race.raceId}/live`;
    await fetch(`${server.url}/api/open/races/${race.raceId}/leaderboard`); // load the race
    const idle = rssMb(pid);

    // Baseline: one viewer.
    const one = await openViewers(liveUrl, 1, 10);
    const base = await pingAndMeasure(server.url, race, one, 0, 10, 300);
    one.close();

    // Fan-out.
    const openStart = performance.now();
    const many = await openViewers(liveUrl, viewersN, 20);
    const openMs = performance.now() - openStart;
    const connected = rssMb(pid);
    const res = await pingAndMeasure(server.url, race, many, 10, 20, 500);
    const after = rssMb(pid);
    many.close();

    const p99Base = pct(base.fromSend, 99);
    const p99 = pct(res.fromSend, 99);
    console.log(
      `SSE fan-out: ${viewersN} viewers of one race (${FANOUT_RUNNERS} runners) on one server process; opened (snapshot received) in ${fmt(openMs)}`,
    );
    console.log(
      `  baseline, 1 viewer, 10 pings:  p50 ${fmt(pct(base.fromSend, 50))}, p99 ${fmt(p99Base)} from ping sent (p99 ${fmt(pct(base.fromAccept, 99))} from 200)`,
    );
    console.log(
      `  ${viewersN} viewers, 20 pings:   p50 ${fmt(pct(res.fromSend, 50))}, p99 ${fmt(p99)}, max ${fmt(res.fromSend.at(-1) ?? NaN)} from ping sent (p99 ${fmt(pct(res.fromAccept, 99))} from 200); ${res.fromSend.length} deliveries, ${res.missing} missing`,
    );
    console.log(
      `  per ping (median): first viewer after ${fmt(pct(res.first, 50))}, last viewer ${fmt(pct(res.spread, 50))} after the first`,
    );
    console.log(
      `  ratio p99 ${viewersN} viewers / 1 viewer: ${(p99 / p99Base).toFixed(2)} (goal: p99 <= 1000 ms)`,
    );
    console.log(
      `  server RSS: idle ${idle.rss.toFixed(0)} MB (baseline), with ${viewersN} viewers ${connected.rss.toFixed(0)} MB, after pings ${after.rss.toFixed(0)} MB, peak ${after.hwm.toFixed(0)} MB; ratio ${(after.hwm / idle.rss).toFixed(2)} (goal <= 400 MB)`,
    );
  } finally {
    await server?.stop();
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

export default async function liveBench() {
  await leaderboardBench();
  await fanoutBench();
}
