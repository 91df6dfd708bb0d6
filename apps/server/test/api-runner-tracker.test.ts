import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAssignments, devices, races } from '../src/db/schema';
import { addRace, addRunner, deviceRow, positionsOf } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/** The director attaches a runner's own tracker from the runner's row, checks it before the start, detaches it. */
describe.each(dbKinds)('runner’s own tracker (%s)', (kind) => {
  let t: TestContext;
  let owner: string;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    // No background polling of share.garmin.com from a test.
    await t.app.jobs.stop();
    owner = await t.issuer.director('director-1');
    admin = await t.issuer.admin();
  });
  afterAll(async () => t?.close());

  const attach = (runnerId: number, body: Record<string, unknown>, token = owner) =>
    call(t, 'POST', `/api/director/runners/${runnerId}/tracker`, { token, body });
  const check = (runnerId: number) =>
    call(t, 'GET', `/api/director/runners/${runnerId}/tracker`, { token: owner });

  it('attaches a MapShare tracker for this race only; the tracker check shows the last fix and its age', async () => {
    const raceId = await addRace(t.app, { startedAt: undefined });
    const runnerId = await addRunner(t.app, raceId, 'Ada');
    expect((await check(runnerId)).json()).toBeNull();
    const res = await attach(runnerId, { Source: 'mapshare', HardwareId: 'AdaOwn', FeedPassword: 'secret' });
    expect(res.statusCode, res.body).toBe(201);
    const tracker = res.json();
    expect(tracker).toMatchObject({
      RunnerId: runnerId,
      Name: 'Ada Runner',
      Source: 'mapshare',
      HardwareId: 'AdaOwn',
      OwnTracker: true,
      HasFeedPassword: true,
      LastFixTime: null,
      LastFixAgeSeconds: null,
    });
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('TrackingKey');
    const row = await deviceRow(t.app, tracker.DeviceId);
    expect([row.raceId, row.assignedRunnerId]).toEqual([raceId, runnerId]);
    const history = await t.app.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.deviceId, tracker.DeviceId));
    expect(history.map((h) => [h.raceId, h.runnerId, h.unassignedAt])).toEqual([[raceId, runnerId, null]]);

    // A fix arrived 12 minutes ago: "last fix 12 min ago".
    const at = new Date(Date.now() - 12 * 60_000);
    await t.app.db
      .update(devices)
      .set({ lastPingTime: at, lastLat: 46.5, lastLon: 7.9 })
      .where(eq(devices.id, tracker.DeviceId));
    const checked = (await check(runnerId)).json();
    expect(checked.LastFixTime).toBe(at.toISOString());
    expect(checked.LastFixAgeSeconds).toBeGreaterThanOrEqual(720);
    expect(checked.LastFixAgeSeconds).toBeLessThan(780);
    expect([checked.LastLatitude, checked.LastLongitude]).toEqual([46.5, 7.9]);

    // The runner holds it: a second attach is a 409, nothing written.
    const again = await attach(runnerId, { Source: 'spot', FeedId: '0abcdef' });
    expect([again.statusCode, again.json().error]).toEqual([409, 'runner_has_device']);
    // The same MapShare name for another runner: 409.
    const other = await addRunner(t.app, raceId, 'Bob');
    const dup = await attach(other, { Source: 'mapshare', HardwareId: 'AdaOwn' });
    expect([dup.statusCode, dup.json().error]).toEqual([409, 'duplicate_hardware_id']);

    // An admin cannot hand it to another race.
    const raceB = await addRace(t.app);
    const move = await call(t, 'PUT', `/api/admin/devices/${tracker.DeviceId}/assign-race/${raceB}`, {
      token: admin,
    });
    expect([move.statusCode, move.json().error]).toEqual([409, 'own_tracker']);

    // Detached without any stored fix: deleted.
    const del = await call(t, 'DELETE', `/api/director/runners/${runnerId}/tracker`, { token: owner });
    expect(del.json()).toEqual({ RunnerId: runnerId, DeviceId: tracker.DeviceId, Deleted: true });
    expect(await deviceRow(t.app, tracker.DeviceId)).toBeUndefined();
    const none = await call(t, 'DELETE', `/api/director/runners/${runnerId}/tracker`, { token: owner });
    expect([none.statusCode, none.json().error]).toEqual([404, 'no_tracker']);
  });

  it('a phone attached by the director comes with its key; with fixes stored, detaching keeps them', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Cleo');
    const res = await attach(runnerId, { Source: 'osmand', Name: 'Cleo phone' });
    expect(res.statusCode, res.body).toBe(201);
    const { DeviceId, TrackingKey } = res.json();
    expect(TrackingKey).toMatch(new RegExp(`^rt-${raceId}-`));
    const ping = await t.app.inject({
      method: 'POST',
      url: `/api/ingest/osmand?id=${encodeURIComponent(TrackingKey)}&lat=46.5&lon=7.9&timestamp=${Math.floor(Date.now() / 1000) - 60}`,
    });
    expect(ping.statusCode, ping.body).toBe(200);
    expect((await positionsOf(t.app, DeviceId)).map((p) => p.runnerId)).toEqual([runnerId]);
    const del = await call(t, 'DELETE', `/api/director/runners/${runnerId}/tracker`, { token: owner });
    expect(del.json()).toEqual({ RunnerId: runnerId, DeviceId, Deleted: false });
    expect((await deviceRow(t.app, DeviceId)).assignedRunnerId).toBeNull();
    expect(await positionsOf(t.app, DeviceId)).toHaveLength(1);
    // A phone has no hardware id: attaching again makes a new device.
    const back = await attach(runnerId, { Source: 'osmand' });
    expect(back.statusCode).toBe(201);
    expect(back.json().DeviceId).not.toBe(DeviceId);
  });

  it('refuses bad input with 400 naming the problem, and an ended race with 409', async () => {
    const raceId = await addRace(t.app);
    const runnerId = await addRunner(t.app, raceId, 'Dan');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /Source/],
      [{ Source: 'garmin', HardwareId: 'x' }, /Source/],
      [{ Source: 'mapshare' }, /MapShare name is required/],
      [{ Source: 'mapshare', HardwareId: 'has spaces' }, /only letters/],
      [{ Source: 'mapshare', HardwareId: 'Dan', FeedId: '0abc' }, /no feed id/],
      [{ Source: 'spot' }, /FeedId .*or HardwareId/],
      [{ Source: 'spot', FeedId: 'bad feed!' }, /FeedId/],
      [{ Source: 'inreach' }, /HardwareId is required/],
      [{ Source: 'mapshare', HardwareId: 'Dan', FeedPassword: 'p'.repeat(201) }, /FeedPassword/],
      [{ Source: 'mapshare', HardwareId: 'x'.repeat(101) }, /HardwareId/],
    ];
    for (const [body, message] of cases) {
      const res = await attach(runnerId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toMatch(message);
    }
    const bad = await call(t, 'POST', '/api/director/runners/abc/tracker', {
      token: owner,
      body: { Source: 'osmand' },
    });
    expect(bad.statusCode).toBe(400);
    expect((await check(runnerId)).json()).toBeNull();
    await t.app.db.update(races).set({ hasFinished: true }).where(eq(races.id, raceId));
    const ended = await attach(runnerId, { Source: 'mapshare', HardwareId: 'DanOwn' });
    expect([ended.statusCode, ended.json().error]).toEqual([409, 'race_finished']);
  });
});
