import type { AddressInfo } from 'node:net';
import { alertMessageEnglish, type Alert, type AlertLogEntry } from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts, devices } from '../src/db/schema';
import { AlertSweepJob } from '../src/jobs/alert-sweep-job';
import { addDevice, addRace, addRunner, assign, waitFor } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace } from './support/live-seed';

const INREACH_TOKEN = 'hq-inreach-secret';
const MIN = 60_000;

describe.each(dbKinds)('race HQ alerts (%s)', (kind) => {
  let t: TestContext;
  let director: string;
  let admin: string;
  let other: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { INREACH_OUTBOUND_TOKEN: INREACH_TOKEN });
    director = await t.issuer.director('director-1');
    admin = await t.issuer.admin('admin-1');
    other = await t.issuer.director('someone-else');
  });
  afterAll(async () => t?.close());

  const raceAlerts = async (raceId: number, token = director, query = '') => {
    const res = await call(t, 'GET', `/api/director/races/${raceId}/alerts${query}`, { token });
    expect(res.statusCode).toBe(200);
    return res.json<Alert[]>();
  };

  const inreachSos = (imei: string, at: number, text = 'Fell, ankle broken') => ({
    Version: '2.0',
    Events: [
      {
        imei,
        messageCode: 4,
        freeText: text,
        timeStamp: at,
        addresses: [],
        point: { latitude: 46.57, longitude: 7.93, altitude: 1900, gpsFix: 2, course: 0, speed: 0 },
        status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
      },
    ],
  });

  it('an inReach SOS raises one open sos alert for the runner within the request; a repeat refreshes it', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Sos');
    const imei = `30043406${kind === 'pglite' ? '1' : '2'}111111`;
    const d = await addDevice(t.app, { source: 'inreach', hardwareId: imei, name: 'inReach 7' });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const send = (at: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/ingest/inreach',
        headers: { 'x-outbound-auth-token': INREACH_TOKEN },
        payload: inreachSos(imei, at),
      });
    expect((await send(Date.now() - 60_000)).statusCode).toBe(200);
    const [a] = await raceAlerts(raceId, director, '?state=open');
    expect(a).toMatchObject({
      RaceId: raceId,
      RunnerId: runnerId,
      RunnerName: 'Sos Runner',
      DeviceId: d.id,
      DeviceName: 'inReach 7',
      Kind: 'sos',
      State: 'open',
      Latitude: 46.57,
      Longitude: 7.93,
    });
    expect(a.Message).toContain('Fell, ankle broken');
    // The detail as a key and its parameters too (the device's text verbatim), stored with the alert.
    expect(a).toMatchObject({
      Message: 'SOS sent from the device: Fell, ankle broken',
      MessageKey: 'sos-text',
      MessageParams: { text: 'Fell, ankle broken' },
    });
    const [row] = await t.app.db.select().from(alerts).where(eq(alerts.id, a.AlertId));
    expect(row).toMatchObject({ messageKey: 'sos-text', messageParams: { text: 'Fell, ankle broken' } });
    // A second SOS message (confirm) while the first is open: the same alert, seen again.
    expect((await send(Date.now() - 30_000)).statusCode).toBe(200);
    const list = await raceAlerts(raceId);
    expect(list).toHaveLength(1);
    expect(Date.parse(list[0].LastSeenAt)).toBeGreaterThan(Date.parse(a.LastSeenAt));
    // Admins see it too; another director does not reach the race.
    expect(await raceAlerts(raceId, admin)).toHaveLength(1);
    expect((await call(t, 'GET', `/api/director/races/${raceId}/alerts`, { token: other })).statusCode).toBe(
      404,
    );
  });

  it('acknowledge and resolve with a note; a second acknowledge and acting on a resolved alert are 409; the log', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const imei = `30043406${kind === 'pglite' ? '3' : '4'}222222`;
    const d = await addDevice(t.app, { source: 'inreach', hardwareId: imei });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    await t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: inreachSos(imei, Date.now() - 10_000),
    });
    const [a] = await raceAlerts(raceId);
    const ack = await call(t, 'POST', `/api/director/alerts/${a.AlertId}/acknowledge`, {
      token: director,
      body: { Note: 'Calling the runner' },
    });
    expect(ack.statusCode).toBe(200);
    expect(ack.json()).toMatchObject({ State: 'acknowledged', Note: 'Calling the runner' });
    expect(ack.json<Alert>().AcknowledgedBy).toBeTruthy();
    const again = await call(t, 'POST', `/api/director/alerts/${a.AlertId}/acknowledge`, {
      token: director,
      body: {},
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'alert_already_acknowledged' });
    // Another director cannot act on it.
    expect(
      (await call(t, 'POST', `/api/director/alerts/${a.AlertId}/resolve`, { token: other, body: {} }))
        .statusCode,
    ).toBe(404);
    const res = await call(t, 'POST', `/api/director/alerts/${a.AlertId}/resolve`, {
      token: director,
      body: { Note: 'Picked up at CP4' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ State: 'resolved', Note: 'Picked up at CP4' });
    for (const action of ['acknowledge', 'resolve']) {
      const r = await call(t, 'POST', `/api/director/alerts/${a.AlertId}/${action}`, {
        token: director,
        body: { Note: 'late' },
      });
      expect(r.statusCode).toBe(409);
      expect(r.json()).toMatchObject({ error: 'alert_resolved' });
    }
    const log = await call(t, 'GET', `/api/director/races/${raceId}/alerts/log`, { token: director });
    expect(log.statusCode).toBe(200);
    expect(log.json<AlertLogEntry[]>().map((e) => [e.AlertId, e.State, e.Note])).toEqual([
      [a.AlertId, 'open', null],
      [a.AlertId, 'acknowledged', 'Calling the runner'],
      [a.AlertId, 'resolved', 'Picked up at CP4'],
    ]);
    expect(log.json<AlertLogEntry[]>()[0].By).toBeNull();
    expect(await raceAlerts(raceId, director, '?state=open')).toHaveLength(0);
    expect(await raceAlerts(raceId, director, '?state=resolved')).toHaveLength(1);
  });

  it('bad input: bad ids, unknown alert, a NUL or too-long note, a bad state → 4xx JSON', async () => {
    for (const url of ['/api/director/alerts/abc/acknowledge', '/api/director/alerts/0/resolve']) {
      const r = await call(t, 'POST', url, { token: director, body: {} });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toHaveProperty('error');
    }
    const missing = await call(t, 'POST', '/api/director/alerts/2147483647/acknowledge', {
      token: admin,
      body: {},
    });
    expect(missing.statusCode).toBe(404);
    for (const Note of ['a\u0000b', 'x'.repeat(2001)]) {
      const r = await call(t, 'POST', '/api/director/alerts/1/acknowledge', {
        token: director,
        body: { Note },
      });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toHaveProperty('error');
    }
    const raceId = await addRace(t.app);
    const bad = await call(t, 'GET', `/api/director/races/${raceId}/alerts?state=closed`, {
      token: director,
    });
    expect(bad.statusCode).toBe(400);
    const settings = await call(t, 'PUT', `/api/director/races/${raceId}/alert-settings`, {
      token: director,
      body: { LostSignalFactor: 0 },
    });
    expect(settings.statusCode).toBe(400);
  });

  it('Traccar Client alarm=sos over OsmAnd; a device holding no race raises an alert only admins see', async () => {
    const raceId = await addRace(t.app);
    const runnerId = await addRunner(t.app, raceId, 'Phone');
    const d = await addDevice(t.app, { name: 'Phone 1' });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 3600_000));
    const ts = Math.floor(Date.now() / 1000) - 5;
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${d.trackingKey}&lat=46.1&lon=7.1&timestamp=${ts}&alarm=sos&batt=50`,
    });
    expect(r.statusCode).toBe(200);
    // Race not started: an SOS is raised all the same.
    expect(await raceAlerts(raceId)).toMatchObject([{ Kind: 'sos', RunnerId: runnerId, Latitude: 46.1 }]);

    const free = await addDevice(t.app, { name: 'Spare phone' });
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/osmand',
      payload: {
        device_id: free.trackingKey,
        location: {
          timestamp: new Date(Date.now() - 3000).toISOString(),
          coords: { latitude: 46.2, longitude: 7.2 },
          extras: { alarm: 'sos' },
        },
      },
    });
    expect(json.statusCode).toBe(200);
    const all = await call(t, 'GET', '/api/admin/alerts?state=open', { token: admin });
    expect(all.statusCode).toBe(200);
    expect(all.json<Alert[]>()).toContainEqual(
      expect.objectContaining({ DeviceId: free.id, RaceId: null, RunnerId: null, Kind: 'sos' }),
    );
    expect((await call(t, 'GET', '/api/admin/alerts', { token: director })).statusCode).toBe(403);
  });

  it('alert settings: defaults until set, then the race’s own', async () => {
    const raceId = await addRace(t.app);
    const url = `/api/director/races/${raceId}/alert-settings`;
    const get = await call(t, 'GET', url, { token: director });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toMatchObject({ NoMovementMinutes: 30, LostSignalFactor: 3, LowBatteryPercent: 15 });
    const put = await call(t, 'PUT', url, {
      token: director,
      body: { LostSignalFactor: 4, HelpKeyword: 'HELP' },
    });
    expect(put.statusCode).toBe(200);
    expect((await call(t, 'GET', url, { token: admin })).json()).toMatchObject({
      LostSignalFactor: 4,
      HelpKeyword: 'HELP',
      NoMovementMinutes: 30,
    });
    expect((await call(t, 'GET', url, { token: other })).statusCode).toBe(404);
  });

  it('runner HQ fields: kept for the director, never on /api/open', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date() });
    const created = await call(t, 'POST', `/api/director/runners/${raceId}`, {
      token: director,
      body: {
        FirstName: 'Hq',
        LastName: 'Fields',
        EmergencyContact: 'Eve, +41 79 000 00 00',
        Phone: '+41 78 1',
      },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ EmergencyContact: 'Eve, +41 79 000 00 00', Phone: '+41 78 1' });
    const id = created.json<{ RunnerId: number }>().RunnerId;
    // An edit without the fields keeps them.
    const edited = await call(t, 'PUT', `/api/director/runners/${raceId}/${id}`, {
      token: director,
      body: { FirstName: 'Hq', LastName: 'Edited' },
    });
    expect(edited.json()).toMatchObject({ LastName: 'Edited', EmergencyContact: 'Eve, +41 79 000 00 00' });
    const list = await call(t, 'GET', `/api/director/runners/${raceId}`, { token: director });
    expect(list.json()[0]).toMatchObject({ Phone: '+41 78 1' });
    const open = await t.app.inject({ url: `/api/open/runners/${raceId}` });
    expect(open.statusCode).toBe(200);
    expect(open.body).not.toContain('EmergencyContact');
    expect(open.body).not.toContain('+41');
    const tooLong = await call(t, 'POST', `/api/director/runners/${raceId}`, {
      token: director,
      body: { FirstName: 'A', LastName: 'B', EmergencyContact: 'x'.repeat(201) },
    });
    expect(tooLong.statusCode).toBe(400);
  });

  it('devices carry ExpectedIntervalSeconds (10–86400 or null) on the admin API', async () => {
    const created = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: 'Slow LoRa', Source: 'lorawan', ExpectedIntervalSeconds: 900 },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ ExpectedIntervalSeconds: 900 });
    const id = created.json<{ DeviceId: number }>().DeviceId;
    const cleared = await call(t, 'PUT', `/api/admin/devices/${id}`, {
      token: admin,
      body: { ExpectedIntervalSeconds: null },
    });
    expect(cleared.json()).toMatchObject({ ExpectedIntervalSeconds: null });
    for (const v of [5, 86401, 'x']) {
      const r = await call(t, 'PUT', `/api/admin/devices/${id}`, {
        token: admin,
        body: { ExpectedIntervalSeconds: v },
      });
      expect(r.statusCode).toBe(400);
    }
  });

  it('the sweep: lost signal after k × each source’s interval, low battery, and both clear themselves', async () => {
    const now = Date.now();
    const race = await seedLiveRace(t.app.db, {
      runners: 3,
      clockStartMs: now - 60 * MIN,
      keyPrefix: `sweep-${kind}`,
    });
    const [phone, spot, flat] = race.runners;
    await t.app.db.update(devices).set({ source: 'spot' }).where(eq(devices.id, spot.deviceId));
    let clock = now - 16 * MIN;
    const job = new AlertSweepJob({
      db: t.app.db,
      live: t.app.live,
      alerts: t.app.alerts,
      log: t.app.log,
      everyMs: 15_000,
      now: () => clock,
    });
    await postFixes(t.app, race.raceId, phone, [{ t: now - 20 * MIN, ...pointAlong(2000) }]);
    await postFixes(t.app, race.raceId, spot, [{ t: now - 20 * MIN, ...pointAlong(2100) }]);
    await postFixes(t.app, race.raceId, flat, [
      { t: now - 17 * MIN, ...pointAlong(2200), batteryPercent: 9 },
    ]);
    const token = await t.issuer.director('dir-live');
    const open = async () =>
      (await raceAlerts(race.raceId, token, '?state=open')).map((a) => [a.RunnerId, a.Kind]).sort();

    // 4 min after the last fix: the phone (every 1 min, k 3) is lost, the SPOT (every 2.5 min) is not yet.
    await job.runOnce();
    expect(await open()).toEqual(
      [
        [phone.runnerId, 'lost-signal'],
        [flat.runnerId, 'low-battery'],
      ].sort(),
    );
    // Each with its detail as a key and parameters (ms, percent), stored, and its English made from them.
    const first = await raceAlerts(race.raceId, token, '?state=open');
    expect(first.find((a) => a.Kind === 'lost-signal')).toMatchObject({
      Message: 'No fix for 4 min (expected every 1 min)',
      MessageKey: 'lost-signal',
      MessageParams: { silentMs: 4 * MIN, expectedMs: MIN },
    });
    expect(first.find((a) => a.Kind === 'low-battery')).toMatchObject({
      Message: 'Battery 9 %',
      MessageKey: 'battery-percent',
      MessageParams: { percent: 9 },
    });
    for (const a of first) {
      expect(alertMessageEnglish(a.MessageKey!, a.MessageParams!)).toBe(a.Message);
      const [row] = await t.app.db.select().from(alerts).where(eq(alerts.id, a.AlertId));
      expect([row.messageKey, row.messageParams]).toEqual([a.MessageKey, a.MessageParams]);
    }
    await job.runOnce(); // nothing new: one alert per runner and kind
    expect(await open()).toHaveLength(2);
    clock = now - 10 * MIN; // 10 min: the SPOT too (7.5 min); the flat-battery runner silent for 7 min too
    await job.runOnce();
    expect(await open()).toEqual(
      [
        [phone.runnerId, 'lost-signal'],
        [spot.runnerId, 'lost-signal'],
        [flat.runnerId, 'lost-signal'],
        [flat.runnerId, 'low-battery'],
      ].sort(),
    );
    // The phone reports again and the battery is charged: those clear themselves.
    await postFixes(t.app, race.raceId, phone, [{ t: now - 10 * MIN - 5000, ...pointAlong(2600) }]);
    await postFixes(t.app, race.raceId, flat, [
      { t: now - 10 * MIN - 5000, ...pointAlong(2700), batteryPercent: 80 },
    ]);
    await waitFor(
      () => t.app.live.alertSubjects(race.raceId, clock),
      (s) => s.find((x) => x.runnerId === flat.runnerId)?.input.batteryPercent === 80,
    );
    await job.runOnce();
    expect(await open()).toEqual([[spot.runnerId, 'lost-signal']]);
    const resolved = await raceAlerts(race.raceId, token, '?state=resolved');
    expect(resolved.every((a) => a.ResolvedBy === null && a.ResolvedAt !== null)).toBe(true);
    expect(resolved).toHaveLength(3);
  });

  it('the OpenAPI document has the Alert’s MessageKey (its keys) and MessageParams, nullable', async () => {
    const doc = await call(t, 'GET', '/api/docs/json');
    expect(doc.statusCode).toBe(200);
    const schemas = doc.json().components.schemas;
    expect(Object.keys(schemas.Alert.properties)).toEqual(
      expect.arrayContaining(['Message', 'MessageKey', 'MessageParams']),
    );
    expect(schemas.Alert.required).toEqual(expect.arrayContaining(['MessageKey', 'MessageParams']));
    expect(JSON.stringify(schemas.Alert.properties.MessageKey)).toContain('null');
    expect(schemas.AlertMessageKey.enum).toEqual(
      expect.arrayContaining(['lost-signal', 'battery-percent', 'sos-text']),
    );
  });

  it('the HQ stream sends the current alerts, then a new SOS as it arrives', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Stream');
    const d = await addDevice(t.app, { name: 'Phone S' });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 7200_000));

    expect((await fetch(`${base}/api/director/races/${raceId}/alerts/stream`)).status).toBe(401);
    const denied = await fetch(`${base}/api/director/races/${raceId}/alerts/stream`, {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(denied.status).toBe(404);

    const ac = new AbortController();
    const res = await fetch(`${base}/api/director/races/${raceId}/alerts/stream`, {
      headers: { authorization: `Bearer ${director}` },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 5000;
      while (!text.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`no ${needle} in ${text}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += Buffer.from(value).toString('utf8');
      }
    };
    await readUntil('event: alerts\ndata: []');
    const ts = Math.floor(Date.now() / 1000) - 2;
    const sent = Date.now();
    await fetch(`${base}/api/ingest/osmand?id=${d.trackingKey}&lat=46.3&lon=7.3&timestamp=${ts}&alarm=sos`);
    await readUntil('event: alert\n');
    expect(Date.now() - sent).toBeLessThan(5000);
    const line = text.split('\n').find((l) => l.startsWith('data: {'))!;
    const streamed = JSON.parse(line.slice(6)) as Alert;
    expect(streamed).toMatchObject({ Kind: 'sos', RunnerId: runnerId, State: 'open', MessageKey: 'sos' });
    expect(streamed.Message).toBe(alertMessageEnglish('sos', {}));
    ac.abort();
  });
});
