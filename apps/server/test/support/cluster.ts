import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { lockKey } from '../../src/jobs/lock';
import { freePort } from './free-port';
import { osmandUrl, type SeededRunner } from './live-seed';
import { connectSse, type SseConnection, type SseEvent } from './sse-client';

/**
 * A small cluster for the reliability tests: server processes (apps/server/src/server.ts through tsx) on fixed
 * ports so a killed one comes back where the load balancer expects it, a real HAProxy in front (round-robin, health
 * check on /api/ready, long timeouts for SSE, the serving process named in an `X-Served-By` answer header), device
 * loops that retry until acked, live viewers that reconnect with Last-Event-ID, and who holds a job's advisory lock.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value (not undefined) or the deadline passes (then undefined). */
export async function waitUntil<T>(
  check: () => Promise<T | undefined> | T | undefined,
  deadlineMs: number,
  everyMs = 100,
): Promise<T | undefined> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) return undefined;
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Server processes

export interface ClusterNode {
  /** Also the PostgreSQL application_name of its connections and HAProxy's server name. */
  readonly name: string;
  readonly port: number;
  readonly url: string;
  child: ChildProcess | null;
  output(): string;
  /** Starts (or restarts) the process on its port; resolves once /api/ready answers 200. */
  start(): Promise<void>;
  /** kill -9, resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** `databaseUrl` with `application_name` set, so pg_stat_activity tells which process a backend serves. */
export function withApplicationName(databaseUrl: string, name: string): string {
  const u = new URL(databaseUrl);
  u.searchParams.set('application_name', name);
  return u.toString();
}

export async function clusterNode(
  name: string,
  databaseUrl: string,
  env: Record<string, string> = {},
  /** A built server's entry (e.g. apps/server/dist/server.js) instead of the sources through tsx (the benches). */
  entry?: string,
): Promise<ClusterNode> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const node: ClusterNode = {
    name,
    port,
    url,
    child: null,
    output: () => out,
    async start() {
      if (node.child && node.child.exitCode === null && node.child.signalCode === null) return;
      out += `--- start ${new Date().toISOString()}\n`;
      const args = entry ? ['--enable-source-maps', entry] : ['--import', 'tsx', 'apps/server/src/server.ts'];
      const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_URL: url,
          DEMO: 'off',
          LOG_LEVEL: 'warn',
          MQTT_URL: '',
          DATABASE_URL: withApplicationName(databaseUrl, name),
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      node.child = child;
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      const ready = await waitUntil(
        async () => {
          if (child.exitCode !== null || child.signalCode !== null) throw new Error('exited');
          const res = await fetch(`${url}/api/ready`);
          return res.status === 200 ? true : undefined;
        },
        60_000,
        200,
      );
      if (!ready) {
        child.kill('SIGKILL');
        throw new Error(`${name} did not become ready within 60 s (or exited):\n${out.slice(-3000)}`);
      }
    },
    async kill() {
      const c = node.child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    },
    async stop() {
      const c = node.child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
  return node;
}

// ---------------------------------------------------------------------------------------------------------------
// HAProxy

/** Debian's haproxy binary; throws (the test fails, it is not skipped) when it is not installed. */
export function haproxyBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  if (found.status !== 0 || !bin)
    throw new Error(
      'The cluster tests need HAProxy as their load balancer, and no `haproxy` is on PATH: install it ' +
        '(`apt-get install -y haproxy`, as .ci/run does).',
    );
  return bin;
}

export interface Balancer {
  url: string;
  config: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The test's HAProxy configuration: deploy/haproxy.cfg's rules (health check on /api/ready, retry a refused
 * connection or an empty answer elsewhere, one-hour timeouts for the live streams) with fixed local servers,
 * round-robin, a faster health check, and `X-Served-By: <server>` on every answer.
 */
export function haproxyConfig(port: number, nodes: { name: string; port: number }[]): string {
  return [
    'global',
    '    maxconn 4000',
    'defaults',
    '    mode http',
    '    timeout connect 2s',
    '    timeout client 1h',
    '    timeout server 1h',
    '    timeout http-request 10s',
    '    timeout http-keep-alive 10s',
    '    timeout queue 10s',
    '    retries 3',
    '    option redispatch 1',
    '    retry-on conn-failure empty-response',
    'frontend web',
    `    bind 127.0.0.1:${port}`,
    '    default_backend app',
    'backend app',
    '    balance roundrobin',
    '    option httpchk',
    '    http-check send meth GET uri /api/ready',
    '    http-check expect status 200',
    '    http-response set-header X-Served-By %[srv_name]',
    '    default-server inter 1s fall 2 rise 2',
    ...nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.port} check`),
    '',
  ].join('\n');
}

/** Starts HAProxy in front of `nodes`; resolves once every node has answered through it. */
export async function startBalancer(nodes: { name: string; port: number }[]): Promise<Balancer> {
  const bin = haproxyBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rb-haproxy-'));
  const port = await freePort();
  const config = haproxyConfig(port, nodes);
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const check = spawnSync(bin, ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c refused the test configuration:\n${check.stderr}`);
  const child = spawn(bin, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const seen = new Set<string>();
  const all = await waitUntil(
    async () => {
      const res = await fetch(`${url}/api/ready`);
      const by = res.headers.get('x-served-by');
      if (res.status === 200 && by) seen.add(by);
      return seen.size === nodes.length ? true : undefined;
    },
    30_000,
    50,
  );
  if (!all) {
    await stop();
    throw new Error(`HAProxy did not reach every node within 30 s (saw ${[...seen]}):\n${out}`);
  }
  return { url, config, output: () => out, stop };
}

// ---------------------------------------------------------------------------------------------------------------
// Devices

export interface AckedPing {
  deviceId: number;
  runnerId: number;
  /** Fix time, whole seconds (ms since epoch). */
  t: number;
  /** Who answered 200 (X-Served-By through the balancer). */
  by: string | null;
  /** When the ack arrived (ms since epoch). */
  at: number;
}

export interface DeviceLoadStats {
  acked: AckedPing[];
  /** Answers other than 200 (and failed connections as 0), by status. */
  refused: Map<number, number>;
  attempts: number;
}

/**
 * Devices sending real OsmAnd pings one after another, each retried until it is acked (200) as a tracker does; a
 * new fix every ping (1 s apart in fix time, moving north). `stop()` ends the loops after their current ping and
 * resolves with what was acked. `onAnswer` sees every answer (e.g. to watch 503s).
 */
export function deviceLoad(opts: {
  base: string;
  /** A device's own server, when not `base` (e.g. a process directly rather than the balancer). */
  baseFor?: (runner: SeededRunner) => string | undefined;
  runners: SeededRunner[];
  /** Fix time of each device's first ping. */
  firstFixMs: number;
  /** Pause between a device's acked ping and its next one. */
  pauseMs?: number;
  /** Pause before retrying a refused ping. */
  retryMs?: number;
  /** Most pings per device (stops on its own after). */
  maxPings?: number;
  position?: (k: number) => { lat: number; lon: number };
  onAnswer?: (status: number, runner: SeededRunner) => void;
}): { stats: DeviceLoadStats; stop(): Promise<DeviceLoadStats>; done: Promise<DeviceLoadStats> } {
  const stats: DeviceLoadStats = { acked: [], refused: new Map(), attempts: 0 };
  let stopping = false;
  const loops = opts.runners.map(async (runner) => {
    for (let k = 0; !stopping && k < (opts.maxPings ?? Infinity); k++) {
      const t = Math.floor(opts.firstFixMs / 1000) * 1000 + k * 1000;
      const at = opts.position ? opts.position(k) : { lat: 46 + k * 0.0005, lon: 7 };
      const url = osmandUrl(opts.baseFor?.(runner) ?? opts.base, runner, { t, ...at, batteryPercent: 90 });
      for (;;) {
        stats.attempts++;
        let status = 0;
        let by: string | null = null;
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
          status = res.status;
          by = res.headers.get('x-served-by');
          await res.arrayBuffer();
        } catch {
          status = 0;
        }
        opts.onAnswer?.(status, runner);
        if (status === 200) {
          stats.acked.push({ deviceId: runner.deviceId, runnerId: runner.runnerId, t, by, at: Date.now() });
          break;
        }
        stats.refused.set(status, (stats.refused.get(status) ?? 0) + 1);
        // A device whose ping was not acked sends the same fix again (the store ignores a duplicate).
        if (stopping) return;
        await sleep(opts.retryMs ?? 200);
      }
      if (opts.pauseMs) await sleep(opts.pauseMs);
    }
  });
  const done = Promise.all(loops).then(() => stats);
  return {
    stats,
    done,
    async stop() {
      stopping = true;
      return done;
    },
  };
}

/** Acked pings that are not in the positions table (matched on device and fix time). */
export async function missingAcked(databaseUrl: string, acked: AckedPing[]): Promise<AckedPing[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const res = await c.query<{ i: number }>(
      `SELECT a.i FROM unnest($1::int[], $2::float8[]) WITH ORDINALITY AS a(device_id, ms, i)
       WHERE NOT EXISTS (
         SELECT 1 FROM positions p
         WHERE p.device_id = a.device_id AND p.fix_time = to_timestamp(a.ms / 1000.0))`,
      [acked.map((a) => a.deviceId), acked.map((a) => a.t)],
    );
    return res.rows.map((r) => acked[Number(r.i) - 1]);
  } finally {
    await c.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Jobs

/** The application_name of the process whose connection holds the job's advisory lock (null when none does). */
export async function jobLockHolder(databaseUrl: string, job: string): Promise<string | null> {
  const [ns, key] = lockKey(job);
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // Advisory locks on (int4, int4): classid = the first key, objid = the second, objsubid = 2.
    const res = await c.query<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
         AND l.classid = ($1::int)::oid AND l.objid = ($2::bigint & 4294967295)::oid`,
      [ns, key],
    );
    return res.rows[0]?.name ?? null;
  } finally {
    await c.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Live viewers

interface Snapshot {
  Trails: { RunnerId: number; Trail: [number, number, number][] }[];
}
interface Update {
  Fixes: [number, number, number, number][];
}

/**
 * A live viewer as a browser's EventSource behaves: when its stream ends it reconnects (after `reconnectMs`)
 * to the same URL, sending the last event id it received. Its state is what a client shows: a snapshot replaces it,
 * an update adds its fixes. It records where each connection landed (X-Served-By) and when.
 */
export class LiveViewer {
  conn: SseConnection | null = null;
  /** Fix times known per runner (snapshot trails + update fixes since). */
  readonly fixes = new Map<number, Set<number>>();
  lastEventId: string | undefined;
  readonly connections: { by: string | null; at: number; status: number; lastEventId?: string }[] = [];
  /** The first event of each connection after the first one. */
  readonly resumedWith: string[] = [];
  /** The `retry:` hints received (ms), in order, with the connection they came on (0: the first). */
  readonly retries: { ms: number; connection: number; at: number }[] = [];
  /** When the stream last ended, and when the first event on the next connection arrived. */
  readonly gaps: { endedAt: number; firstEventAt?: number }[] = [];
  /** Every event received (heartbeats aside), when, on which connection (0: the first). */
  readonly received: { at: number; event: string; connection: number }[] = [];
  private closed = false;
  private consumed = 0;

  constructor(
    readonly url: string,
    private readonly reconnectMs = 500,
  ) {}

  async connect(): Promise<void> {
    const headers: Record<string, string> = {};
    if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
    const conn = await connectSse(this.url, headers);
    this.connections.push({
      by: (conn.headers['x-served-by'] as string | undefined) ?? null,
      at: Date.now(),
      status: conn.status,
      lastEventId: this.lastEventId,
    });
    this.conn = conn;
    this.consumed = 0;
    const first = this.connections.length > 1;
    let sawFirst = false;
    const pump = () => {
      while (this.consumed < conn.events.length) {
        const e = conn.events[this.consumed++];
        if (first && !sawFirst && e.event !== 'message') {
          sawFirst = true;
          this.resumedWith.push(e.event);
          const gap = this.gaps.at(-1);
          if (gap && gap.firstEventAt === undefined) gap.firstEventAt = Date.now();
        }
        this.apply(e);
      }
    };
    const loop = async () => {
      let ended = false;
      void conn.ended.then(() => (ended = true));
      while (!ended) {
        pump();
        await sleep(50);
      }
      pump();
      if (this.closed) return;
      this.gaps.push({ endedAt: Date.now() });
      await sleep(this.reconnectMs);
      const ok = await waitUntil(
        async () => {
          if (this.closed) return true;
          await this.connect();
          if (this.conn?.status === 200) return true;
          this.conn?.close();
          return undefined;
        },
        30_000,
        this.reconnectMs,
      );
      if (!ok && !this.closed) throw new Error(`viewer could not reconnect to ${this.url}`);
    };
    if (conn.status === 200) void loop().catch(() => {});
  }

  private apply(e: SseEvent) {
    if (e.retry !== undefined)
      this.retries.push({ ms: e.retry, connection: this.connections.length - 1, at: Date.now() });
    this.received.push({ at: Date.now(), event: e.event, connection: this.connections.length - 1 });
    if (e.id) this.lastEventId = e.id;
    if (e.event === 'snapshot') {
      const s = JSON.parse(e.data) as Snapshot;
      this.fixes.clear();
      for (const { RunnerId, Trail } of s.Trails) this.fixes.set(RunnerId, new Set(Trail.map((p) => p[0])));
    } else if (e.event === 'update') {
      const u = JSON.parse(e.data) as Update;
      for (const [runnerId, t] of u.Fixes) {
        let set = this.fixes.get(runnerId);
        if (!set) this.fixes.set(runnerId, (set = new Set()));
        set.add(t);
      }
    }
  }

  /** Acked pings this viewer's state does not show. */
  missing(acked: AckedPing[]): AckedPing[] {
    return acked.filter((a) => !this.fixes.get(a.runnerId)?.has(a.t));
  }

  /** Where the current connection landed. */
  servedBy(): string | null {
    return this.connections.at(-1)?.by ?? null;
  }

  close() {
    this.closed = true;
    this.conn?.close();
  }
}
