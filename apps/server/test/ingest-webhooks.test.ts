import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import {
  addDevice,
  addRace,
  addRunner,
  assign,
  collectEvents,
  countPositions,
  deviceRow,
  positionsOf,
} from './ingest-fixtures';
import { deviceAlerts } from '../src/db/schema';
import type { LiveEvent } from '../src/events/bus';

const INREACH_TOKEN = '7d41b0c2-race-secret';
const LORA_SECRET = 'lora-webhook-secret-123';

describe.each(dbKinds)('webhook sources (%s)', (kind) => {
  let t: TestContext;
  let events: LiveEvent[];
  beforeAll(async () => {
    t = await createTestApp(kind, {
      INREACH_OUTBOUND_TOKEN: INREACH_TOKEN,
      LORAWAN_WEBHOOK_SECRET: LORA_SECRET,
    });
    events = collectEvents(t.app);
  });
  afterAll(async () => t?.close());

  describe('Garmin inReach IPC Outbound', () => {
    const batch = (imeiA: string, imeiB: string, base: number) => ({
      Version: '2.0',
      Events: [
        {
          imei: imeiA,
          messageCode: 0,
          freeText: '',
          timeStamp: base,
          addresses: [],
          point: { latitude: 46.5581, longitude: 7.9112, altitude: 1732, gpsFix: 2, course: 212, speed: 0 },
          status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
        },
        {
          imei: imeiA,
          messageCode: 4, // Declare SOS, with a fix
          freeText: 'Fell, ankle broken',
          timeStamp: base + 420_000,
          addresses: [],
          point: { latitude: 46.5702, longitude: 7.9321, altitude: 1905, gpsFix: 2, course: 35, speed: 0 },
          status: { autonomous: 0, lowBattery: 1, intervalChange: 0, resetDetected: 0 },
        },
        {
          imei: imeiB,
          messageCode: 3, // free text without a GPS fix: no position
          freeText: 'CP3 ok',
          timeStamp: base + 60_000,
          addresses: [{ address: 'ops@race.example.org' }],
          point: { latitude: 0, longitude: 0, altitude: 0, gpsFix: 0, course: 0, speed: 0 },
          status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
        },
      ],
    });

    it('stores positions, records the SOS as an alert on the runner, publishes it; a re-delivered batch changes nothing', async () => {
      const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
      const runnerId = await addRunner(t.app, raceId);
      const a = await addDevice(t.app, { source: 'inreach', hardwareId: '300434060123450' });
      const b = await addDevice(t.app, { source: 'inreach', hardwareId: '300434060987650' });
      await assign(t.app, a.id, raceId, runnerId, new Date(Date.now() - 7200_000));
      const base = Date.now() - 1800_000;
      const send = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/ingest/inreach',
          headers: { 'x-outbound-auth-token': INREACH_TOKEN },
          payload: batch('300434060123450', '300434060987650', base),
        });
      const res = await send();
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ stored: 2, duplicates: 0, alerts: 1 });
      const rows = await positionsOf(t.app, a.id);
      expect(rows.map((r) => [r.fixTime.getTime(), r.lat, r.runnerId])).toEqual([
        [base, 46.5581, runnerId],
        [base + 420_000, 46.5702, runnerId],
      ]);
      expect(await positionsOf(t.app, b.id)).toHaveLength(0);
      const d = await deviceRow(t.app, a.id);
      expect(d.batteryState).toBe('LOW');
      expect(d.lastPingTime?.getTime()).toBe(base + 420_000);
      const alerts = await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, a.id));
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({
        kind: 'sos',
        runnerId,
        raceId,
        message: 'Fell, ankle broken',
        lat: 46.5702,
      });
      expect(events).toContainEqual({
        type: 'alert',
        raceId,
        runnerId,
        deviceId: a.id,
        kind: 'sos',
        at: new Date(base + 420_000).toISOString(),
      });

      const again = await send();
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ stored: 0, duplicates: 2, alerts: 0 });
      expect(await positionsOf(t.app, a.id)).toHaveLength(2);
      expect(await t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, a.id))).toHaveLength(
        1,
      );
    });

    it('refuses a missing or wrong token with 401 and stores nothing', async () => {
      const dev = await addDevice(t.app, { source: 'inreach', hardwareId: '300434060111111' });
      const payload = batch('300434060111111', '300434060111111', Date.now() - 60_000);
      for (const headers of [
        {},
        { 'x-outbound-auth-token': 'wrong' },
        { 'x-outbound-auth-token': INREACH_TOKEN + 'x' },
      ]) {
        const res = await t.app.inject({ method: 'POST', url: '/api/ingest/inreach', headers, payload });
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toBe('unauthorized');
      }
      expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
    });

    it('answers 200 to an authenticated batch of unknown devices or invalid points (Garmin must not suspend us)', async () => {
      const before = await countPositions(t.app);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/inreach',
        headers: { 'x-outbound-auth-token': INREACH_TOKEN },
        payload: {
          Version: '2.0',
          Events: [
            {
              imei: '999',
              messageCode: 0,
              timeStamp: Date.now(),
              point: { latitude: 46, longitude: 7, gpsFix: 2 },
            },
            {
              imei: '300434060123450',
              messageCode: 0,
              timeStamp: Date.now(),
              point: { latitude: 95, longitude: 7, gpsFix: 2 },
            },
          ],
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ stored: 0, skipped: 2 });
      expect(await countPositions(t.app)).toBe(before);
    });
  });

  describe('LoRaWAN', () => {
    const ttnUplink = (devEui: string, fCnt: number, at: Date, decoded: Record<string, unknown>) => ({
      end_device_ids: {
        device_id: 'runner-tracker-042',
        application_ids: { application_id: 'trail-race-2025' },
        dev_eui: devEui,
        join_eui: '0000000000000000',
        dev_addr: '260B4C19',
      },
      correlation_ids: ['as:up:01JAB3XYZ0000000000000000'],
      received_at: new Date(at.getTime() + 1000).toISOString(),
      uplink_message: {
        session_key_id: 'AZJk3q9dWz8f1Xl0aPq7sA==',
        f_port: 2,
        f_cnt: fCnt,
        frm_payload: 'AUmnGwBcq/0G1lE=',
        decoded_payload: decoded,
        rx_metadata: [
          {
            gateway_ids: { gateway_id: 'cp3-col-gw', eui: 'B827EBFFFE4A11C0' },
            time: at.toISOString(),
            rssi: -112,
            snr: -6.5,
            location: { latitude: 46.561, longitude: 7.905, altitude: 1790, source: 'SOURCE_REGISTRY' },
          },
        ],
        received_at: new Date(at.getTime() + 500).toISOString(),
        locations: { user: { latitude: 10, longitude: 10, source: 'SOURCE_REGISTRY' } },
      },
    });

    it('TTN: position and battery from the decoded payload at the gateway receive time; re-delivery stored once', async () => {
      const dev = await addDevice(t.app, { source: 'lorawan', hardwareId: '70b3d57ed0061a2f' });
      const at = new Date(Date.now() - 120_000);
      const payload = ttnUplink('70B3D57ED0061A2F', 318, at, {
        latitude: 46.5581,
        longitude: 7.9112,
        altitude: 1732,
        battery: 81,
        sats: 9,
      });
      const headers = { authorization: `Bearer ${LORA_SECRET}` };
      const res = await t.app.inject({ method: 'POST', url: '/api/ingest/ttn', headers, payload });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'stored' });
      const dup = await t.app.inject({ method: 'POST', url: '/api/ingest/ttn', headers, payload });
      expect(dup.json()).toEqual({ status: 'duplicate' });
      const rows = await positionsOf(t.app, dev.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        lat: 46.5581,
        lon: 7.9112,
        altitude: 1732,
        batteryPercent: 81,
        source: 'lorawan',
      });
      expect(rows[0].fixTime.getTime()).toBe(at.getTime());
    });

    it('TTN: nested decoder fields (gps.lat/lng) and a network location when the decoder has none', async () => {
      const dev = await addDevice(t.app, { source: 'lorawan', hardwareId: 'A1B2C3D4E5F60708' });
      const headers = { authorization: `Bearer ${LORA_SECRET}` };
      const at1 = new Date(Date.now() - 200_000);
      const r1 = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/ttn',
        headers,
        payload: ttnUplink('A1B2C3D4E5F60708', 1, at1, { gps: { lat: 45.1, lng: 6.2 }, batteryLevel: 64 }),
      });
      expect(r1.json()).toEqual({ status: 'stored' });
      const at2 = new Date(Date.now() - 100_000);
      const up2 = ttnUplink('A1B2C3D4E5F60708', 2, at2, { temperature: 4 });
      (up2.uplink_message.locations as Record<string, unknown>)['frm-payload'] = {
        latitude: 45.2,
        longitude: 6.3,
        source: 'SOURCE_GPS',
      };
      const r2 = await t.app.inject({ method: 'POST', url: '/api/ingest/ttn', headers, payload: up2 });
      expect(r2.json()).toEqual({ status: 'stored' });
      const rows = await positionsOf(t.app, dev.id);
      expect(rows.map((r) => [r.lat, r.lon])).toEqual([
        [45.1, 6.2],
        [45.2, 6.3],
      ]);
      expect(rows[0].batteryPercent).toBe(64);
    });

    it('ChirpStack v4: up event with a decoded object; status event updates the battery; other events ignored', async () => {
      const dev = await addDevice(t.app, { source: 'lorawan', hardwareId: '70B3D57ED0061B30' });
      const headers = { authorization: `Bearer ${LORA_SECRET}` };
      const at = new Date(Date.now() - 90_000);
      const up = {
        deduplicationId: '5b7c2f4e-8a1d-4c11-9a3e-0c2d6f1e9b77',
        time: at.toISOString().replace('Z', '000+00:00'),
        deviceInfo: {
          tenantName: 'Race Ops',
          applicationName: 'trail-race-2025',
          deviceName: 'runner-tracker-043',
          devEui: '70b3d57ed0061b30',
          tags: { bib: '427' },
        },
        devAddr: '260b4c19',
        fCnt: 318,
        fPort: 2,
        data: 'AUmnGwBcq/0G1lE=',
        object: { latitude: 46.5581, longitude: 7.9112, altitude: 1732, battery: 77 },
        rxInfo: [
          {
            gatewayId: 'b827ebfffe4a11c0',
            rssi: -112,
            snr: -6.5,
            location: { latitude: 46.561, longitude: 7.905 },
          },
        ],
      };
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/chirpstack?event=up',
        headers,
        payload: up,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'stored' });
      const [p] = await positionsOf(t.app, dev.id);
      expect(p).toMatchObject({ lat: 46.5581, lon: 7.9112, batteryPercent: 77 });
      expect(p.fixTime.getTime()).toBe(at.getTime());

      const status = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/chirpstack?event=status',
        headers,
        payload: {
          deviceInfo: { devEui: '70b3d57ed0061b30' },
          margin: 7,
          batteryLevel: 12.5,
          externalPowerSource: false,
        },
      });
      expect(status.json()).toEqual({ status: 'battery' });
      const d = await deviceRow(t.app, dev.id);
      expect(d.batteryPercent).toBe(12.5);

      const join = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/chirpstack?event=join',
        headers,
        payload: { deviceInfo: { devEui: '70b3d57ed0061b30' }, devAddr: '01020304' },
      });
      expect(join.json()).toEqual({ status: 'ignored' });
      expect(await positionsOf(t.app, dev.id)).toHaveLength(1);
    });

    it('refuses missing or wrong bearer secrets (401) and invalid coordinates (400); stores nothing', async () => {
      const dev = await addDevice(t.app, { source: 'lorawan', hardwareId: '0011223344556677' });
      const payload = ttnUplink('0011223344556677', 9, new Date(Date.now() - 1000), {
        latitude: 46,
        longitude: 7,
      });
      for (const url of ['/api/ingest/ttn', '/api/ingest/chirpstack?event=up']) {
        for (const authorization of [undefined, 'Bearer nope', `Basic ${LORA_SECRET}`]) {
          const res = await t.app.inject({
            method: 'POST',
            url,
            headers: authorization ? { authorization } : {},
            payload,
          });
          expect(res.statusCode).toBe(401);
          expect(res.json().error).toBe('unauthorized');
        }
      }
      const bad = ttnUplink('0011223344556677', 10, new Date(Date.now() - 1000), {
        latitude: 46,
        longitude: 270,
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/ttn',
        headers: { authorization: `Bearer ${LORA_SECRET}` },
        payload: bad,
      });
      expect(res.statusCode).toBe(400);
      expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
    });
  });

  describe('OwnTracks HTTP', () => {
    const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

    it('stores a location with the tracking key as Basic password and answers []', async () => {
      const dev = await addDevice(t.app, { source: 'owntracks' });
      const tst = Math.floor(Date.now() / 1000) - 300;
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/owntracks',
        headers: {
          authorization: basic('bib0427', dev.trackingKey),
          'x-limit-u': 'bib0427',
          'x-limit-d': 'pixel7',
        },
        payload: {
          _type: 'location',
          lat: 46.5581,
          lon: 7.9112,
          tst,
          created_at: tst + 3,
          acc: 8,
          alt: 1732,
          vel: 10,
          cog: 212,
          batt: 81,
          bs: 1,
          tid: '27',
          t: 't',
          conn: 'm',
          topic: 'owntracks/bib0427/pixel7',
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.json()).toEqual([]);
      const [p] = await positionsOf(t.app, dev.id);
      expect(p).toMatchObject({
        lat: 46.5581,
        lon: 7.9112,
        altitude: 1732,
        batteryPercent: 81,
        source: 'owntracks',
      });
      expect(p.speed).toBeCloseTo(10 / 3.6, 6);
      expect(p.fixTime.getTime()).toBe(tst * 1000);
    });

    it('answers [] to other message types with a valid key, 401 without or with a wrong key', async () => {
      const dev = await addDevice(t.app, { source: 'owntracks' });
      const before = await countPositions(t.app);
      const ok = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/owntracks',
        headers: { authorization: basic('x', dev.trackingKey) },
        payload: { _type: 'transition', event: 'enter', tst: 1 },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual([]);
      const loc = { _type: 'location', lat: 46, lon: 7, tst: Math.floor(Date.now() / 1000) };
      for (const headers of [
        {},
        { authorization: basic('x', 'wrong-key') },
        { authorization: `Bearer ${dev.trackingKey}` },
      ]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/ingest/owntracks',
          headers,
          payload: loc,
        });
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/Basic/);
      }
      expect(await countPositions(t.app)).toBe(before);
    });
  });
});

describe('webhook sources without their secret configured', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp('pglite');
  });
  afterAll(async () => t?.close());

  it.each(['/api/ingest/inreach', '/api/ingest/ttn', '/api/ingest/chirpstack?event=up'])(
    '%s answers 503 with a JSON message',
    async (url) => {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'x-outbound-auth-token': '', authorization: 'Bearer ' },
        payload: {},
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'not_configured', message: expect.stringMatching(/not set/) });
    },
  );
});
