import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import {
  addDevice,
  addRace,
  addRunner,
  assign,
  countPositions,
  deviceRow,
  positionsOf,
  waitFor,
} from './ingest-fixtures';
import { deviceAlerts, spotFeeds } from '../src/db/schema';
import { parseMeshtastic } from '../src/ingest/adapters/meshtastic';
import { parseOsmandParams, parseTraccarJson } from '../src/ingest/adapters/osmand';
import { parseInreach } from '../src/ingest/adapters/inreach';
import { parseSpotFeed } from '../src/ingest/adapters/spot';
import { alertProblem, fixProblem } from '../src/ingest/validate';
import type { FixInput } from '../src/ingest/types';

/**
 * Issue 9, defects 3, 4 (ingest part) and 9: values a column cannot hold, NUL bytes, unusable times and oversized
 * batches are refused up front (4xx JSON, nothing stored), and batch sources store the good and skip the bad.
 */

const INREACH_TOKEN = 'inreach-bad-values-token';
const LORA_SECRET = 'lora-bad-values-secret';
const NUL = '\u0000';

const good = (over: Partial<FixInput> = {}): FixInput => ({
  device: { trackingKey: 'k' },
  source: 'osmand',
  fixTime: new Date(Date.now() - 60_000),
  lat: 46.5,
  lon: 7.5,
  altitude: 1000,
  speed: 2,
  batteryPercent: 50,
  batteryState: 'GOOD',
  ...over,
});

describe('validation against the columns a fix is stored in', () => {
  it('battery: 0–100 %, and never a value a `real` column cannot hold', () => {
    expect(fixProblem(good())).toBeNull();
    expect(fixProblem(good({ batteryPercent: 0 }))).toBeNull();
    expect(fixProblem(good({ batteryPercent: 100 }))).toBeNull();
    expect(fixProblem(good({ batteryPercent: null }))).toBeNull();
    for (const b of [1e39, 1e308, -5, -0.5, 100.5, 1e-50, 1e-39, Infinity, NaN])
      expect(fixProblem(good({ batteryPercent: b })), String(b)).toMatch(/battery/i);
  });

  it('altitude and speed must be finite (double precision); text without NUL, within a sane length', () => {
    expect(fixProblem(good({ altitude: Infinity }))).toMatch(/altitude/);
    expect(fixProblem(good({ speed: -Infinity }))).toMatch(/speed/);
    expect(fixProblem(good({ altitude: 1e308 }))).toBeNull(); // a double holds it
    expect(fixProblem(good({ batteryState: `GO${NUL}OD` }))).toMatch(/battery state/i);
    expect(fixProblem(good({ batteryState: 'X'.repeat(100) }))).toMatch(/battery state/i);
    expect(fixProblem(good({ device: { trackingKey: `a${NUL}b` } }))).toMatch(/device/i);
    expect(fixProblem(good({ device: { trackingKey: '\ud800' } }))).toMatch(/device/i);
    expect(fixProblem(good({ device: { trackingKey: 'k'.repeat(1000) } }))).toMatch(/device/i);
    expect(fixProblem(good({ device: { source: 'inreach', hardwareIds: [`3004${NUL}`] } }))).toMatch(
      /device/i,
    );
    expect(fixProblem(good({ device: { deviceId: 2 ** 31 } }))).toMatch(/device/i);
    expect(fixProblem(good({ device: { deviceId: 12 } }))).toBeNull();
  });

  it('an alert needs a usable time, coordinates in range and a message without NUL', () => {
    const a = {
      device: { source: 'inreach' as const, hardwareIds: ['300434060123450'] },
      kind: 'sos',
      at: new Date(Date.now() - 1000),
      message: 'help',
      lat: 46,
      lon: 7,
    };
    expect(alertProblem(a)).toBeNull();
    expect(alertProblem({ ...a, at: new Date(1e20) })).toMatch(/time/);
    expect(alertProblem({ ...a, at: new Date(Date.UTC(275000, 0, 1)) })).toMatch(/time/);
    expect(alertProblem({ ...a, lat: 91 })).toMatch(/Latitude/);
    expect(alertProblem({ ...a, message: `a${NUL}` })).toMatch(/message/);
    expect(alertProblem({ ...a, lat: null, lon: null, message: null })).toBeNull();
  });
});

