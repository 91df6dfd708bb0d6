/**
 * Live viewers and pings per second with the BUILT server (`node apps/server/dist/server.js`), one process against
 * the cluster test's three (apps/server/test/support/cluster.ts: the same processes on one PostgreSQL behind a real
 * HAProxy), in the same run: `npm run bench -- cluster`.
 *
 * Each scenario: V live viewers (SSE connections to one race, through HAProxy, so round-robin spreads them), then
 * pings as fast as CONNECTIONS clients send them (OsmAnd, through HAProxy, each a new fix of one of the race's
 * runners) for LOAD_S seconds. Figures: pings/s acked; the viewers' update messages per second; for PROBES viewers
 * that read every message, the share of the acked fixes they were shown and the delay from sending a ping to the
 * probe seeing its fix (p50/p99); the server processes' CPU per ping. The bench's own client (autocannon, the
 * viewers) runs on the same machine and cores as the servers and PostgreSQL, so the figures are lower bounds of
 * what a process holds on a machine of its own.
 * Needs the local PostgreSQL (BENCH_DATABASE_URL overrides) and haproxy on PATH (as the cluster tests do).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/client';
import {
  clusterNode,
  haproxyBinary,
  startBalancer,
  type Balancer,
  type ClusterNode,
} from '../apps/server/test/support/cluster';
import { pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { BUILT_SERVER, buildServer } from './built-server';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNNERS = 300;
const CONNECTIONS = 64;
const LOAD_S = 8;
const PROBES = 20;
const SCENARIOS: { processes: number; viewers: number }[] = [
  { processes: 1, viewers: 1000 },
  { processes: 3, viewers: 1000 },
  { processes: 1, viewers: 3000 },
  { processes: 3, viewers: 3000 },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** A viewer that only counts update messages (most of them), or a probe that reads every fix and when it came. */
interface Viewer {
  updates: number;
  seen: Map<string, number> | null;
  ok: boolean;
  close(): void;
}

