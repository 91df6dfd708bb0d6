import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts, deviceAlerts, races } from '../src/db/schema';
import { MapSharePollJob, mapShareD1, mapShareIntervalSeconds } from '../src/jobs/mapshare-poll-job';
import { addRace, addRunner, assign, deviceRow, positionsOf } from './ingest-fixtures';
import { mapShareKml, type KmlMessage } from './mapshare-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/**
 * Garmin MapShare through the poll job, against a stand-in for share.garmin.com on 127.0.0.1 that serves real KML
 * and checks what Garmin checks: the `d1` parameter and, for a page with a password, the Basic auth header. The
 * job runs on an injected clock (runOnce), so the 2-minute spacing and the back-off are shown without sleeping.
 */

interface Feed {
  password?: string;
  status?: number;
  messages: KmlMessage[];
}

describe.each(dbKinds)('MapShare poller (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  let admin: string;
  let job: MapSharePollJob;
  let clock = Date.now();
  const feeds = new Map<string, Feed>();
  const requests: { name: string; d1: string | null; auth: string | undefined; status: number }[] = [];
  const polls = (name: string) => requests.filter((r) => r.name === name);

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/Feed\/Share\/([^/]+)$/.exec(url.pathname);
      const name = m ? decodeURIComponent(m[1]) : '';
      const feed = feeds.get(name);
      const d1 = url.searchParams.get('d1');
      let status = 200;
      if (!feed) status = 404;
      else if (feed.status) status = feed.status;
      else if (!d1 || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}z$/.test(d1)) status = 400;
      else if (feed.password) {
        const expected = `Basic ${Buffer.from(`:${feed.password}`).toString('base64')}`;
        if (req.headers.authorization !== expected) status = 401;
      }
      requests.push({ name, d1, auth: req.headers.authorization, status });
      res.statusCode = status;
      if (status !== 200) return res.end(status === 401 ? 'Unauthorized' : 'Error');
      // Garmin answers what was sent since d1.
      const since = Date.parse(d1!.replace(/z$/, ':00Z'));
      res.setHeader('content-type', 'application/vnd.google-earth.kml+xml; charset=utf-8');
      res.end(
        mapShareKml(
          'Ada Runner',
          feed!.messages.filter((x) => x.at.getTime() >= since),
        ),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const apiUrl = `http://127.0.0.1:${port}/Feed/Share`;
    t = await createTestApp(kind, { MAPSHARE_API_URL: apiUrl });
    // The app's own job would poll on the real clock: this test drives one on its own clock.
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
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server.close(r));
  });

  const minutesAgo = (m: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - m * 60_000);

  async function mapShareRunner(name: string, password?: string) {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3 * 3600_000) });
    const runnerId = await addRunner(t.app, raceId, name);
    const res = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: `${name}'s inReach`, Source: 'mapshare', HardwareId: name, FeedPassword: password },
    });
    expect(res.statusCode, res.body).toBe(201);
    const deviceId = res.json().DeviceId as number;
    await assign(t.app, deviceId, raceId, runnerId, new Date(Date.now() - 4 * 3600_000));
    return { raceId, runnerId, deviceId };
  }

  it('polls the KML feed with d1 and the MapShare password, stores each fix once, attributed to the runner', async () => {
    clock += 3600_000;
    const { runnerId, deviceId } = await mapShareRunner('AdaTrail', 'alpine');
    const [t30, t25, t20] = [minutesAgo(30), minutesAgo(25), minutesAgo(20)];
    feeds.set('AdaTrail', {
      password: 'alpine',
      messages: [
        { id: 1, at: t30, lat: 46.5581, lon: 7.9112, ele: 1732, kmh: 5.4 },
        { id: 2, at: t20, lat: 46.5612, lon: 7.915, ele: 1760.5, kmh: 3.6 },
        // Sent without a GPS fix: not a position.
        { id: 3, at: minutesAgo(15), lat: 0, lon: 0, validFix: false },
      ],
    });
    await job.runOnce();
    expect(polls('AdaTrail')).toEqual([
      {
        name: 'AdaTrail',
        d1: mapShareD1(new Date(clock - 24 * 3600_000)),
        auth: `Basic ${Buffer.from(':alpine').toString('base64')}`,
        status: 200,
      },
    ]);
    const stored = await positionsOf(t.app, deviceId);
    expect(
      stored.map((p) => [p.fixTime.toISOString(), p.lat, p.lon, p.altitude, p.runnerId, p.source]),
    ).toEqual([
      [t30.toISOString(), 46.5581, 7.9112, 1732, runnerId, 'mapshare'],
      [t20.toISOString(), 46.5612, 7.915, 1760.5, runnerId, 'mapshare'],
    ]);
    expect(stored[0].speed).toBeCloseTo(1.5, 6);
    const device = await deviceRow(t.app, deviceId);
    expect(device.lastPingTime?.toISOString()).toBe(t20.toISOString());
    expect(device.feedError).toBeNull();
    expect(device.feedPolledAt?.getTime()).toBe(clock);

    // Within 2 minutes: not polled again (119 s later still not).
    await job.runOnce();
    clock += 119_000;
    await job.runOnce();
    expect(polls('AdaTrail')).toHaveLength(1);

    // A message that reached Garmin late (older than the newest fix) comes with the next poll, 2 minutes on.
    feeds.get('AdaTrail')!.messages.push({ id: 4, at: t25, lat: 46.5599, lon: 7.913 });
    clock += 1000;
    await job.runOnce();
    expect(polls('AdaTrail')).toHaveLength(2);
    // From the newest fix minus an hour.
    expect(polls('AdaTrail')[1].d1).toBe(mapShareD1(new Date(t20.getTime() - 3600_000)));
    const after = await positionsOf(t.app, deviceId);
    expect(after.map((p) => p.lat)).toEqual([46.5581, 46.5599, 46.5612]);
    expect(after.every((p) => p.runnerId === runnerId)).toBe(true);
    // The newest fix stays the device's last ping (the late one is older).
    expect((await deviceRow(t.app, deviceId)).lastPingTime?.toISOString()).toBe(t20.toISOString());

    // Polled again and again: nothing stored twice.
    for (let i = 0; i < 3; i++) {
      clock += 120_000;
      await job.runOnce();
    }
    expect(polls('AdaTrail')).toHaveLength(5);
    expect(await positionsOf(t.app, deviceId)).toHaveLength(3);
  });

  it('backs off after a 500 and a 401, records the error for the director, and recovers', async () => {
    clock += 3600_000;
    const { deviceId, runnerId } = await mapShareRunner('BobRidge');
    feeds.set('BobRidge', { status: 500, messages: [{ id: 1, at: minutesAgo(10), lat: 45.9, lon: 6.87 }] });
    const start = clock;
    await job.runOnce();
    let d = await deviceRow(t.app, deviceId);
    expect(d.feedError).toBe('MapShare answered HTTP 500');
    // First failure: twice the 2-minute interval.
    expect(d.feedNextPollAt?.getTime()).toBe(start + 240_000);
    clock = start + 239_000;
    await job.runOnce();
    expect(polls('BobRidge')).toHaveLength(1);

    // The page got a password: 401, and the back-off doubles.
    feeds.set('BobRidge', { password: 'secret', messages: feeds.get('BobRidge')!.messages });
    clock = start + 240_000;
    await job.runOnce();
    expect(polls('BobRidge').map((r) => r.status)).toEqual([500, 401]);
    d = await deviceRow(t.app, deviceId);
    expect(d.feedError).toMatch(/MapShare refused access \(HTTP 401\).*password/);
    expect(d.feedNextPollAt?.getTime()).toBe(clock + 480_000);

    // The director sees why on the tracker check.
    const owner = await t.issuer.director('director-1');
    const check = await call(t, 'GET', `/api/director/runners/${runnerId}/tracker`, { token: owner });
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json()).toMatchObject({
      Source: 'mapshare',
      HardwareId: 'BobRidge',
      FeedError: d.feedError,
    });

    // The admin enters the password: the error and back-off are forgotten, the next poll (2 min on) works.
    const put = await call(t, 'PUT', `/api/admin/devices/${deviceId}`, {
      token: admin,
      body: { FeedPassword: 'secret' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ HasFeedPassword: true, FeedError: null });
    expect(put.body).not.toContain('secret');
    clock += 120_000;
    await job.runOnce();
    expect(polls('BobRidge').map((r) => r.status)).toEqual([500, 401, 200]);
    d = await deviceRow(t.app, deviceId);
    expect(d.feedError).toBeNull();
    expect(d.feedNextPollAt?.getTime()).toBe(clock + 120_000);
    expect(await positionsOf(t.app, deviceId)).toHaveLength(1);
  });

  it('an emergency on the inReach raises an SOS alert for the runner, once', async () => {
    clock += 3600_000;
    const { deviceId, runnerId, raceId } = await mapShareRunner('CleoSummit');
    feeds.set('CleoSummit', {
      messages: [
        { id: 1, at: minutesAgo(12), lat: 46.01, lon: 7.75 },
        { id: 2, at: minutesAgo(6), lat: 46.02, lon: 7.76, emergency: true, text: 'Fell on the scree' },
      ],
    });
    await job.runOnce();
    clock += 120_000;
    await job.runOnce();
    expect(polls('CleoSummit')).toHaveLength(2);
    const stored = await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, deviceId));
    expect(stored.map((a) => [a.kind, a.message, a.runnerId])).toEqual([
      ['sos', 'Fell on the scree', runnerId],
    ]);
    const hq = await t.app.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.raceId, raceId), eq(alerts.kind, 'sos')));
    expect(hq).toHaveLength(1);
    expect(hq[0]).toMatchObject({ runnerId, state: 'open' });
    expect(hq[0].message).toContain('Fell on the scree');
    expect(await positionsOf(t.app, deviceId)).toHaveLength(2);
  });

  it('polls only while the race needs it: not a race starting in 3 days, not an hour after its end', async () => {
    clock += 3600_000;
    const { raceId, deviceId } = await mapShareRunner('DanFuture');
    feeds.set('DanFuture', { messages: [] });
    await t.app.db
      .update(races)
      .set({ hasStarted: false, clockStartedAt: null, startTime: new Date(clock + 3 * 86_400_000) })
      .where(eq(races.id, raceId));
    await job.runOnce();
    expect(polls('DanFuture')).toHaveLength(0);
    // Within 24 hours of the start: polled, so the director's tracker check works before the start.
    await t.app.db
      .update(races)
      .set({ startTime: new Date(clock + 20 * 3600_000) })
      .where(eq(races.id, raceId));
    await job.runOnce();
    expect(polls('DanFuture')).toHaveLength(1);
    // Ended 2 hours ago: no longer.
    await t.app.db
      .update(races)
      .set({ hasStarted: true, hasFinished: true, clockStoppedAt: new Date(clock - 2 * 3600_000) })
      .where(eq(races.id, raceId));
    clock += 120_000;
    await job.runOnce();
    expect(polls('DanFuture')).toHaveLength(1);
    expect((await deviceRow(t.app, deviceId)).feedError).toBeNull();
  });

  it('spaces polls to stay under Garmin’s 2,000 requests an hour', () => {
    expect(mapShareIntervalSeconds(1)).toBe(120);
    expect(mapShareIntervalSeconds(60)).toBe(120);
    expect(mapShareIntervalSeconds(100)).toBe(200);
    expect(mapShareIntervalSeconds(600)).toBe(1200);
  });

  it('the admin device API: the MapShare password is write-only; bad feed values are 400', async () => {
    const res = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: 'Eve', Source: 'mapshare', HardwareId: 'EveTrail', FeedPassword: 'hunter2' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      HasFeedPassword: true,
      FeedId: null,
      FeedPolledAt: null,
      FeedError: null,
    });
    expect(res.body).not.toContain('hunter2');
    const list = await call(t, 'GET', '/api/admin/devices', { token: admin });
    expect(list.body).not.toContain('hunter2');
    const bad = async (body: Record<string, unknown>) => {
      const r = await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'Bad', ...body } });
      return [r.statusCode, r.json().message as string];
    };
    expect(await bad({ Source: 'mapshare' })).toEqual([
      400,
      expect.stringMatching(/MapShare name is required/),
    ]);
    expect(await bad({ Source: 'mapshare', HardwareId: 'has space' })).toEqual([400, expect.any(String)]);
    expect(await bad({ Source: 'inreach', HardwareId: '300434060000001', FeedId: 'X1' })).toEqual([
      400,
      expect.stringMatching(/only a SPOT or MapShare/),
    ]);
    expect(await bad({ Source: 'spot', FeedId: 'not a feed!' })).toEqual([
      400,
      expect.stringMatching(/FeedId/),
    ]);
    expect(await bad({ Source: 'spot', FeedPassword: 'x'.repeat(201) })).toEqual([400, expect.any(String)]);
    // Removing the password.
    const id = res.json().DeviceId as number;
    const cleared = await call(t, 'PUT', `/api/admin/devices/${id}`, {
      token: admin,
      body: { FeedPassword: null },
    });
    expect(cleared.json().HasFeedPassword).toBe(false);
  });
});
