import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { ConfigError, loadConfig } from '../src/config';
import {
  defaultMaxStreams,
  MAX_STREAMS_CEILING,
  MAX_STREAMS_UNKNOWN_LIMIT,
  openFileLimit,
} from '../src/live/sse-hub';
import { clientKey as streamClientKey } from '../src/lib/client-key';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';

/**
 * Issue 9, defect 6: one anonymous client held ~1,970 SSE streams at a 2,048 file-descriptor limit and every new
 * connection failed, pings included. Streams are now capped per client address (429) and per process (503), both
 * answered with Retry-After and JSON before any SSE byte, and the total cap leaves descriptors for ingest and the
 * API. Real streams against a listening server, from several loopback addresses (127.0.0.x are all this host), so
 * each address is a different client.
 */

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole body of a refusal; for a stream, what arrived up to its snapshot. */
  body: string;
  close(): void;
}

/** Opens GET `url` from `localAddress` on a connection of its own; a 200 resolves once its snapshot has arrived. */
function openStream(url: string, localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { localAddress, agent: false, headers: { accept: 'text/event-stream' } },
      (res) => {
        let body = '';
        const opened = (): Opened => ({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          close: () => req.destroy(),
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (res.statusCode === 200 && body.includes('event: snapshot')) resolve(opened());
        });
        res.on('end', () => resolve(opened()));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** Waits (bounded) until `cond` holds: the server notices a closed stream when its socket closes. */
async function until(cond: () => boolean, what: string) {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function expectRefusal(r: Opened, status: number, error: string) {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  // Nothing of a stream was written: the body is the JSON error alone.
  const body = JSON.parse(r.body) as { error: string; message: string };
  expect(body).toEqual({ error, message: expect.any(String) as string });
  expect(body.message.length).toBeGreaterThan(20);
}

describe.each(dbKinds)('live stream caps on a listening server (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let base: string;
  let live: string;
  const open: Opened[] = [];
  const stream = async (from: string) => {
    const s = await openStream(live, from);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { LIVE_MAX_STREAMS: '4', LIVE_MAX_STREAMS_PER_CLIENT: '2' });
    race = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: Date.now() - 30 * 60_000 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    live = `${base}/api/open/races/${race.raceId}/live`;
  });
  afterEach(async () => {
    for (const s of open.splice(0)) s.close();
    await until(() => t.app.live.streamCount() === 0, 'every stream closed');
  });
  afterAll(async () => t?.close());

  it('takes the caps from the configuration', () => {
    expect(t.config.liveMaxStreams).toBe(4);
    expect(t.config.LIVE_MAX_STREAMS_PER_CLIENT).toBe(2);
  });

  it('answers 429 with Retry-After past the per-client cap, other addresses unaffected; closing a stream frees its slot', async () => {
    const [a1, a2] = [await stream('127.0.0.2'), await stream('127.0.0.2')];
    expect([a1.status, a2.status]).toEqual([200, 200]);
    expect(a1.body).toContain('event: snapshot');

    const refused = await stream('127.0.0.2');
    expectRefusal(refused, 429, 'too_many_streams');
    expect(JSON.parse(refused.body).message).toContain('2 live streams');
    expect(Number(refused.headers['retry-after'])).toBe(30);
    expect(t.app.live.streamCount('127.0.0.2')).toBe(2);

    const other = await stream('127.0.0.3');
    expect(other.status).toBe(200);
    expect(t.app.live.streamCount()).toBe(3);

    a1.close();
    await until(() => t.app.live.streamCount('127.0.0.2') === 1, "the closed stream's slot back");
    const again = await stream('127.0.0.2');
    expect(again.status).toBe(200);
    expect(again.body).toContain('event: snapshot');
    expect(t.app.live.streamCount('127.0.0.2')).toBe(2);
  });

  it('answers 503 with Retry-After past the total cap while pings, API reads and health still answer', async () => {
    for (const from of ['127.0.0.4', '127.0.0.4', '127.0.0.5', '127.0.0.5'])
      expect((await stream(from)).status).toBe(200);
    expect(t.app.live.streamCount()).toBe(4);

    const refused = await stream('127.0.0.6');
    expectRefusal(refused, 503, 'streams_full');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(15);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // A client at its own cap is told that, even when the server is full too.
    expectRefusal(await stream('127.0.0.4'), 429, 'too_many_streams');

    // At the cap, a device's ping is stored and the API answers with it.
    const runner = race.runners[0];
    const fixTime = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    const ping = await fetch(
      osmandUrl(base, runner, { t: fixTime, ...pointAlong(2500), batteryPercent: 77 }),
      {
        method: 'POST',
      },
    );
    expect(ping.status).toBe(200);
    const lb = await fetch(`${base}/api/open/races/${race.raceId}/leaderboard`);
    expect(lb.status).toBe(200);
    const rows = (await lb.json()) as LeaderboardRow[];
    expect(rows[0]).toMatchObject({ RunnerId: runner.runnerId, Rank: 1, BatteryState: '77%' });
    expect(rows[0].DistanceKm).toBeCloseTo(2.5, 2);
    expect(rows[0].LastPingTime).toBe(new Date(fixTime).toISOString());
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect(t.app.live.streamCount()).toBe(4);

    open[0].close();
    await until(() => t.app.live.streamCount() === 3, "the closed stream's slot back");
    const admitted = await stream('127.0.0.6');
    expect(admitted.status).toBe(200);
    // The new viewer's snapshot has the ping stored while the server was full.
    expect(admitted.body).toContain('"BatteryState":"77%"');
  });

  it('gives the slot back when a stream does not open (race not found)', async () => {
    for (let i = 0; i < 5; i++) {
      const missing = await openStream(`${base}/api/open/races/2147483000/live`, '127.0.0.7');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toMatchObject({ error: 'race_not_found' });
    }
    expect(t.app.live.streamCount('127.0.0.7')).toBe(0);
    expect((await stream('127.0.0.7')).status).toBe(200);
    expect((await stream('127.0.0.7')).status).toBe(200);
    expectRefusal(await stream('127.0.0.7'), 429, 'too_many_streams');
  });
});

