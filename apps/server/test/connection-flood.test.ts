import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { defaultMaxConnectionsPerClient, proxyPeer } from '../src/platform/connection-limit';
import { loadConfig } from '../src/config';
import { osmandUrl, pointAlong, type SeededRunner } from './support/live-seed';

/**
 * Issue 23, "Connections": one address opening 1,500 live streams under `ulimit -n 1024` got 50 streams and 945
 * refusals whose connections stayed open (keep-alive), the process ran out of descriptors and a tracker's ping was
 * reset. Here a real server process runs under `ulimit -n 256` and one address (127.0.0.2) opens 400 keep-alive
 * connections asking for the live stream at once; a tracker ping and an API read from 127.0.0.1 must still answer.
 */

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const FD_LIMIT = 256;
const FLOOD = 400;

interface FloodResult {
  status: number;
  /** Everything the server sent before closing (or up to the stream's first bytes). */
  text: string;
  /** The server ended or reset the connection. */
  closed: boolean;
  socket: net.Socket;
}

/** One keep-alive connection from `localAddress` asking for `path`; settles on a status line, a close or after 5 s. */
function floodOne(port: number, path: string, localAddress: string): Promise<FloodResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const r: FloodResult = { status: 0, text: '', closed: false, socket };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      resolve(r);
    };
    const stall = setTimeout(settle, 5_000);
    socket.on('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nConnection: keep-alive\r\n\r\n`,
      ),
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      r.text += chunk;
      r.status ||= Number(/^HTTP\/1\.1 (\d{3})/.exec(r.text)?.[1] ?? 0);
      if (r.status === 200) settle();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      r.closed = true;
      settle();
    });
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: string };

