import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAlerts } from '../src/db/schema';
import { SpotPollJob } from '../src/jobs/spot-poll-job';
import { addRace, addRunner, deviceRow, positionsOf } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/**
 * A runner's own SPOT messenger with its own feed id, attached by the director: the SPOT poller polls that feed
 * (against a stand-in for SPOT's API on 127.0.0.1), under the same rule as a shared feed — once per
 * SPOT_POLL_SECONDS at most, back-off on errors — on an injected clock.
 */
describe.each(dbKinds)('per-runner SPOT feed (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  let job: SpotPollJob;
  let clock = Date.now();
  let status = 200;
  let messages: Record<string, unknown>[] = [];
  const requests: URL[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(url);
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      if (
        url.pathname !== '/feed/0runnerOwnFeed/message.json' ||
        url.searchParams.get('feedPassword') !== 'pw1'
      )
        return res.end(
          JSON.stringify({ response: { errors: { error: { code: 'E-0160', text: 'Bad feed' } } } }),
        );
      const count = messages.length;
      res.end(
        JSON.stringify({
          response: {
            feedMessageResponse: {
              count,
              totalCount: count,
              feed: { id: '0runnerOwnFeed', name: 'My SPOT', status: 'ACTIVE', type: 'SHARED_PAGE' },
              messages: { message: count === 1 ? messages[0] : messages },
            },
          },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`;
    t = await createTestApp(kind, { SPOT_API_URL: apiUrl });
    await t.app.jobs.stop();
    job = new SpotPollJob({
      db: t.app.db,
      ingest: t.app.ingest,
      log: t.app.log,
      apiUrl,
      pollSeconds: 150,
      now: () => clock,
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server.close(r));
  });

  const message = (id: number, secondsAgo: number, lat: number, type = 'UNLIMITED-TRACK') => ({
    id,
    // The ESN is not the device's HardwareId (none given): every message of its own feed is the device's.
    messengerId: '0-9876543',
    unixTime: Math.floor(Date.now() / 1000) - secondsAgo,
    messageType: type,
    latitude: lat,
    longitude: 7.91,
    batteryState: 'GOOD',
    altitude: 1700,
  });

  it('the director attaches a SPOT with its own feed; the poller stores its messages once, 150 s apart', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Spotty');
    const owner = await t.issuer.director('director-1');
    const res = await call(t, 'POST', `/api/director/runners/${runnerId}/tracker`, {
      token: owner,
      body: { Source: 'spot', FeedId: '0runnerOwnFeed', FeedPassword: 'pw1' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ Source: 'spot', FeedId: '0runnerOwnFeed', HasFeedPassword: true });
    expect(res.body).not.toContain('pw1');
    const deviceId = res.json().DeviceId as number;

    messages = [message(11, 600, 46.5), message(12, 300, 46.51), message(13, 200, 46.52, 'SOS')];
    await job.runOnce();
    expect(requests).toHaveLength(1);
    const stored = await positionsOf(t.app, deviceId);
    expect(stored.map((p) => [p.lat, p.runnerId, p.source])).toEqual([
      [46.5, runnerId, 'spot'],
      [46.51, runnerId, 'spot'],
      [46.52, runnerId, 'spot'],
    ]);
    const sos = await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, deviceId));
    expect(sos.map((a) => a.kind)).toEqual(['sos']);

    // Not again within SPOT's 150 s, then again, storing nothing twice.
    clock += 149_000;
    await job.runOnce();
    expect(requests).toHaveLength(1);
    clock += 1000;
    await job.runOnce();
    expect(requests).toHaveLength(2);
    expect(await positionsOf(t.app, deviceId)).toHaveLength(3);

    // SPOT fails: the error is kept for the director, and the feed waits twice as long.
    status = 503;
    clock += 150_000;
    await job.runOnce();
    const d = await deviceRow(t.app, deviceId);
    expect(d.feedError).toMatch(/HTTP 503/);
    expect(d.feedNextPollAt?.getTime()).toBe(clock + 300_000);
    clock += 299_000;
    await job.runOnce();
    expect(requests).toHaveLength(3);
    status = 200;
    clock += 1000;
    await job.runOnce();
    expect(requests).toHaveLength(4);
    expect((await deviceRow(t.app, deviceId)).feedError).toBeNull();
    const check = await call(t, 'GET', `/api/director/runners/${runnerId}/tracker`, { token: owner });
    expect(check.json()).toMatchObject({ FeedError: null, LastFixTime: stored[2].fixTime.toISOString() });
  });
});
