import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { addDevice, positionsOf } from './ingest-fixtures';
import { TokenBuckets } from '../src/lib/token-buckets';
import { IngestRateLimiter } from '../src/ingest/rate-limit';

describe('token buckets', () => {
  it('allow a full burst, then the sustained rate only', () => {
    const b = new TokenBuckets({ capacity: 5, perSecond: 2 });
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) expect(b.take('a', 1, t0)).toBe(true);
    expect(b.take('a', 1, t0)).toBe(false);
    expect(b.take('b', 1, t0)).toBe(true); // other keys are independent
    expect(b.take('a', 1, t0 + 499)).toBe(false);
    expect(b.take('a', 1, t0 + 500)).toBe(true); // 2/s refill
    expect(b.take('a', 3, t0 + 10_000)).toBe(true); // refilled to capacity, not beyond
    expect(b.take('a', 3, t0 + 10_000)).toBe(false);
  });

  it('the ingest limiter answers 429 per device and per source', () => {
    const l = new IngestRateLimiter({
      device: { capacity: 2, perSecond: 0.001 },
      source: { capacity: 3, perSecond: 0.001 },
    });
    l.check('osmand', 'k1', 2);
    // the device is out of tokens: refused without using the source's
    expect(() => l.check('osmand', 'k1')).toThrowError(expect.objectContaining({ statusCode: 429 }));
    l.check('osmand', 'k2'); // the source had 3
    expect(() => l.check('osmand', 'k3')).toThrowError(
      expect.objectContaining({ statusCode: 429, code: 'rate_limited' }),
    );
    expect(l.allow('osmand', 'k3')).toBe(false);
    expect(l.allow('owntracks', 'k1')).toBe(true);
  });
});

describe('rate limits over HTTP', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp('pglite');
  });
  afterAll(async () => t?.close());

  it('a backlog of 1,000 buffered fixes in one upload is accepted; a further burst from that device gets 429 JSON', async () => {
    const dev = await addDevice(t.app);
    const other = await addDevice(t.app);
    const start = Date.now() - 10 * 3600_000;
    const location = Array.from({ length: 1000 }, (_, i) => ({
      timestamp: new Date(start + i * 30_000).toISOString(),
      coords: { latitude: 46 + i / 100_000, longitude: 7, speed: 2, altitude: 1000 },
      battery: { level: 0.8, is_charging: false },
    }));
    const backlog = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/osmand',
      payload: { device_id: dev.trackingKey, location },
    });
    expect(backlog.statusCode, backlog.body).toBe(200);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(1000);

    // Another 200 fixes right away: far more than the sustained 2/s can have refilled since.
    const more = location.map((l, i) => ({
      ...l,
      timestamp: new Date(start + (1000 + i) * 30_000).toISOString(),
    }));
    const over = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/osmand',
      payload: { device_id: dev.trackingKey, location: more.slice(0, 200) },
    });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(await positionsOf(t.app, dev.id)).toHaveLength(1000);
    const ts = Math.floor(Date.now() / 1000);
    // another device is not affected
    const fine = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${other.trackingKey}&lat=46.5&lon=7&timestamp=${ts}`,
    });
    expect(fine.statusCode).toBe(200);
  });
});
