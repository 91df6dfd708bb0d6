import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import compressionPlugin, { acceptsEncoding, etagMatches, pickEncoding } from '../src/platform/compression';
import webAppPlugin, { IMMUTABLE } from '../src/platform/web-app';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;

describe('Accept-Encoding and ETag helpers', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', null],
    ['', null],
    ['gzip;q=0', null],
  ])('%j → %s', (header, expected) => {
    expect(pickEncoding(header)).toBe(expected);
  });
  it('accepts gzip only when not refused', () => {
    expect(acceptsEncoding('br, gzip;q=0.5', 'gzip')).toBe(true);
    expect(acceptsEncoding('br, gzip;q=0', 'gzip')).toBe(false);
    expect(acceptsEncoding('br', 'gzip')).toBe(false);
  });
  it('compares weakly', () => {
    expect(etagMatches('W/"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('*', 'W/"abc"')).toBe(true);
    expect(etagMatches('W/"abd"', 'W/"abc"')).toBe(false);
    expect(etagMatches(undefined, 'W/"abc"')).toBe(false);
  });
});

/** A GET over real HTTP, raw bytes (Node's fetch would decode them). */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(url, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    },
  );
}

describe.each(dbKinds)('compression and ETags on the API (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let base: string;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 40, clockStartMs: now - 60 * MIN });
    for (const [i, r] of race.runners.entries()) {
      await postFixes(t.app, race.raceId, r, [{ t: now - 5 * MIN, ...pointAlong(1000 + i * 50) }]);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  it('sends the leaderboard in brotli or gzip, each decoding to the same JSON as the plain answer', async () => {
    const url = `${base}/api/open/races/${race.raceId}/leaderboard`;
    const plain = await rawGet(url);
    const br = await rawGet(url, { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await rawGet(url, { 'accept-encoding': 'gzip' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    const json = JSON.parse(plain.body.toString()) as unknown[];
    expect(json).toHaveLength(40);
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(json);
    expect(JSON.parse(gunzipSync(gz.body).toString())).toEqual(json);
    expect(br.body.length).toBeLessThan(plain.body.length / 4);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
  });

  it('compresses serialised answers too (race list, positions, course track)', async () => {
    for (const p of [`/api/open/races`, `/api/open/races/${race.raceId}/positions`]) {
      const res = await rawGet(`${base}${p}`, { 'accept-encoding': 'gzip' });
      expect(res.status, p).toBe(200);
      if (res.body.length >= 1024 || res.headers['content-encoding']) {
        expect(res.headers['content-encoding'], p).toBe('gzip');
        expect(() => JSON.parse(gunzipSync(res.body).toString()), p).not.toThrow();
      }
    }
    const positions = await rawGet(`${base}/api/open/races/${race.raceId}/positions`, {
      'accept-encoding': 'br',
    });
    expect(positions.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(positions.body).toString())).toHaveLength(40);
  });

  it('answers 304 to If-None-Match with the ETag of an unchanged answer, 200 with a new one after a change', async () => {
    for (const p of [
      `/api/open/races/${race.raceId}`,
      `/api/open/races/${race.raceId}/leaderboard`,
      `/api/open/races/${race.raceId}/positions`,
      `/api/open/races/${race.raceId}/course-track`,
      `/api/open/runners/${race.raceId}`,
    ]) {
      const first = await t.app.inject({ url: p });
      expect(first.statusCode, p).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag, p).toMatch(/^W\/".+"$/);
      const again = await t.app.inject({ url: p, headers: { 'if-none-match': etag } });
      expect(again.statusCode, p).toBe(304);
      expect(again.body, p).toBe('');
      expect(again.headers.etag, p).toBe(etag);
      const other = await t.app.inject({ url: p, headers: { 'if-none-match': 'W/"something-else"' } });
      expect(other.statusCode, p).toBe(200);
    }
    const lb = `/api/open/races/${race.raceId}/leaderboard`;
    const before = (await t.app.inject({ url: lb })).headers.etag as string;
    await postFixes(t.app, race.raceId, race.runners[0], [{ t: now - MIN, ...pointAlong(9000) }]);
    const after = await t.app.inject({ url: lb, headers: { 'if-none-match': before } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before);
  });

  it('gives no ETag to answers that are not plain reads (a 404, a POST)', async () => {
    const missing = await t.app.inject({ url: '/api/open/races/999999' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
  });

  it('still streams the live SSE through gzip: snapshot at once, an update as soon as a fix arrives', async () => {
    const { events, headers, close } = await gzipSse(`${base}/api/open/races/${race.raceId}/live`);
    try {
      expect(headers['content-encoding']).toBe('gzip');
      expect(headers['content-type']).toMatch(/text\/event-stream/);
      const snapshot = await events.next((e) => e.event === 'snapshot');
      expect((JSON.parse(snapshot.data) as { Rows: unknown[] }).Rows).toHaveLength(40);
      await postFixes(t.app, race.raceId, race.runners[1], [{ t: now - 30_000, ...pointAlong(9500) }]);
      const update = await events.next((e) => e.event === 'update');
      const msg = JSON.parse(update.data) as { Rows: { RunnerId: number }[] };
      expect(msg.Rows.map((r) => r.RunnerId)).toContain(race.runners[1].runnerId);
    } finally {
      close();
    }
  });

  it('leaves the SSE stream plain for a client that does not accept gzip', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(
        `${base}/api/open/races/${race.raceId}/live`,
        { headers: { 'accept-encoding': 'br' } },
        resolve,
      );
      req.on('error', reject);
    });
    expect(res.headers['content-encoding']).toBeUndefined();
    const first = await new Promise<string>((resolve) =>
      res.once('data', (c: Buffer) => resolve(c.toString())),
    );
    expect(first).toMatch(/^retry: \d+/);
    res.destroy();
  });
});

interface Ev {
  event: string;
  data: string;
}

/** An SSE reader that asks for gzip and decodes the stream piece by piece as it arrives. */
function gzipSse(url: string) {
  return new Promise<{
    headers: http.IncomingHttpHeaders;
    events: { next(match: (e: Ev) => boolean): Promise<Ev> };
    close(): void;
  }>((resolve, reject) => {
    const req = http.get(
      url,
      { headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip' } },
      (res) => {
        const seen: Ev[] = [];
        const taken = new Set<number>();
        let wake: (() => void) | null = null;
        let buf = '';
        const gunzip = createGunzip();
        res.pipe(gunzip);
        gunzip.setEncoding('utf8');
        gunzip.on('data', (chunk: string) => {
          buf += chunk;
          let idx: number;
          while ((idx = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, idx);
            buf = buf.slice(idx + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event && data !== undefined) seen.push({ event, data });
          }
          wake?.();
        });
        gunzip.on('error', () => {});
        const next = async (match: (e: Ev) => boolean): Promise<Ev> => {
          const deadline = Date.now() + 10_000;
          for (;;) {
            const i = seen.findIndex((e, k) => !taken.has(k) && match(e));
            if (i >= 0) {
              taken.add(i);
              return seen[i];
            }
            if (Date.now() > deadline) throw new Error('no matching event within 10 s');
            await new Promise<void>((r) => {
              wake = r;
              setTimeout(r, 200);
            });
          }
        };
        resolve({ headers: res.headers, events: { next }, close: () => req.destroy() });
      },
    );
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}

describe('the web app files: caching and precompressed assets', () => {
  let dir: string;
  const app = Fastify({ logger: false });
  const js = 'console.log("hello from a hashed asset");\n'.repeat(100);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rb-web-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(
      path.join(dir, 'index.html'),
      `<!doctype html><title>x</title>${'<!-- pad -->'.repeat(200)}`,
    );
    writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), js);
    writeFileSync(path.join(dir, 'assets', 'index-AbC123.js.br'), brotliCompressSync(js));
    writeFileSync(path.join(dir, 'assets', 'index-AbC123.js.gz'), gzipSync(js));
    writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *\n');
    const config = { TILE_URL: '/tiles/{z}/{x}/{y}.png', publicUrl: 'http://localhost', embeddedIdp: true };
    app.decorate('config', config as never);
    await app.register((await import('../src/platform/security-headers')).default);
    await app.register(compressionPlugin);
    await app.register(webAppPlugin, { root: dir });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a hashed asset immutable for a year, precompressed brotli or gzip', async () => {
    const br = await app.inject({
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['cache-control']).toBe(IMMUTABLE);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(js);
    const gz = await app.inject({ url: '/assets/index-AbC123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(js);
    const plain = await app.inject({ url: '/assets/index-AbC123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(js);
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('serves index.html and the SPA fallback with no-cache, revalidated by ETag', async () => {
    for (const url of ['/', '/races/12', '/embed/race/3']) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-encoding'], url).toBe('gzip');
      expect(gunzipSync(res.rawPayload).toString(), url).toMatch(/^<!doctype html>/);
      const etag = res.headers.etag as string;
      expect(etag, url).toBeTruthy();
      const again = await app.inject({ url, headers: { 'if-none-match': etag } });
      expect(again.statusCode, url).toBe(304);
    }
  });

  it('keeps other files an hour', async () => {
    const res = await app.inject({ url: '/robots.txt' });
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
  });
});
