import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { devices } from '../src/db/schema';
import { DeviceStateWriter } from '../src/ingest/device-state';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, deviceRow, positionsOf, secondsAgo } from './ingest-fixtures';

/**
 * The devices' newest-fix columns (last ping, last position, battery) are written after the acknowledgement,
 * coalesced per device (ingest/device-state.ts, docs/decisions/ingest-device-state.md): the fix itself is stored
 * before the answer; the device row follows, newest value winning and never going backwards.
 */
describe.each(dbKinds)('device newest-fix columns, written off the acknowledgement path (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => t?.close());

  const row = async (id: number) => {
    const [d] = await t.app.db.select().from(devices).where(eq(devices.id, id));
    return d;
  };
  const log = { warn: () => undefined } as never;
  const pool = () => (t.app.database.kind === 'postgres' ? t.app.database.pool : undefined);

  it('a writer holds what it was told until it flushes: one row per device, the newest fix, never backwards', async () => {
    const a = await addDevice(t.app);
    const b = await addDevice(t.app);
    const writer = new DeviceStateWriter({ db: t.app.db, pool: pool(), log, flushMs: 60_000 });
    const t0 = Date.now() - 600_000;
    writer.note({ deviceId: a.id, t: t0, lat: 46.1, lon: 7.1, batteryPercent: 80, batteryState: 'GOOD' });
    writer.note({
      deviceId: a.id,
      t: t0 + 10_000,
      lat: 46.2,
      lon: 7.2,
      batteryPercent: null,
      batteryState: null,
    });
    // older than what the writer holds: ignored
    writer.note({
      deviceId: a.id,
      t: t0 + 5_000,
      lat: 46.9,
      lon: 7.9,
      batteryPercent: 5,
      batteryState: 'LOW',
    });
    writer.note({ deviceId: b.id, t: t0, lat: 45, lon: 6, batteryPercent: 33, batteryState: null });
    // nothing written yet (the ack did not wait for it)
    expect((await row(a.id)).lastPingTime).toBeNull();
    await writer.flush();
    const da = await row(a.id);
    expect(da.lastPingTime?.getTime()).toBe(t0 + 10_000);
    expect([da.lastLat, da.lastLon]).toEqual([46.2, 7.2]);
    // the newest fix carries no battery: the newest battery of the window stays
    expect([da.batteryPercent, da.batteryState]).toEqual([80, 'GOOD']);
    expect((await row(b.id)).batteryPercent).toBe(33);

    // an older fix flushed later (another process's, a late upload) does not move the device back
    writer.note({ deviceId: a.id, t: t0 + 1_000, lat: 1, lon: 1, batteryPercent: 1, batteryState: null });
    await writer.flush();
    const again = await row(a.id);
    expect(again.lastPingTime?.getTime()).toBe(t0 + 10_000);
    expect([again.lastLat, again.batteryPercent]).toEqual([46.2, 80]);

    // close() writes what is pending (graceful stop)
    writer.note({
      deviceId: b.id,
      t: t0 + 20_000,
      lat: 45.5,
      lon: 6.5,
      batteryPercent: null,
      batteryState: null,
    });
    await writer.close();
    expect((await row(b.id)).lastPingTime?.getTime()).toBe(t0 + 20_000);
  });

  it('the writer flushes by itself within its interval', async () => {
    const a = await addDevice(t.app);
    const writer = new DeviceStateWriter({ db: t.app.db, pool: pool(), log, flushMs: 50 });
    const at = Date.now() - 60_000;
    writer.note({ deviceId: a.id, t: at, lat: 46, lon: 7, batteryPercent: 50, batteryState: null });
    let d = await row(a.id);
    for (let i = 0; i < 100 && d.lastPingTime === null; i++) {
      await new Promise((r) => setTimeout(r, 20));
      d = await row(a.id);
    }
    expect(d.lastPingTime?.getTime()).toBe(at);
    await writer.close();
  });

  it('a graceful stop gives up on a flush that cannot finish (database away) instead of hanging', async () => {
    const warned: string[] = [];
    const stuck = { execute: () => new Promise(() => undefined) } as never;
    const writer = new DeviceStateWriter({
      db: stuck,
      log: { warn: (m: string) => warned.push(m) } as never,
      flushMs: 60_000,
    });
    writer.note({ deviceId: 1, t: Date.now(), lat: 46, lon: 7, batteryPercent: null, batteryState: null });
    const started = Date.now();
    await writer.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(warned).toEqual(['device last-ping update still unwritten at stop: given up']);
  });

  it('over HTTP: the fix is stored when answered; the device row follows with the newest of the pings', async () => {
    const dev = await addDevice(t.app);
    const ping = (ts: number, batt?: number) =>
      t.app.inject({
        method: 'GET',
        url: `/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5&lon=7.5&timestamp=${ts}${batt === undefined ? '' : `&batt=${batt}`}`,
      });
    const newest = secondsAgo(60);
    expect((await ping(newest, 71)).statusCode).toBe(200);
    expect((await ping(newest - 30, 99)).statusCode).toBe(200);
    expect(await positionsOf(t.app, dev.id)).toHaveLength(2);
    const d = await deviceRow(t.app, dev.id); // flushes this process's writer first
    expect(d.lastPingTime?.getTime()).toBe(newest * 1000);
    expect(d.batteryPercent).toBe(71);
  });

  it('a battery-only report after a fix wins over the fix battery still waiting to be written', async () => {
    const dev = await addDevice(t.app);
    const at = secondsAgo(30);
    const fix = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5&lon=7.5&timestamp=${at}&batt=90`,
    });
    expect(fix.statusCode).toBe(200);
    const result = await t.app.ingest.acceptWhole('osmand', {
      fixes: [],
      alerts: [],
      rejected: [],
      received: 1,
      batteryOnly: [
        {
          device: { trackingKey: dev.trackingKey },
          source: 'osmand',
          batteryPercent: 12.5,
          batteryState: null,
        },
      ],
    });
    expect(result.batteries).toEqual(['stored']);
    const d = await deviceRow(t.app, dev.id);
    expect(d.batteryPercent).toBe(12.5);
    expect(d.lastPingTime?.getTime()).toBe(at * 1000);
  });
});
