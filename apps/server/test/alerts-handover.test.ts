import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Alert } from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAlerts, races } from '../src/db/schema';
import { MapSharePollJob } from '../src/jobs/mapshare-poll-job';
import { addDevice, addRace, addRunner, waitFor } from './ingest-fixtures';
import { mapShareKml, type KmlMessage } from './mapshare-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/**
 * Every alert reaches a person (issue 23), in the README's own order of steps: an admin adds the tracker and puts it
 * in the race, the race starts, the tracker sends an SOS before anyone handed it to a runner, then the director
 * hands it over. The SOS reaches the race's HQ at once (list and stream), unattributed, and names the runner as soon
 * as the hand-over covers its time (the first holder in a race owns the device from the race's start). An SOS of a
 * tracker in no race reaches the admins' live stream.
 */

const INREACH_TOKEN = 'handover-inreach-secret';
const MIN = 60_000;

describe.each(dbKinds)('alerts before and after the hand-over (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  let job: MapSharePollJob;
  let director: string;
  let admin: string;
  let base: string;
  const feeds = new Map<string, KmlMessage[]>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const name = decodeURIComponent(/\/Feed\/Share\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '');
      const messages = feeds.get(name);
      if (!messages) return res.writeHead(404).end('Error');
      res.setHeader('content-type', 'application/vnd.google-earth.kml+xml; charset=utf-8');
      res.end(mapShareKml('Ada Runner', messages));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/Feed/Share`;
    t = await createTestApp(kind, { MAPSHARE_API_URL: apiUrl, INREACH_OUTBOUND_TOKEN: INREACH_TOKEN });
    await t.app.jobs.stop();
    job = new MapSharePollJob({ db: t.app.db, ingest: t.app.ingest, log: t.app.log, apiUrl });
    director = await t.issuer.director('director-1');
    admin = await t.issuer.admin('admin-1');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server?.close(r));
  });

  /** An SSE reader: the text so far, and a wait for a needle in it. */
  async function openStream(path: string, token: string) {
    const ac = new AbortController();
    const res = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const s = {
      text: '',
      async until(ok: (text: string) => boolean) {
        const deadline = Date.now() + 5000;
        while (!ok(s.text)) {
          if (Date.now() > deadline) throw new Error(`not in the stream: ${s.text}`);
          const { value, done } = await reader.read();
          if (done) throw new Error('stream ended');
          s.text += Buffer.from(value).toString('utf8');
        }
      },
      /** The alerts of every `alert` event so far. */
      alerts: () =>
        s.text
          .split('\n\n')
          .filter((b) => b.startsWith('event: alert\n'))
          .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as Alert),
      close: () => ac.abort(),
    };
    return s;
  }

  const hqAlerts = async (raceId: number) => {
    const res = await call(t, 'GET', `/api/director/races/${raceId}/alerts`, { token: director });
    expect(res.statusCode).toBe(200);
    return res.json<Alert[]>();
  };

  /** README: the admin adds the tracker and puts it in the race; the race starts (its StartTime 30 min ago). */
  async function trackerInRace(source: 'mapshare' | 'inreach', hardwareId: string) {
    const raceId = await addRace(t.app);
    await t.app.db
      .update(races)
      .set({ startTime: new Date(Date.now() - 30 * MIN) })
      .where(eq(races.id, raceId));
    const runnerId = await addRunner(t.app, raceId, 'Handed');
    const created = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: `${hardwareId}'s inReach`, Source: source, HardwareId: hardwareId },
    });
    expect(created.statusCode, created.body).toBe(201);
    const deviceId = created.json<{ DeviceId: number }>().DeviceId;
    const put = await call(t, 'PUT', `/api/admin/devices/${deviceId}/assign-race/${raceId}`, {
      token: admin,
    });
    expect(put.statusCode, put.body).toBe(200);
    const start = await call(t, 'PUT', `/api/director/races/start/${raceId}`, { token: director });
    expect(start.statusCode, start.body).toBe(200);
    return { raceId, runnerId, deviceId };
  }

  async function handOver(deviceId: number, raceId: number, runnerId: number) {
    const res = await call(
      t,
      'PUT',
      `/api/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`,
      { token: director },
    );
    expect(res.statusCode, res.body).toBe(200);
  }

  /** The SOS at HQ before and after the hand-over (list, stream, the stored device message). */
  async function expectHandedOverSos(
    ids: { raceId: number; runnerId: number; deviceId: number },
    stream: Awaited<ReturnType<typeof openStream>>,
  ) {
    const { raceId, runnerId, deviceId } = ids;
    // At once: the race's HQ list and stream, not yet handed to a runner.
    const [before] = await hqAlerts(raceId);
    expect(before).toMatchObject({
      RaceId: raceId,
      RunnerId: null,
      DeviceId: deviceId,
      Kind: 'sos',
      State: 'open',
    });
    await stream.until(() => stream.alerts().length > 0);
    expect(stream.alerts()[0]).toMatchObject({ AlertId: before.AlertId, RaceId: raceId, RunnerId: null });

    await handOver(deviceId, raceId, runnerId);
    // The hand-over's start (the race's start) lies before the SOS: the alert is the runner's, on the stream too.
    await stream.until(() => stream.alerts().some((a) => a.RunnerId === runnerId));
    const after = await hqAlerts(raceId);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      AlertId: before.AlertId,
      RaceId: raceId,
      RunnerId: runnerId,
      RunnerName: 'Handed Runner',
      State: 'open',
    });
    const stored = await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, deviceId));
    expect(stored.map((a) => [a.kind, a.raceId, a.runnerId])).toEqual([['sos', raceId, runnerId]]);
    // Nothing raised twice by the sweep's reconciliation of stored device messages.
    expect(await t.app.alerts.reconcileDeviceAlerts(Date.now())).toBe(0);
    expect(await hqAlerts(raceId)).toHaveLength(1);
  }

  it('MapShare: polled once the tracker is in the race, its SOS reaches HQ at once and names the runner after the hand-over', async () => {
    const name = `Handover${kind}`;
    const ids = await trackerInRace('mapshare', name);
    const stream = await openStream(`/api/director/races/${ids.raceId}/alerts/stream`, director);
    await stream.until((s) => s.includes('event: alerts\ndata: []'));
    const at = (m: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - m * MIN);
    feeds.set(name, [
      { id: 1, at: at(12), lat: 46.01, lon: 7.75 },
      { id: 2, at: at(6), lat: 46.02, lon: 7.76, emergency: true, text: 'Fell on the scree' },
    ]);
    await job.runOnce();
    await expectHandedOverSos(ids, stream);
    stream.close();
  });

  it('inReach IPC Outbound: the same order of steps', async () => {
    const imei = `30043406${kind === 'pglite' ? '5' : '6'}333333`;
    const ids = await trackerInRace('inreach', imei);
    const stream = await openStream(`/api/director/races/${ids.raceId}/alerts/stream`, director);
    await stream.until((s) => s.includes('event: alerts\ndata: []'));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: {
        Version: '2.0',
        Events: [
          {
            imei,
            messageCode: 4,
            freeText: 'Ankle',
            timeStamp: Date.now() - 5 * MIN,
            addresses: [],
            point: { latitude: 46.57, longitude: 7.93, altitude: 1900, gpsFix: 2, course: 0, speed: 0 },
            status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    await expectHandedOverSos(ids, stream);
    stream.close();
  });

  it('a hand-over whose start is later than the SOS leaves it with the race, unattributed', async () => {
    // The race started 30 min ago; an SOS of 40 min ago (the tracker already in the race, before the start): the
    // first holder owns the tracker from the race's start, not before.
    const imei = `30043406${kind === 'pglite' ? '7' : '8'}444444`;
    const ids = await trackerInRace('inreach', imei);
    const sos = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: {
        Version: '2.0',
        Events: [
          {
            imei,
            messageCode: 4,
            freeText: '',
            timeStamp: Date.now() - 40 * MIN,
            addresses: [],
            point: { latitude: 46.5, longitude: 7.9, altitude: 1900, gpsFix: 2, course: 0, speed: 0 },
            status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
          },
        ],
      },
    });
    expect(sos.statusCode).toBe(200);
    const [a] = await hqAlerts(ids.raceId);
    expect(a).toMatchObject({ RaceId: ids.raceId, RunnerId: null, Kind: 'sos' });
    await handOver(ids.deviceId, ids.raceId, ids.runnerId);
    expect(await t.app.alerts.reattributeRace(ids.raceId)).toBe(0);
    expect(await hqAlerts(ids.raceId)).toEqual([
      expect.objectContaining({ AlertId: a.AlertId, RunnerId: null }),
    ]);
  });

  it('an SOS of a tracker in no race reaches the admins’ live stream at once; directors cannot open it', async () => {
    expect((await fetch(`${base}/api/admin/alerts/stream`)).status).toBe(401);
    const denied = await fetch(`${base}/api/admin/alerts/stream`, {
      headers: { authorization: `Bearer ${director}` },
    });
    expect(denied.status).toBe(403);
    const stream = await openStream('/api/admin/alerts/stream', admin);
    await stream.until((s) => s.includes('event: alerts\n'));
    const d = await addDevice(t.app, { name: 'Spare phone' });
    const ts = Math.floor(Date.now() / 1000) - 2;
    const res = await fetch(
      `${base}/api/ingest/osmand?id=${d.trackingKey}&lat=46.3&lon=7.3&timestamp=${ts}&alarm=sos`,
    );
    expect(res.status).toBe(200);
    await stream.until(() => stream.alerts().some((a) => a.DeviceId === d.id));
    expect(stream.alerts().find((a) => a.DeviceId === d.id)).toMatchObject({
      RaceId: null,
      RunnerId: null,
      DeviceName: 'Spare phone',
      Kind: 'sos',
      State: 'open',
    });
    stream.close();
    await waitFor(
      () => t.app.alerts.listAllAlerts('open'),
      (list) => list.some((a) => a.DeviceId === d.id),
    );
  });
});