describe('stream cap settings', () => {
  it('defaults the total cap from the open-file limit, leaving a quarter (at least 256) for pings and the API', () => {
    // The host: 2,048 descriptors; the runaway client held ~1,970 of them.
    expect(defaultMaxStreams(2048)).toBe(1536);
    expect(defaultMaxStreams(1024)).toBe(768);
    expect(defaultMaxStreams(600)).toBe(344);
    expect(defaultMaxStreams(200)).toBe(1);
    expect(defaultMaxStreams(1_048_576)).toBe(MAX_STREAMS_CEILING);
    expect(defaultMaxStreams(Infinity)).toBe(MAX_STREAMS_CEILING);
    expect(defaultMaxStreams(null)).toBe(MAX_STREAMS_UNKNOWN_LIMIT);
  });

  it('reads the defaults at boot and validates explicit values', () => {
    const c = loadConfig({ LOG_LEVEL: 'silent' });
    expect(c.LIVE_MAX_STREAMS_PER_CLIENT).toBe(50);
    expect(c.liveMaxStreams).toBe(defaultMaxStreams(openFileLimit()));
    const limit = openFileLimit();
    if (limit !== null && Number.isFinite(limit)) expect(c.liveMaxStreams).toBeLessThanOrEqual(limit - 256);
    // Empty values (as in .env.example) mean the default.
    expect(loadConfig({ LIVE_MAX_STREAMS: '', LIVE_MAX_STREAMS_PER_CLIENT: '' })).toMatchObject({
      liveMaxStreams: c.liveMaxStreams,
      LIVE_MAX_STREAMS_PER_CLIENT: 50,
    });
    expect(loadConfig({ LIVE_MAX_STREAMS: '12000', LIVE_MAX_STREAMS_PER_CLIENT: '0' })).toMatchObject({
      liveMaxStreams: 12000,
      LIVE_MAX_STREAMS_PER_CLIENT: 0,
    });
    for (const [name, value] of [
      ['LIVE_MAX_STREAMS', '0'],
      ['LIVE_MAX_STREAMS', 'many'],
      ['LIVE_MAX_STREAMS', '2.5'],
      ['LIVE_MAX_STREAMS_PER_CLIENT', '-1'],
    ]) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
    }
  });

  it('counts an IPv4 address as one client and an IPv6 address by its /64', () => {
    expect(streamClientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(streamClientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    const a = streamClientKey('2001:db8:aa:bb:1::1');
    expect(a).toBe('2001:db8:aa:bb::/64');
    expect(streamClientKey('2001:0db8:00aa:00bb:ffff:ffff:ffff:fffe')).toBe(a);
    expect(streamClientKey('2001:db8:aa:bb::')).toBe(a);
    expect(streamClientKey('2001:db8:aa:bc::1')).not.toBe(a);
    expect(streamClientKey('::1')).toBe('0:0:0:0::/64');
    expect(streamClientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
