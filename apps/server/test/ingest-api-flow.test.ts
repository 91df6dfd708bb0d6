import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { call, createRace, startApiTest, type ApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { positionsOf, waitFor } from './ingest-fixtures';
import { deviceAssignments } from '../src/db/schema';

/** The whole path through the real admin/director API: device created, handed to a runner, handed over, pinged. */
describe.each(dbKinds)('ingestion with devices managed through the API (%s)', (kind) => {
  let a: ApiTest;
  beforeAll(async () => {
    a = await startApiTest(kind);
  });
  afterAll(async () => a?.t.close());

  it('attributes fixes by fix time across a hand-over made through the director API; the key is the credential', async () => {
    const { t, alice, admin } = a;
    const raceId = await createRace(
      t,
      alice,
      { Name: 'Hand-over race' },
      { approve: true, adminToken: admin },
    );
    const created = await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'Phone 1' } });
    expect(created.statusCode).toBe(201);
    const { DeviceId: deviceId, TrackingKey: key } = created.json() as {
      DeviceId: number;
      TrackingKey: string;
    };
    expect(key.length).toBeGreaterThanOrEqual(20);
    expect(
      (await call(t, 'PUT', `/api/admin/devices/${deviceId}/assign-race/${raceId}`, { token: admin }))
        .statusCode,
    ).toBe(200);
    const addRunner = async (FirstName: string) =>
      (
        await call(t, 'POST', `/api/director/runners/${raceId}`, {
          token: alice,
          body: { FirstName, LastName: 'X' },
        })
      ).json().RunnerId as number;
    const first = await addRunner('First');
    const second = await addRunner('Second');
    const assignTo = (runnerId: number) =>
      call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`, {
        token: alice,
      });
    expect((await assignTo(first)).statusCode).toBe(200);
    expect(
      (await call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/unassign`, { token: alice }))
        .statusCode,
    ).toBe(200);
    expect((await assignTo(second)).statusCode).toBe(200);

    const history = await t.app.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.deviceId, deviceId))
      .orderBy(asc(deviceAssignments.assignedAt));
    expect(history.map((h) => h.runnerId)).toEqual([first, second]);
    const handOver = history[1].assignedAt.getTime();
    const firstFrom = history[0].assignedAt.getTime();
    const firstUntil = history[0].unassignedAt!.getTime();

    // Traccar Client 9 JSON carries millisecond timestamps: fixes just around each assignment.
    const at = (ms: number, lat: number) => ({
      timestamp: new Date(ms).toISOString(),
      coords: { latitude: lat, longitude: 7, speed: 1, altitude: 1000 },
      battery: { level: 0.5, is_charging: false },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/osmand',
      payload: {
        device_id: key,
        location: [
          at(firstFrom - 60_000, 46.0),
          at(firstFrom + 1, 46.1),
          at(firstUntil - 1, 46.2),
          at(handOver, 46.3),
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = await waitFor(
      () => positionsOf(t.app, deviceId),
      (r) => r.length === 4,
    );
    // Race not started: the first holder owns fixes from the assignment (nothing before it).
    expect(rows.map((r) => [r.lat, r.runnerId])).toEqual([
      [46.0, null],
      [46.1, first],
      [46.2, first],
      [46.3, second],
    ]);
    // Between the unassignment and the new assignment nobody held it.
    if (handOver - firstUntil >= 2) {
      const gap = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/osmand',
        payload: { device_id: key, location: at(firstUntil + 1, 46.25) },
      });
      expect(gap.statusCode).toBe(200);
      expect((await positionsOf(t.app, deviceId)).find((r) => r.lat === 46.25)?.runnerId).toBeNull();
    }

    // After the admin rotates the key, the old one is refused and stores nothing.
    const rotated = await call(t, 'POST', `/api/admin/devices/${deviceId}/rotate-key`, { token: admin });
    expect(rotated.statusCode).toBe(200);
    const old = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${key}&lat=46.5&lon=7&timestamp=${Math.floor(Date.now() / 1000)}`,
    });
    expect(old.statusCode).toBe(400);
    // One second ahead: a whole-second timestamp of "now" could equal one of the millisecond fixes above (the
    // hand-over instants), and the same device and fix time is, rightly, stored once.
    const fresh = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${rotated.json().TrackingKey}&lat=46.5&lon=7&timestamp=${Math.floor(Date.now() / 1000) + 1}`,
    });
    expect(fresh.statusCode).toBe(200);
    expect((await positionsOf(t.app, deviceId)).some((r) => r.lat === 46.5)).toBe(true);
  });
});