describe('a flood of live streams from one address under a low open-file limit', () => {
  let child: ChildProcess;
  let port = 0;
  let raceId = 0;
  let runner: SeededRunner;

  beforeAll(async () => {
    child = spawn(
      'bash',
      [
        '-c',
        `ulimit -n ${FD_LIMIT} && exec "${process.execPath}" --import tsx test/connection-flood-child.ts`,
      ],
      {
        cwd: serverDir,
        env: {
          ...process.env,
          DATABASE_URL: '',
          OIDC_ISSUER: '',
          MQTT_URL: '',
          // The total stream cap out of the way: the flood meets the per-client caps only.
          LIVE_MAX_STREAMS: '100',
          LIVE_MAX_STREAMS_PER_CLIENT: '',
          MAX_CONNECTIONS_PER_CLIENT: '',
          ALERT_SWEEP_SECONDS: '0',
          PUSH_NOTIFY_SECONDS: '0',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      lines.on('line', (line) => {
        try {
          const msg = JSON.parse(line) as { port: number; raceId: number; runner: SeededRunner };
          ({ port, raceId, runner } = msg);
          resolve();
        } catch {
          // not ours
        }
      });
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('refuses past the caps and closes the refused connections; a ping and a read from another address answer', async () => {
    // The cap the server derived: 50 streams + 50, at most a quarter of 256 descriptors.
    const cap = defaultMaxConnectionsPerClient(50, FD_LIMIT);
    expect(cap).toBe(64);

    const path = `/api/open/races/${raceId}/live`;
    const flood = await Promise.all(Array.from({ length: FLOOD }, () => floodOne(port, path, '127.0.0.2')));
    const streams = flood.filter((r) => r.status === 200);
    const refused = flood.filter((r) => r.status !== 200);
    // The address's 50 streams (LIVE_MAX_STREAMS_PER_CLIENT) are served.
    expect(streams.length).toBe(50);
    expect(streams.every((s) => !s.closed && s.text.includes('event: snapshot'))).toBe(true);
    // Every other connection was closed by the server: none is left holding a descriptor.
    expect(refused.filter((r) => !r.closed).length).toBe(0);
    // Those answered got 429 with Connection: close and {error, message}: the stream cap, then the connection cap.
    const answered = refused.filter((r) => r.status !== 0);
    expect(answered.every((r) => r.status === 429 && /\r\nconnection: close\r\n/i.test(r.text))).toBe(true);
    const errors = new Set(answered.map((r) => bodyOf(r.text).error));
    expect(errors).toEqual(new Set(['too_many_streams', 'too_many_connections']));

    // A tracker's ping and a reader's API call from another address answer, while the 50 streams stay open.
    const base = `http://127.0.0.1:${port}`;
    const fixTime = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    const ping = await fetch(
      osmandUrl(base, runner, { t: fixTime, ...pointAlong(1200), batteryPercent: 64 }),
      {
        method: 'POST',
        signal: AbortSignal.timeout(10_000),
      },
    );
    expect(ping.status).toBe(200);
    const lb = await fetch(`${base}/api/open/races/${raceId}/leaderboard`, {
      signal: AbortSignal.timeout(10_000),
    });
    expect(lb.status).toBe(200);
    const rows = (await lb.json()) as LeaderboardRow[];
    expect(rows[0]).toMatchObject({ RunnerId: runner.runnerId, BatteryState: '64%' });
    expect(rows[0].DistanceKm).toBeCloseTo(1.2, 2);
    // The flooding address holds its 50 streams and may open up to the cap in all (kept-alive reads here); the
    // next connection gets 429 too_many_connections and is closed.
    const reads = await Promise.all(
      Array.from({ length: cap - 50 }, () => floodOne(port, '/api/health', '127.0.0.2')),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(cap - 50).fill(200));
    const more = await floodOne(port, '/api/health', '127.0.0.2');
    expect(more.status).toBe(429);
    expect(bodyOf(more.text)).toEqual({
      error: 'too_many_connections',
      message: expect.any(String) as string,
    });
    expect(more.text).toMatch(/\r\nretry-after: 10\r\n/i);
    expect(more.text).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(more.closed).toBe(true);

    for (const r of reads) r.socket.destroy();
    for (const s of streams) s.socket.destroy();
  }, 60_000);
});

describe('MAX_CONNECTIONS_PER_CLIENT', () => {
  it('defaults to the per-client stream cap + 50, at most a quarter of the open-file limit (at least 16); none without a stream cap', () => {
    expect(defaultMaxConnectionsPerClient(50, 20_000)).toBe(100);
    expect(defaultMaxConnectionsPerClient(50, 1024)).toBe(100);
    expect(defaultMaxConnectionsPerClient(50, 256)).toBe(64);
    expect(defaultMaxConnectionsPerClient(50, 32)).toBe(16);
    expect(defaultMaxConnectionsPerClient(500, 1_048_576)).toBe(550);
    // No per-client stream cap (a venue, a bench): no connection cap unless asked for.
    expect(defaultMaxConnectionsPerClient(0, 20_000)).toBe(0);
    expect(defaultMaxConnectionsPerClient(50, null)).toBe(100);
  });

  it('reads an explicit value, empty as the default, 0 as no cap, and refuses bad values', () => {
    expect(loadConfig({ MAX_CONNECTIONS_PER_CLIENT: '300' }).maxConnectionsPerClient).toBe(300);
    expect(loadConfig({ MAX_CONNECTIONS_PER_CLIENT: '0' }).maxConnectionsPerClient).toBe(0);
    expect(loadConfig({ LIVE_MAX_STREAMS_PER_CLIENT: '0' }).maxConnectionsPerClient).toBe(0);
    expect(
      loadConfig({ LIVE_MAX_STREAMS_PER_CLIENT: '0', MAX_CONNECTIONS_PER_CLIENT: '40' })
        .maxConnectionsPerClient,
    ).toBe(40);
    expect(loadConfig({ MAX_CONNECTIONS_PER_CLIENT: '' }).maxConnectionsPerClient).toBe(
      defaultMaxConnectionsPerClient(50),
    );
    for (const bad of ['-1', 'lots', '2.5'])
      expect(() => loadConfig({ MAX_CONNECTIONS_PER_CLIENT: bad })).toThrow(/MAX_CONNECTIONS_PER_CLIENT:/);
  });

  it('does not count the proxies TRUST_PROXY names (they carry every client’s connections)', () => {
    const listed = proxyPeer(['10.0.0.0/8', '::1', 'uniquelocal']);
    expect(['10.2.3.4', '::ffff:10.2.3.4', '::1', '192.168.1.9', 'fd00::5'].map(listed)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['203.0.113.9', '127.0.0.1', '2001:db8::1'].map(listed)).toEqual([false, false, false]);
    expect(proxyPeer(['loopback'])('127.0.0.9')).toBe(true);
    // A hop count: every peer is a proxy. Off: none is.
    expect(proxyPeer(1)('203.0.113.9')).toBe(true);
    expect(proxyPeer(false)('127.0.0.1')).toBe(false);
  });
});
