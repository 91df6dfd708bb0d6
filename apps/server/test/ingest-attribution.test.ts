import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, addRace, addRunner, assign, positionsOf, waitFor } from './ingest-fixtures';
import { deviceAssignments } from '../src/db/schema';

const MIN = 60_000;

describe.each(dbKinds)('attribution of fixes to runners by fix time (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => t?.close());

  const ping = (key: string, at: Date, lat = 46) =>
    t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${key}&lat=${lat}&lon=7&timestamp=${Math.floor(at.getTime() / 1000)}`,
    });

  it('a device handed from one runner to another: each fix goes to whoever held it at fix time, late arrivals included', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000; // OsmAnd timestamps are whole seconds
    const raceStart = new Date(now - 120 * MIN);
    const raceId = await addRace(t.app, { startedAt: raceStart });
    const first = await addRunner(t.app, raceId, 'First');
    const second = await addRunner(t.app, raceId, 'Second');
    const dev = await addDevice(t.app);
    // Handed out 30 minutes AFTER the start (late assignment), then handed over 60 minutes later.
    await assign(t.app, dev.id, raceId, first, new Date(now - 90 * MIN));
    const handOver = new Date(now - 30 * MIN);
    await assign(t.app, dev.id, raceId, second, handOver);

    // Sent in a scrambled order, as buffered clients do.
    const fixes: [number, number | null][] = [
      [now - 10 * MIN, second],
      [now - 100 * MIN, first], // before the first assignment but after the start: the first holder's
      [now - 31 * MIN, first], // just before the hand-over
      [now - 30 * MIN, second], // exactly at the hand-over
      [now - 60 * MIN, first],
      [now - 130 * MIN, null], // before the race started: nobody's
    ];
    for (const [ts] of fixes) expect((await ping(dev.trackingKey, new Date(ts))).statusCode).toBe(200);
    const rows = await positionsOf(t.app, dev.id);
    const byTime = new Map(rows.map((r) => [r.fixTime.getTime(), r.runnerId]));
    for (const [ts, runner] of fixes) {
      expect(byTime.get(Math.floor(ts / 1000) * 1000), new Date(ts).toISOString()).toBe(runner);
    }
    expect(rows.filter((r) => r.runnerId !== null).every((r) => r.raceId === raceId)).toBe(true);
  });

  it('after unassignment the device moves nobody', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000; // OsmAnd timestamps are whole seconds
    const raceId = await addRace(t.app, { startedAt: new Date(now - 60 * MIN) });
    const runner = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app);
    await assign(t.app, dev.id, raceId, runner, new Date(now - 70 * MIN));
    const { sql } = await import('drizzle-orm');
    await t.app.db
      .update(deviceAssignments)
      .set({ unassignedAt: new Date(now - 20 * MIN) })
      .where(sql`${deviceAssignments.deviceId} = ${dev.id}`);
    await ping(dev.trackingKey, new Date(now - 30 * MIN));
    await ping(dev.trackingKey, new Date(now - 10 * MIN));
    const rows = await positionsOf(t.app, dev.id);
    expect(rows.map((r) => r.runnerId)).toEqual([runner, null]);
  });

  it('a first assignment made after fixes arrived re-attributes them from the race start (on race-updated)', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000; // OsmAnd timestamps are whole seconds
    const raceId = await addRace(t.app, { startedAt: new Date(now - 60 * MIN) });
    const runner = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app);
    await ping(dev.trackingKey, new Date(now - 50 * MIN));
    await ping(dev.trackingKey, new Date(now - 40 * MIN));
    expect((await positionsOf(t.app, dev.id)).map((r) => r.runnerId)).toEqual([null, null]);
    await assign(t.app, dev.id, raceId, runner, new Date(now - 5 * MIN));
    const updates: number[] = [];
    t.app.events.subscribe((e) => {
      if (e.type === 'race-updated') updates.push(e.raceId);
    });
    await t.app.events.publish({ type: 'race-updated', raceId });
    const rows = await waitFor(
      () => positionsOf(t.app, dev.id),
      (r) => r.every((p) => p.runnerId === runner),
    );
    expect(rows.map((r) => r.raceId)).toEqual([raceId, raceId]);
    // live views are told that the race's history changed
    await waitFor(
      () => updates.length,
      (n) => n >= 2,
    );
  });
});