function openViewer(url: string, probe: boolean): Promise<Viewer> {
  return new Promise((resolve) => {
    const v: Viewer = { updates: 0, seen: probe ? new Map() : null, ok: false, close: () => {} };
    const req = http.get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      v.ok = res.statusCode === 200;
      v.close = () => res.destroy();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!probe) {
          // Count without parsing: one `event: update` line per message.
          let i = -1;
          while ((i = chunk.indexOf('event: update', i + 1)) >= 0) v.updates++;
          return;
        }
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (!block.includes('event: update')) continue;
          v.updates++;
          const data = block.slice(block.indexOf('data: ') + 6);
          const now = Date.now();
          for (const [runnerId, t] of (JSON.parse(data) as { Fixes: [number, number][] }).Fixes)
            if (!v.seen!.has(`${runnerId}:${t}`)) v.seen!.set(`${runnerId}:${t}`, now);
        }
      });
      resolve(v);
    });
    req.on('error', () => resolve(v));
  });
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function scenario(
  databaseUrl: string,
  race: SeededRace,
  processes: number,
  viewers: number,
  firstFixMs: number,
) {
  const nodes: ClusterNode[] = [];
  let lb: Balancer | undefined;
  const open: Viewer[] = [];
  try {
    for (let i = 0; i < processes; i++)
      nodes.push(
        await clusterNode(
          `bench${i + 1}`,
          databaseUrl,
          // Every viewer comes from 127.0.0.1 here: no per-address stream cap.
          { LOG_LEVEL: 'warn', NODE_ENV: 'production', LIVE_MAX_STREAMS_PER_CLIENT: '0' },
          BUILT_SERVER,
        ),
      );
    await Promise.all(nodes.map((n) => n.start()));
    lb = await startBalancer(nodes);
    const liveUrl = `${lb.url}/api/open/races/${race.raceId}/live`;
    for (let i = 0; i < viewers; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, viewers - i) }, (_, k) => openViewer(liveUrl, i + k < PROBES)),
      );
      open.push(...batch);
    }
    const connected = open.filter((v) => v.ok).length;
    await sleep(1000);

    // Each request: the next fix of a random runner, 1 s after its previous one, moving along the course.
    const counters = new Array<number>(race.runners.length).fill(0);
    const sentAt = new Map<string, number>();
    const setup = (req: { path?: string }) => {
      const k = Math.floor(Math.random() * race.runners.length);
      const n = counters[k]++;
      const r = race.runners[k];
      const t = firstFixMs + n * 1000;
      const p = pointAlong(100 + k * 10 + n * 3);
      sentAt.set(`${r.runnerId}:${t}`, Date.now());
      return {
        ...req,
        path: `/api/ingest/osmand?id=${r.trackingKey}&lat=${p.lat}&lon=${p.lon}&timestamp=${t / 1000}`,
      };
    };
    const cpu0 = nodes.map((n) => cpuMs(n.child?.pid));
    const updates0 = open.reduce((a, v) => a + v.updates, 0);
    const startedAt = performance.now();
    const result = await autocannon({
      url: lb.url,
      connections: CONNECTIONS,
      duration: LOAD_S,
      requests: [{ method: 'GET', setupRequest: setup as never }],
    });
    // The run's real length: on a saturated machine autocannon's own timer fires late.
    const seconds = (performance.now() - startedAt) / 1000;
    const cpu = nodes.reduce((a, n, i) => a + cpuMs(n.child?.pid) - cpu0[i], 0);
    const updates = open.reduce((a, v) => a + v.updates, 0) - updates0;
    await sleep(3000); // let the last messages arrive
    const probes = open.slice(0, PROBES).filter((v) => v.ok && v.seen);
    const delays: number[] = [];
    let shown = 0;
    let expected = 0;
    for (const v of probes) {
      for (const [key, at] of sentAt) {
        expected++;
        const got = v.seen!.get(key);
        if (got !== undefined) {
          shown++;
          delays.push(got - at);
        }
      }
    }
    return {
      processes,
      viewers: connected,
      seconds,
      pingsPerS: result['2xx'] / seconds,
      non2xx: Object.entries(result.statusCodeStats ?? {})
        .filter(([code]) => code !== '200')
        .map(([code, v]) => `${code}×${(v as { count: number }).count}`)
        .join(' '),
      errors: result.errors,
      updatesPerS: updates / seconds,
      // Sent pings not acked (cut off at the end) are not shown either: the share is a lower bound.
      shownShare: expected ? shown / expected : NaN,
      p50: pct(delays, 50),
      p99: pct(delays, 99),
      cpuUsPerPing: result['2xx'] ? (cpu * 1000) / result['2xx'] : NaN,
      cpuCores: cpu / (seconds * 1000),
      load: os.loadavg()[0],
      firstFixAfter: firstFixMs + Math.max(...counters) * 1000 + 1000,
    };
  } finally {
    for (const v of open) v.close();
    await lb?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

export default async function clusterBench() {
  haproxyBinary();
  buildServer();
  const name = `rb_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
  try {
    const race = await seedLiveRace(database.db, {
      runners: RUNNERS,
      clockStartMs: Date.now() - 60 * 60_000,
      courseLengthM: 50_000,
    });
    await database.close();
    console.log(
      `race of ${RUNNERS} runners; ${CONNECTIONS} ping clients for ${LOAD_S} s per scenario, through HAProxy; ` +
        `built server (node ${BUILT_SERVER.replace(/.*\/apps\//, 'apps/')}), NODE_ENV=production`,
    );
    let firstFixMs = Date.now() - 50 * 60_000;
    const results = [];
    for (const s of SCENARIOS) {
      const r = await scenario(url.toString(), race, s.processes, s.viewers, firstFixMs);
      firstFixMs = r.firstFixAfter;
      results.push(r);
      console.log(
        `${r.processes} process${r.processes > 1 ? 'es' : ''}, ${r.viewers} viewers: ${r.pingsPerS.toFixed(0)} pings/s acked ` +
          `over ${r.seconds.toFixed(1)} s (not acked: ${r.non2xx || 'none'}; ${r.errors} errors/timeouts), ` +
          `${r.updatesPerS.toFixed(0)} viewer messages/s; ` +
          `probes shown ${(r.shownShare * 100).toFixed(1)} % ` +
          `of the pings sent, ping→viewer p50 ${r.p50} ms, p99 ${r.p99} ms; server CPU ${r.cpuUsPerPing.toFixed(0)} µs ` +
          `per ping (${r.cpuCores.toFixed(2)} cores); machine load average ${r.load.toFixed(1)} on ${os.cpus().length} cores`,
      );
    }
    for (const v of [...new Set(SCENARIOS.map((s) => s.viewers))]) {
      const one = results.find((r) => r.processes === 1 && r.viewers >= v * 0.99 && r.viewers <= v);
      const three = results.find((r) => r.processes === 3 && r.viewers >= v * 0.99 && r.viewers <= v);
      if (one && three)
        console.log(
          `${v} viewers: 3 processes / 1 process: pings/s ${(three.pingsPerS / one.pingsPerS).toFixed(2)}, ` +
            `p99 ping→viewer ${three.p99} vs ${one.p99} ms (same 2 cores for all: the cluster adds processes, not CPU)`,
        );
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