describe('adapters never pass a NUL byte or an unusable time on', () => {
  it('OsmAnd / Traccar: a device id with a NUL byte is a 400 invalid_device_id', () => {
    expect(() => parseOsmandParams({ id: `ab${NUL}`, lat: '1', lon: '2' })).toThrowError(
      expect.objectContaining({ statusCode: 400, code: 'invalid_device_id' }),
    );
    expect(() =>
      parseTraccarJson({ device_id: NUL, location: { coords: { latitude: 1, longitude: 2 } } }),
    ).toThrowError(expect.objectContaining({ statusCode: 400, code: 'invalid_device_id' }));
  });

  it('inReach: an event with an unusable time or IMEI is rejected with a reason; NUL is stripped from text', () => {
    const base = Date.now() - 60_000;
    const p = parseInreach({
      Events: [
        {
          imei: '300434060123450',
          messageCode: 0,
          timeStamp: 1e20,
          point: { latitude: 1, longitude: 2, gpsFix: 2 },
        },
        {
          imei: `3004${NUL}`,
          messageCode: 0,
          timeStamp: base,
          point: { latitude: 1, longitude: 2, gpsFix: 2 },
        },
        {
          imei: '300434060123450',
          messageCode: 4,
          timeStamp: base,
          freeText: `he${NUL}lp`,
          point: { gpsFix: 0 },
        },
      ],
    });
    expect(p.rejected.map((r) => r.index)).toEqual([0, 1]);
    expect(p.fixes).toHaveLength(0);
    expect(p.alerts).toEqual([expect.objectContaining({ kind: 'sos', message: 'help' })]);
  });

  it('SPOT: an unusable time skips the position (its SOS is kept), an unusable ESN the message; NUL is removed', () => {
    const now = Math.floor(Date.now() / 1000);
    const msg = (o: Record<string, unknown>) => ({
      messengerId: '0-1',
      unixTime: now - 60,
      latitude: 46,
      longitude: 7,
      messageType: 'SOS',
      ...o,
    });
    const p = parseSpotFeed({
      response: {
        feedMessageResponse: {
          messages: {
            message: [
              msg({ unixTime: 1e20 }),
              msg({ messengerId: `0-${NUL}` }),
              msg({ messageContent: `ok${NUL}`, batteryState: `LOW${NUL}` }),
            ],
          },
        },
      },
    });
    expect(p.ok && p.fixes).toHaveLength(1);
    expect(p.ok && p.fixes[0].batteryState).toBe('LOW');
    // The SOS with an unusable time is kept: the pipeline records it at its receive time.
    expect(p.ok && p.alerts).toEqual([
      expect.objectContaining({ kind: 'sos', message: null, sourceTime: 1e20 }),
      expect.objectContaining({ message: 'ok' }),
    ]);
  });

  it('Meshtastic: a negative battery level is ignored, not stored', () => {
    const t = (level: number) =>
      parseMeshtastic(
        JSON.stringify({ id: 1, from: 5, type: 'telemetry', payload: { battery_level: level } }),
      );
    expect(t(-5)).toEqual({ kind: 'ignored' });
    expect(t(55)).toMatchObject({ kind: 'battery', percent: 55 });
  });
});

