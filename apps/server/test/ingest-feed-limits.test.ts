import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MapSharePollJob, MAX_FEED_BYTES } from '../src/jobs/mapshare-poll-job';
import { MAX_SPOT_PAGE_BYTES, SpotPollJob } from '../src/jobs/spot-poll-job';
import type { SpotFeedRow } from '../src/ingest/spot-feed-repository';
import { addRace, addRunner, assign, deviceRow, positionsOf } from './ingest-fixtures';
import { mapShareKml } from './mapshare-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';

/**
 * Issue 24 items 8 and 11: a feed answer is read only up to its cap (a 60 MB chunked answer is abandoned, not
 * downloaded), and a MapShare redirect to another host is not followed (the MapShare password would go with it).
 * Against stand-ins on 127.0.0.1 (the feed) and "localhost" (another host, same machine).
 */

const TOTAL = 60 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** Writes `total` bytes chunked (no Content-Length) as fast as the client reads; resolves with the bytes written. */
function serveChunked(res: http.ServerResponse, total: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    let done = false;
    const finish = () => {
      if (!done) resolve(sent);
      done = true;
    };
    res.on('close', finish);
    res.writeHead(200, { 'content-type': 'application/vnd.google-earth.kml+xml' });
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}

describe('feed answers: size cap while reading, no redirect to another host', () => {
  let t: TestContext;
  let feedServer: http.Server;
  let otherServer: http.Server;
  let port = 0;
  let job: MapSharePollJob;
  let admin: string;
  let clock = Date.now();
  const written: Promise<number>[] = [];
  const otherRequests: { url: string; auth: string | undefined }[] = [];
  const feedRequests: string[] = [];

  beforeAll(async () => {
    feedServer = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      feedRequests.push(url.pathname);
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 10 * 60_000);
      if (url.pathname === '/Feed/Share/Huge' || url.pathname === '/spot/HUGE/message.json') {
        written.push(serveChunked(res, TOTAL));
      } else if (url.pathname === '/Feed/Share/Away') {
        res.writeHead(302, {
          location: `http://localhost:${otherPort()}/Feed/Share/Away?${url.searchParams}`,
        });
        res.end();
      } else if (url.pathname === '/Feed/Share/Moved') {
        res.writeHead(302, { location: `/Feed/Share/MovedHere?${url.searchParams}` });
        res.end();
      } else if (url.pathname === '/Feed/Share/MovedHere') {
        res.writeHead(200, { 'content-type': 'application/vnd.google-earth.kml+xml' });
        res.end(mapShareKml('Moved', [{ id: 1, at, lat: 46.5581, lon: 7.9112, ele: 1732 }]));
      } else {
        res.writeHead(404).end();
      }
    });
    otherServer = http.createServer((req, res) => {
      otherRequests.push({ url: req.url ?? '', auth: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/vnd.google-earth.kml+xml' });
      res.end(mapShareKml('Away', [{ id: 1, at: new Date(), lat: 1, lon: 1 }]));
    });
    await new Promise<void>((r) => feedServer.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => otherServer.listen(0, '127.0.0.1', r));
    port = (feedServer.address() as AddressInfo).port;
    const apiUrl = `http://127.0.0.1:${port}/Feed/Share`;
    t = await createTestApp('pglite', { MAPSHARE_API_URL: apiUrl });
    await t.app.jobs.stop();
    job = new MapSharePollJob({
      db: t.app.db,
      ingest: t.app.ingest,
      log: t.app.log,
      apiUrl,
      now: () => clock,
    });
    admin = await t.issuer.admin();
  });
  const otherPort = () => (otherServer.address() as AddressInfo).port;
  afterAll(async () => {
    await t?.close();
    feedServer.closeAllConnections();
    await new Promise((r) => feedServer.close(r));
    await new Promise((r) => otherServer.close(r));
  });

  async function mapShareDevice(name: string, password?: string) {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3 * 3600_000) });
    const runnerId = await addRunner(t.app, raceId, name);
    const res = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: `${name}'s inReach`, Source: 'mapshare', HardwareId: name, FeedPassword: password },
    });
    expect(res.statusCode, res.body).toBe(201);
    const deviceId = res.json().DeviceId as number;
    await assign(t.app, deviceId, raceId, runnerId, new Date(Date.now() - 4 * 3600_000));
    return deviceId;
  }

  it('a 60 MB chunked MapShare answer is abandoned at the cap: the feed error says so, the rest is never sent', async () => {
    const deviceId = await mapShareDevice('Huge');
    clock += 3600_000;
    await job.runOnce();
    const sent = await written[0];
    const device = await deviceRow(t.app, deviceId);
    expect(device.feedError).toMatch(new RegExp(`more than ${MAX_FEED_BYTES} bytes`));
    expect(await positionsOf(t.app, deviceId)).toEqual([]);
    // The connection was closed by the reader: the server wrote the cap plus what the socket buffers held, never
    // the 60 MB (before the fix: all of it, then the length check).
    expect(sent).toBeLessThan(TOTAL);
    expect(sent).toBeGreaterThan(MAX_FEED_BYTES);
  });

  it('a SPOT page is abandoned at its cap the same way', async () => {
    const spot = new SpotPollJob({
      db: t.app.db,
      ingest: t.app.ingest,
      log: t.app.log,
      apiUrl: `http://127.0.0.1:${port}/spot`,
      pollSeconds: 150,
    });
    const feed: SpotFeedRow = {
      id: 0,
      feedId: 'HUGE',
      feedPassword: null,
      lastPolledAt: null,
      lastError: null,
      createdAt: new Date().toISOString(),
    };
    const fetchPage = (spot as unknown as { fetchPage(f: SpotFeedRow, s: number): Promise<unknown> })
      .fetchPage;
    await expect(fetchPage.call(spot, feed, 0)).rejects.toThrow(`more than ${MAX_SPOT_PAGE_BYTES} bytes`);
    const sent = await written[1];
    expect(sent).toBeLessThan(TOTAL);
  });

  it('a MapShare redirect to another host is not followed (nor its password sent there); one on the same host is', async () => {
    const away = await mapShareDevice('Away', 'secret');
    const moved = await mapShareDevice('Moved');
    clock += 3600_000;
    await job.runOnce();
    expect(otherRequests).toEqual([]);
    const awayRow = await deviceRow(t.app, away);
    expect(awayRow.feedError).toMatch(/redirect \(HTTP 302\) to localhost:\d+: not followed/);
    expect(await positionsOf(t.app, away)).toEqual([]);
    expect((await deviceRow(t.app, moved)).feedError).toBeNull();
    expect((await positionsOf(t.app, moved)).map((p) => [p.lat, p.lon, p.altitude])).toEqual([
      [46.5581, 7.9112, 1732],
    ]);
    expect(feedRequests).toContain('/Feed/Share/MovedHere');
  });
});
