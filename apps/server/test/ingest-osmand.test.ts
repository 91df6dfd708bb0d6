import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  secondsAgo,
} from './ingest-fixtures';
import type { LiveEvent } from '../src/events/bus';

describe.each(dbKinds)('OsmAnd / Traccar Client ingestion (%s)', (kind) => {
  let t: TestContext;
  let events: LiveEvent[];
  beforeAll(async () => {
    t = await createTestApp(kind);
    events = collectEvents(t.app);
  });
  afterAll(async () => t?.close());

  const inject = (method: 'GET' | 'POST', url: string, extra: Record<string, unknown> = {}) =>
    t.app.inject({ method, url, ...extra });

  it('accepts GET with query parameters (OsmAnd app): 200 empty body, stored with units converted', async () => {
    const dev = await addDevice(t.app);
    const ts = secondsAgo(120);
    const res = await inject(
      'GET',
      `/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5581&lon=7.9112&timestamp=${ts}&altitude=1732&speed=5.4&batt=81&hdop=0.9`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    const [p] = await positionsOf(t.app, dev.id);
    expect(p.lat).toBe(46.5581);
    expect(p.lon).toBe(7.9112);
    expect(p.fixTime.getTime()).toBe(ts * 1000);
    expect(p.altitude).toBe(1732);
    expect(p.speed).toBeCloseTo(5.4 / 1.943844, 6); // knots → m/s
    expect(p.batteryPercent).toBe(81);
    expect(p.source).toBe('osmand');
    expect(p.runnerId).toBeNull(); // no holder: kept for device health, moves nobody
    const e = events.find((x) => x.type === 'position' && x.deviceId === dev.id);
    expect(e).toMatchObject({
      type: 'position',
      positionId: p.id,
      lat: 46.5581,
      runnerId: null,
      source: 'osmand',
    });
  });

  it('accepts POST with the parameters in the query and an empty body (old Traccar Client)', async () => {
    const dev = await addDevice(t.app);
    const ts = secondsAgo(60);
    const res = await inject(
      'POST',
      `/api/ingest/osmand?id=${dev.trackingKey}&timestamp=${ts}&lat=46.1&lon=7.2&speed=0&bearing=212.0&altitude=1000&accuracy=0.0&batt=55.0`,
      { headers: { 'content-length': '0' } },
    );
    expect(res.statusCode).toBe(200);
    const rows = await positionsOf(t.app, dev.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].batteryPercent).toBe(55);
  });

  it('accepts POST with a form body and deviceid, ISO and "yyyy-MM-dd HH:mm:ss" timestamps and ms epochs', async () => {
    const dev = await addDevice(t.app);
    const iso = new Date(Date.now() - 300_000);
    iso.setMilliseconds(0);
    const plain = new Date(Date.now() - 240_000);
    plain.setMilliseconds(0);
    const ms = Date.now() - 180_000;
    const bodies = [
      `deviceid=${dev.trackingKey}&lat=46.2&lon=7.3&timestamp=${encodeURIComponent(iso.toISOString())}`,
      `deviceid=${dev.trackingKey}&lat=46.3&lon=7.4&timestamp=${encodeURIComponent(plain.toISOString().slice(0, 19).replace('T', ' '))}`,
      `id=${dev.trackingKey}&location=${encodeURIComponent('46.4,7.5')}&timestamp=${ms}`,
    ];
    for (const payload of bodies) {
      const res = await inject('POST', '/api/ingest/osmand', {
        payload,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const rows = await positionsOf(t.app, dev.id);
    expect(rows.map((r) => [r.fixTime.getTime(), r.lat, r.lon])).toEqual([
      [iso.getTime(), 46.2, 7.3],
      [plain.getTime(), 46.3, 7.4],
      [ms, 46.4, 7.5],
    ]);
  });

  it('accepts the Traccar Client 9 JSON body (speed m/s, battery 0–1) and a batch of buffered locations', async () => {
    const dev = await addDevice(t.app);
    const loc = (minAgo: number, lat: number, level: number) => ({
      timestamp: new Date(Date.now() - minAgo * 60_000).toISOString(),
      coords: { latitude: lat, longitude: 7.9, accuracy: 5, speed: 2.5, heading: 90, altitude: 1500 },
      is_moving: true,
      odometer: 1200,
      event: '',
      battery: { level, is_charging: false },
      activity: { type: 'running' },
    });
    const one = await inject('POST', '/api/ingest/osmand', {
      payload: { device_id: dev.trackingKey, location: loc(9, 46.0, 0.93) },
    });
    expect(one.statusCode, one.body).toBe(200);
    const batch = await inject('POST', '/api/ingest/osmand', {
      payload: { device_id: dev.trackingKey, location: [loc(8, 46.01, 0.92), loc(7, 46.02, 0.91)] },
    });
    expect(batch.statusCode, batch.body).toBe(200);
    const rows = await positionsOf(t.app, dev.id);
    expect(rows.map((r) => r.lat)).toEqual([46.0, 46.01, 46.02]);
    expect(rows[0].speed).toBe(2.5);
    expect(rows[0].batteryPercent).toBeCloseTo(93, 3);
    const d = await deviceRow(t.app, dev.id);
    expect(d.batteryPercent).toBeCloseTo(91, 3);
  });

  it('stores a fix delivered twice once, and publishes it once', async () => {
    const dev = await addDevice(t.app);
    const url = `/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5&lon=7.5&timestamp=${secondsAgo(30)}`;
    const [a, b] = await Promise.all([inject('POST', url), inject('POST', url)]);
    const c = await inject('GET', url);
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([200, 200, 200]);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'position' && e.deviceId === dev.id)).toHaveLength(1);
  });

  it('stores late fixes in time order; LastPingTime, position and battery follow the newest fix, not the last arrival', async () => {
    const dev = await addDevice(t.app);
    const newest = secondsAgo(60);
    const older = secondsAgo(600);
    const send = (ts: number, lat: number, batt: number) =>
      inject('GET', `/api/ingest/osmand?id=${dev.trackingKey}&lat=${lat}&lon=7&timestamp=${ts}&batt=${batt}`);
    expect((await send(newest, 46.9, 15)).statusCode).toBe(200);
    expect((await send(older, 46.1, 90)).statusCode).toBe(200); // a buffered fix arriving late
    const d = await deviceRow(t.app, dev.id);
    expect(d.lastPingTime?.getTime()).toBe(newest * 1000);
    expect(d.lastLat).toBe(46.9);
    expect(d.batteryPercent).toBe(15);
    expect(d.batteryState).toBe('LOW');
    const rows = await positionsOf(t.app, dev.id);
    expect(rows.map((r) => r.lat)).toEqual([46.1, 46.9]);
    // a newer fix moves them forward again
    expect((await send(secondsAgo(10), 46.95, 80)).statusCode).toBe(200);
    const d2 = await deviceRow(t.app, dev.id);
    expect(d2.lastLat).toBe(46.95);
    expect(d2.batteryState).toBe('GOOD');
  });

  it('refuses an unknown or missing device id with 400 JSON and stores nothing', async () => {
    const before = await countPositions(t.app);
    const unknown = await inject(
      'GET',
      `/api/ingest/osmand?id=not-a-key&lat=46&lon=7&timestamp=${secondsAgo(5)}`,
    );
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ error: 'unknown_device', message: expect.any(String) });
    const missing = await inject('GET', `/api/ingest/osmand?lat=46&lon=7`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('missing_device_id');
    const json = await inject('POST', '/api/ingest/osmand', {
      payload: {
        device_id: 'nope',
        location: { timestamp: new Date().toISOString(), coords: { latitude: 1, longitude: 2 } },
      },
    });
    expect(json.statusCode).toBe(400);
    expect(await countPositions(t.app)).toBe(before);
  });

  it.each([
    ['lat=91&lon=7', /Latitude/],
    ['lat=-90.5&lon=7', /Latitude/],
    ['lat=46&lon=180.01', /Longitude/],
    ['lat=abc&lon=7', /Latitude/],
    ['lat=46&lon=Infinity', /Longitude/],
    ['lat=46&lon=7&timestamp=not-a-time', /time/],
    [`lat=46&lon=7&timestamp=${Math.floor(Date.now() / 1000) + 11 * 60}`, /future/],
  ])('refuses invalid %s with 400 and stores nothing', async (params, message) => {
    const dev = await addDevice(t.app);
    const res = await inject('GET', `/api/ingest/osmand?id=${dev.trackingKey}&${params}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_position');
    expect(res.json().message).toMatch(message);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
  });

  it('accepts a fix up to 10 minutes in the future (device clock drift)', async () => {
    const dev = await addDevice(t.app);
    const res = await inject(
      'GET',
      `/api/ingest/osmand?id=${dev.trackingKey}&lat=46&lon=7&timestamp=${Math.floor(Date.now() / 1000) + 9 * 60}`,
    );
    expect(res.statusCode).toBe(200);
  });

  it('refuses a JSON batch whole when one location is invalid', async () => {
    const dev = await addDevice(t.app);
    const ok = {
      timestamp: new Date(Date.now() - 60_000).toISOString(),
      coords: { latitude: 46, longitude: 7 },
    };
    const bad = {
      timestamp: new Date(Date.now() - 30_000).toISOString(),
      coords: { latitude: 146, longitude: 7 },
    };
    const res = await inject('POST', '/api/ingest/osmand', {
      payload: { device_id: dev.trackingKey, location: [ok, bad] },
    });
    expect(res.statusCode).toBe(400);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(0);
  });

  it('takes a buffered backlog of 400 fixes sent at once (oldest first), each stored once', async () => {
    const dev = await addDevice(t.app);
    const start = secondsAgo(4 * 3600);
    const results = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        inject(
          'POST',
          `/api/ingest/osmand?id=${dev.trackingKey}&lat=${46 + i / 10000}&lon=7&timestamp=${start + i * 30}`,
        ),
      ),
    );
    expect(results.filter((r) => r.statusCode !== 200)).toHaveLength(0);
    const rows = await positionsOf(t.app, dev.id);
    expect(rows).toHaveLength(400);
    expect((await deviceRow(t.app, dev.id)).lastPingTime?.getTime()).toBe((start + 399 * 30) * 1000);
  });

  it('attributes a fix to the runner holding the device and publishes race and runner', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app);
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const res = await inject(
      'GET',
      `/api/ingest/osmand?id=${dev.trackingKey}&lat=46&lon=7&timestamp=${secondsAgo(20)}`,
    );
    expect(res.statusCode).toBe(200);
    const [p] = await positionsOf(t.app, dev.id);
    expect(p.raceId).toBe(raceId);
    expect(p.runnerId).toBe(runnerId);
    expect(events.find((e) => e.type === 'position' && e.positionId === p.id)).toMatchObject({
      raceId,
      runnerId,
    });
  });
});