describe.each(dbKinds)('bad values over HTTP (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      INREACH_OUTBOUND_TOKEN: INREACH_TOKEN,
      LORAWAN_WEBHOOK_SECRET: LORA_SECRET,
    });
  });
  afterAll(async () => t?.close());

  const expectJson4xx = (res: { statusCode: number; body: string; json(): unknown }, status: number) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
  };

  it('OsmAnd batt outside 0–100 % or outside the float range → 400 invalid_position, nothing stored; others unaffected', async () => {
    const dev = await addDevice(t.app);
    const other = await addDevice(t.app);
    const ts = Math.floor(Date.now() / 1000) - 600;
    const before = await countPositions(t.app);
    const bad = ['1e39', '1e308', '1e-50', '-5', '101', 'Infinity'];
    // Sent together with good pings of another device, so they land in the same group-commit batches.
    const results = await Promise.all([
      ...bad.map((b, i) =>
        t.app.inject(`/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5&lon=7&timestamp=${ts + i}&batt=${b}`),
      ),
      ...bad.map((_, i) =>
        t.app.inject(`/api/ingest/osmand?id=${other.trackingKey}&lat=46.5&lon=7&timestamp=${ts + i}&batt=80`),
      ),
    ]);
    for (const res of results.slice(0, bad.length)) {
      expectJson4xx(res, 400);
      expect((res.json() as { error: string }).error).toBe('invalid_position');
    }
    for (const res of results.slice(bad.length)) expect(res.statusCode, res.body).toBe(200);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
    expect(await positionsOf(t.app, other.id)).toHaveLength(bad.length);
    expect(await countPositions(t.app)).toBe(before + bad.length);
    const d = await deviceRow(t.app, dev.id);
    expect(d.batteryPercent).toBeNull();
  });

  it('Traccar JSON battery.level 1e39 → 400 invalid_position; a batch is stored whole or not at all', async () => {
    const dev = await addDevice(t.app);
    const loc = (minAgo: number, level: number) => ({
      timestamp: new Date(Date.now() - minAgo * 60_000).toISOString(),
      coords: { latitude: 46.5, longitude: 7.1, speed: 1 },
      battery: { level, is_charging: false },
    });
    // (A negative level is the SDK's "unknown" and stored without a battery; see ingest-adapters.test.ts.)
    for (const location of [loc(5, 1e39), [loc(4, 0.5), loc(3, 1e39)], loc(2, 1e308), loc(1, 1.5)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        payload: { device_id: dev.trackingKey, location },
      });
      expectJson4xx(res, 400);
      expect((res.json() as { error: string }).error).toBe('invalid_position');
    }
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
  });

  it('a NUL byte in the OsmAnd id (query, form, JSON) → 400, never 5xx', async () => {
    const ts = Math.floor(Date.now() / 1000) - 60;
    const responses = [
      await t.app.inject(`/api/ingest/osmand?id=abc%00def&lat=46.5&lon=7&timestamp=${ts}`),
      await t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `id=%00&lat=46.5&lon=7&timestamp=${ts}`,
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        headers: { 'content-type': 'text/plain' },
        payload: `id=a%00&lat=46.5&lon=7&timestamp=${ts}`,
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        payload: { device_id: `x${NUL}`, location: { coords: { latitude: 46, longitude: 7 } } },
      }),
    ];
    for (const res of responses) expectJson4xx(res, 400);
  });

  it('OwnTracks: a NUL byte in the password → 400; battery 1e39 or an unusable tst → 400 invalid_position', async () => {
    const dev = await addDevice(t.app, { source: 'owntracks' });
    const basic = (pw: string) => `Basic ${Buffer.from(`runner:${pw}`).toString('base64')}`;
    const tst = Math.floor(Date.now() / 1000) - 30;
    const nul = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/owntracks',
      headers: { authorization: basic(`${dev.trackingKey}${NUL}`) },
      payload: { _type: 'location', lat: 46, lon: 7, tst },
    });
    expectJson4xx(nul, 400);
    const nulNoFix = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/owntracks',
      headers: { authorization: basic(NUL) },
      payload: { _type: 'transition' },
    });
    expectJson4xx(nulNoFix, 400);
    for (const body of [
      { _type: 'location', lat: 46, lon: 7, tst, batt: 1e39 },
      { _type: 'location', lat: 46, lon: 7, tst, batt: -5 },
      { _type: 'location', lat: 46, lon: 7, tst: 1e20 },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/owntracks',
        headers: { authorization: basic(dev.trackingKey) },
        payload: body,
      });
      expectJson4xx(res, 400);
      expect((res.json() as { error: string }).error).toBe('invalid_position');
    }
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
  });

  it('TTN / ChirpStack: a NUL byte in the DevEUI → 400; batteryLevel 1e39 → 400 invalid_position', async () => {
    const dev = await addDevice(t.app, { source: 'lorawan', hardwareId: '70b3d57ed00bad01' });
    const headers = { authorization: `Bearer ${LORA_SECRET}` };
    const at = new Date(Date.now() - 60_000).toISOString();
    const ttn = (devEui: string, decoded: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      end_device_ids: { device_id: 'x', dev_eui: devEui },
      received_at: at,
      uplink_message: { f_cnt: 1, decoded_payload: decoded, received_at: at, ...extra },
    });
    const send = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers, payload });

    expectJson4xx(await send('/api/ingest/ttn', ttn(`70b3${NUL}`, { latitude: 46, longitude: 7 })), 400);
    expectJson4xx(
      await send('/api/ingest/chirpstack?event=up', {
        time: at,
        deviceInfo: { devEui: `${NUL}` },
        object: { latitude: 46, longitude: 7 },
      }),
      400,
    );
    expectJson4xx(
      await send('/api/ingest/chirpstack?event=status', {
        deviceInfo: { devEui: `ab${NUL}` },
        batteryLevel: 50,
      }),
      400,
    );

    for (const batteryLevel of [1e39, 1e308, -5]) {
      const res = await send('/api/ingest/chirpstack?event=status', {
        deviceInfo: { devEui: '70b3d57ed00bad01' },
        batteryLevel,
      });
      expectJson4xx(res, 400);
      expect((res.json() as { error: string }).error).toBe('invalid_position');
    }
    const ttnBatt = await send(
      '/api/ingest/ttn',
      ttn('70B3D57ED00BAD01', { latitude: 46, longitude: 7 }, { last_battery_percentage: { value: 1e39 } }),
    );
    expectJson4xx(ttnBatt, 400);
    expect((ttnBatt.json() as { error: string }).error).toBe('invalid_position');
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
    expect((await deviceRow(t.app, dev.id)).batteryPercent).toBeNull();

    // The same device with sane values still works.
    const ok = await send('/api/ingest/chirpstack?event=status', {
      deviceInfo: { devEui: '70b3d57ed00bad01' },
      batteryLevel: 42,
    });
    expect(ok.json()).toEqual({ status: 'battery' });
    expect((await deviceRow(t.app, dev.id)).batteryPercent).toBe(42);
  });

  it('inReach: a batch it could read is answered 200; the good events (SOS included) are stored, the bad skipped', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const a = await addDevice(t.app, { source: 'inreach', hardwareId: '300434060000001' });
    await assign(t.app, a.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const base = Date.now() - 1800_000;
    const sentAt = Date.now();
    const ev = (o: Record<string, unknown>) => ({
      imei: '300434060000001',
      messageCode: 0,
      freeText: '',
      timeStamp: base,
      addresses: [],
      point: { latitude: 46.5, longitude: 7.9, altitude: 1700, gpsFix: 2, course: 0, speed: 0 },
      status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
      ...o,
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: {
        Version: '2.0',
        Events: [
          ev({ timeStamp: 1e20 }), // position, unusable time
          ev({ messageCode: 4, timeStamp: 1e20, freeText: 'bad time SOS' }), // SOS, unusable time
          ev({ timeStamp: base + 60_000 }), // good position
          ev({ imei: `30043406${NUL}`, timeStamp: base + 90_000 }), // NUL in the IMEI
          ev({ timeStamp: Date.now() + 86_400_000 }), // a day in the future
          ev({ messageCode: 4, timeStamp: base + 120_000, freeText: `Fell${NUL}, ankle` }), // good SOS, NUL in text
          ev({ messageCode: 7, timeStamp: Date.UTC(275000, 0, 1), point: { gpsFix: 0 } }), // cancel, year 275000
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    // Alerts with an unusable time (the SOS, the cancel) are recorded at their receive time, never dropped.
    expect(res.json()).toMatchObject({ stored: 2, alerts: 3 });
    const rows = await positionsOf(t.app, a.id);
    expect(rows.map((r) => r.fixTime.getTime())).toEqual([base + 60_000, base + 120_000]);
    expect(rows.every((r) => r.runnerId === runnerId)).toBe(true);
    const alerts = await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, a.id));
    const receivedNow = (x: (typeof alerts)[number]) =>
      x.at.getTime() === x.receivedAt.getTime() &&
      x.at.getTime() >= sentAt - 1000 &&
      x.at.getTime() <= Date.now();
    expect(alerts.filter((x) => !receivedNow(x)).map((x) => [x.kind, x.at.getTime(), x.message])).toEqual([
      ['sos', base + 120_000, 'Fell, ankle'],
    ]);
    expect(
      alerts
        .filter(receivedNow)
        .map((x) => [x.kind, x.message, x.runnerId])
        .sort(),
    ).toEqual([
      ['sos', 'bad time SOS', runnerId],
      ['sos-cancel', null, runnerId],
    ]);
  });

  it('a Traccar batch up to the documented 1,000 fixes is accepted; past it 413 with the limit, nothing stored', async () => {
    const dev = await addDevice(t.app);
    const start = Date.now() - 20 * 3600_000;
    const location = Array.from({ length: 1001 }, (_, i) => ({
      timestamp: new Date(start + i * 30_000).toISOString(),
      coords: { latitude: 46 + i / 100_000, longitude: 7, speed: 2 },
      battery: { level: 0.8, is_charging: false },
    }));
    const post = (loc: unknown[]) =>
      t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        payload: { device_id: dev.trackingKey, location: loc },
      });
    // Refused however full the device's bucket is: retrying would never help.
    for (let i = 0; i < 2; i++) {
      const big = await post(location);
      expectJson4xx(big, 413);
      expect(big.json()).toMatchObject({
        error: 'batch_too_large',
        message: expect.stringContaining('1000'),
      });
    }
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
    const ok = await post(location.slice(0, 1000));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(1000);
  });
});

describe.each(dbKinds)('SPOT poll with a bad message (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  let body: unknown = {};

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    t = await createTestApp(kind, { SPOT_API_URL: `http://127.0.0.1:${port}/feed`, SPOT_POLL_SECONDS: '1' });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server.close(r));
  });

  it('stores the good messages (and their SOS), skips the position with an unusable time but records its SOS at receive time; the poll does not fail', async () => {
    const now = Math.floor(Date.now() / 1000);
    const msg = (id: number, unixTime: number, messageType: string, lat: number) => ({
      id,
      messengerId: '0-7770001',
      unixTime,
      messageType,
      latitude: lat,
      longitude: 7.9,
      batteryState: 'GOOD',
      altitude: 1700,
    });
    body = {
      response: {
        feedMessageResponse: {
          count: 3,
          messages: {
            message: [
              msg(3, 1e20, 'SOS', 46.3),
              msg(2, now - 120, 'SOS', 46.2),
              msg(1, now - 300, 'TRACK', 46.1),
            ],
          },
        },
      },
    };
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app, { source: 'spot', hardwareId: '0-7770001' });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const admin = await t.issuer.admin();
    const add = await t.app.inject({
      method: 'POST',
      url: '/api/admin/spot-feeds',
      headers: { authorization: `Bearer ${admin}` },
      payload: { FeedId: 'FEEDBADTIME' },
    });
    expect(add.statusCode, add.body).toBe(201);
    await t.app.events.publish({ type: 'race-updated', raceId });

    const alerts = await waitFor(
      () => t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, dev.id)),
      (a) => a.length >= 2,
    );
    const atReceive = alerts.filter((a) => a.at.getTime() === a.receivedAt.getTime());
    expect(alerts.filter((a) => !atReceive.includes(a)).map((a) => a.at.getTime())).toEqual([
      (now - 120) * 1000,
    ]);
    expect(atReceive.map((a) => [a.kind, a.lat])).toEqual([['sos', 46.3]]);
    const rows = await positionsOf(t.app, dev.id);
    expect(rows.map((r) => r.lat)).toEqual([46.1, 46.2]);
    const [feed] = await t.app.db.select().from(spotFeeds).where(eq(spotFeeds.feedId, 'FEEDBADTIME'));
    expect(feed.lastError).toBeNull();
  });
});
