import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAssignments, devices } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

describe.each(dbKinds)('devices API (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  const newDevice = async (body: Record<string, unknown> = { Name: 'Tracker' }) => {
    const res = await call(t, 'POST', '/api/admin/devices', { token: admin, body });
    if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json();
  };
  const addRunner = async (raceId: number, FirstName: string) =>
    (
      await call(t, 'POST', `/api/director/runners/${raceId}`, {
        token: alice,
        body: { FirstName, LastName: 'Runner' },
      })
    ).json().RunnerId as number;
  const assignRace = (deviceId: number, raceId: number) =>
    call(t, 'PUT', `/api/admin/devices/${deviceId}/assign-race/${raceId}`, { token: admin });
  const assignRunner = (deviceId: number, raceId: number, runnerId: number, token = alice) =>
    call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`, { token });
  const history = (deviceId: number) =>
    t.database.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.deviceId, deviceId))
      .orderBy(deviceAssignments.id);

  it('creates a device with a trimmed name, default source and an unguessable tracking key', async () => {
    const res = await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: '  Phone 1 ' } });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({
      Name: 'Phone 1',
      Source: 'osmand',
      HardwareId: null,
      BatteryState: null,
      LastPingTime: null,
      RaceId: null,
      AssignedRunnerId: null,
      RaceName: null,
      RunnerName: null,
    });
    expect(d.TrackingKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await newDevice({ Name: 'Phone 2' });
    expect(other.TrackingKey).not.toBe(d.TrackingKey);
    const list = await call(t, 'GET', '/api/admin/devices', { token: admin });
    expect(list.statusCode).toBe(200);
    expect(list.json().find((x: { DeviceId: number }) => x.DeviceId === d.DeviceId)).toEqual(d);
  });

  it.each([[{ Name: '   ' }], [{}], [{ Name: 'X', Source: 'carrier-pigeon' }], [{ Name: 42 }]])(
    'refuses %j with 400',
    async (body) => {
      const before = (await call(t, 'GET', '/api/admin/devices', { token: admin })).json().length;
      const res = await call(t, 'POST', '/api/admin/devices', { token: admin, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('validation_error');
      expect((await call(t, 'GET', '/api/admin/devices', { token: admin })).json()).toHaveLength(before);
    },
  );

  it('refuses a duplicate Source+HardwareId on create and edit (409); edits and rotates keys', async () => {
    const a = await newDevice({ Name: 'Spot A', Source: 'spot', HardwareId: '0-1234567' });
    const dup = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: 'Spot B', Source: 'spot', HardwareId: '0-1234567' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('duplicate_hardware_id');
    // same hardware id under another source is a different device
    const b = await newDevice({ Name: 'Other', Source: 'inreach', HardwareId: '0-1234567' });
    const clash = await call(t, 'PUT', `/api/admin/devices/${b.DeviceId}`, {
      token: admin,
      body: { Source: 'spot' },
    });
    expect(clash.statusCode).toBe(409);
    const edit = await call(t, 'PUT', `/api/admin/devices/${b.DeviceId}`, {
      token: admin,
      body: { Name: ' Renamed ', HardwareId: 'imei-9' },
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json()).toMatchObject({
      DeviceId: b.DeviceId,
      Name: 'Renamed',
      Source: 'inreach',
      HardwareId: 'imei-9',
    });
    expect(edit.json().TrackingKey).toBe(b.TrackingKey);
    const rotated = await call(t, 'POST', `/api/admin/devices/${a.DeviceId}/rotate-key`, { token: admin });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().TrackingKey).not.toBe(a.TrackingKey);
    expect(rotated.json().TrackingKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      (await call(t, 'PUT', '/api/admin/devices/999999', { token: admin, body: { Name: 'x' } })).statusCode,
    ).toBe(404);
  });

  it('assigns devices to races that have not started only', async () => {
    const d = await newDevice({ Name: 'Race tracker' });
    const open = await createRace(t, alice, { Name: 'Open race' }, { approve: true, adminToken: admin });
    const res = await assignRace(d.DeviceId, open);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ RaceId: open, RaceName: 'Open race', AssignedRunnerId: null });
    const started = await createRace(t, alice, { Name: 'Started' }, { approve: true, adminToken: admin });
    await call(t, 'PUT', `/api/director/races/start/${started}`, { token: alice });
    const late = await assignRace(d.DeviceId, started);
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toMatch(/not started/);
    expect((await assignRace(d.DeviceId, 999999)).statusCode).toBe(404);
    expect((await assignRace(999999, open)).statusCode).toBe(404);
    const [row] = await t.database.db.select().from(devices).where(eq(devices.id, d.DeviceId));
    expect(row.raceId).toBe(open);
  });

  it('hands devices to runners with exact history, one device per runner, available list follows', async () => {
    const raceId = await createRace(t, alice, { Name: 'Hand-over race' });
    const r1 = await addRunner(raceId, 'First');
    const r2 = await addRunner(raceId, 'Second');
    const d1 = await newDevice({ Name: 'D1' });
    const d2 = await newDevice({ Name: 'D2' });
    const stray = await newDevice({ Name: 'Not in race' });
    await assignRace(d1.DeviceId, raceId);
    await assignRace(d2.DeviceId, raceId);

    const available = async () =>
      (await call(t, 'GET', `/api/director/devices/race/${raceId}/available`, { token: alice })).json();
    expect(await available()).toEqual([
      { DeviceId: d1.DeviceId, Name: 'D1' },
      { DeviceId: d2.DeviceId, Name: 'D2' },
    ]);
    expect(
      (await call(t, 'GET', `/api/director/devices/race/${raceId}/available`, { token: bob })).statusCode,
    ).toBe(404);

    const before = Date.now();
    const given = await assignRunner(d1.DeviceId, raceId, r1);
    expect(given.statusCode).toBe(200);
    expect(given.json()).toMatchObject({ DeviceId: d1.DeviceId, RaceId: raceId, AssignedRunnerId: r1 });
    expect(given.body).not.toContain('TrackingKey');
    expect(await available()).toEqual([{ DeviceId: d2.DeviceId, Name: 'D2' }]);
    const runners = (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json();
    expect(runners.find((r: { RunnerId: number }) => r.RunnerId === r1).DeviceId).toBe(d1.DeviceId);
    const admins = (await call(t, 'GET', '/api/admin/devices', { token: admin })).json();
    expect(admins.find((x: { DeviceId: number }) => x.DeviceId === d1.DeviceId).RunnerName).toBe(
      'First Runner',
    );

    // conflicts
    const taken = await assignRunner(d1.DeviceId, raceId, r2);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe('device_taken');
    const second = await assignRunner(d2.DeviceId, raceId, r1);
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toBe('runner_has_device');
    const notInRace = await assignRunner(stray.DeviceId, raceId, r2);
    expect(notInRace.statusCode).toBe(409);
    expect(notInRace.json().error).toBe('device_not_in_race');
    expect((await assignRunner(d2.DeviceId, raceId, r2, bob)).statusCode).toBe(404);
    expect((await assignRunner(d2.DeviceId, raceId, 999999)).statusCode).toBe(404);
    // again to the same runner: no change, no new history row
    expect((await assignRunner(d1.DeviceId, raceId, r1)).statusCode).toBe(200);

    let h = await history(d1.DeviceId);
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ raceId, runnerId: r1, unassignedAt: null });
    expect(h[0].assignedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    // unassign from runner: history row closed, device back in the available list
    const un = await call(t, 'PUT', `/api/director/devices/${d1.DeviceId}/race/${raceId}/unassign`, {
      token: alice,
    });
    expect(un.statusCode).toBe(200);
    expect(un.json()).toMatchObject({ RaceId: raceId, AssignedRunnerId: null });
    h = await history(d1.DeviceId);
    expect(h[0].unassignedAt).not.toBeNull();
    expect(h[0].unassignedAt!.getTime()).toBeGreaterThanOrEqual(h[0].assignedAt.getTime());

    // hand-over to the second runner: a new open row
    expect((await assignRunner(d1.DeviceId, raceId, r2)).statusCode).toBe(200);
    h = await history(d1.DeviceId);
    expect(h.map((x) => [x.runnerId, x.unassignedAt === null])).toEqual([
      [r1, false],
      [r2, true],
    ]);

    // unassign from the race (admin): frees it from its runner too and closes the row
    const out = await call(t, 'PUT', `/api/admin/devices/${d1.DeviceId}/unassign`, { token: admin });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({
      RaceId: null,
      AssignedRunnerId: null,
      RaceName: null,
      RunnerName: null,
    });
    h = await history(d1.DeviceId);
    expect(h.every((x) => x.unassignedAt !== null)).toBe(true);
    expect(
      (await call(t, 'PUT', `/api/director/devices/${d1.DeviceId}/race/${raceId}/unassign`, { token: alice }))
        .statusCode,
    ).toBe(404);
  });

  it('moving a device to another race frees it from its runner and closes the hand-over', async () => {
    const raceA = await createRace(t, alice, { Name: 'A' });
    const raceB = await createRace(t, alice, { Name: 'B' });
    const r = await addRunner(raceA, 'Mover');
    const d = await newDevice({ Name: 'Mover device' });
    await assignRace(d.DeviceId, raceA);
    await assignRunner(d.DeviceId, raceA, r);
    const moved = await assignRace(d.DeviceId, raceB);
    expect(moved.json()).toMatchObject({ RaceId: raceB, AssignedRunnerId: null });
    expect((await history(d.DeviceId)).every((x) => x.unassignedAt !== null)).toBe(true);
  });

  it('deleting a runner frees their device; deleting a race frees its devices', async () => {
    const raceId = await createRace(t, alice, { Name: 'Doomed' });
    const r = await addRunner(raceId, 'Doomed');
    const d = await newDevice({ Name: 'Survivor' });
    const d2 = await newDevice({ Name: 'Survivor 2' });
    await assignRace(d.DeviceId, raceId);
    await assignRace(d2.DeviceId, raceId);
    await assignRunner(d.DeviceId, raceId, r);
    await call(t, 'DELETE', `/api/director/runners/${raceId}/${r}`, { token: alice });
    let [row] = await t.database.db.select().from(devices).where(eq(devices.id, d.DeviceId));
    expect(row).toMatchObject({ raceId, assignedRunnerId: null });

    const r2 = await addRunner(raceId, 'Again');
    await assignRunner(d.DeviceId, raceId, r2);
    expect((await call(t, 'DELETE', `/api/director/races/${raceId}`, { token: alice })).statusCode).toBe(200);
    [row] = await t.database.db.select().from(devices).where(eq(devices.id, d.DeviceId));
    expect(row).toMatchObject({ raceId: null, assignedRunnerId: null });
    const [row2] = await t.database.db.select().from(devices).where(eq(devices.id, d2.DeviceId));
    expect(row2).toMatchObject({ raceId: null, assignedRunnerId: null });
    expect(await history(d.DeviceId)).toHaveLength(0); // its race is gone, and with it the race's hand-overs
  });

  it('deletes a device', async () => {
    const d = await newDevice({ Name: 'Delete me' });
    const res = await call(t, 'DELETE', `/api/admin/devices/${d.DeviceId}`, { token: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ Deleted: true, DeviceId: d.DeviceId });
    expect((await call(t, 'DELETE', `/api/admin/devices/${d.DeviceId}`, { token: admin })).statusCode).toBe(
      404,
    );
    const list = (await call(t, 'GET', '/api/admin/devices', { token: admin })).json();
    expect(list.some((x: { DeviceId: number }) => x.DeviceId === d.DeviceId)).toBe(false);
  });

  it('admin calls need an admin; no non-admin response carries a tracking key', async () => {
    expect((await call(t, 'GET', '/api/admin/devices')).statusCode).toBe(401);
    const res = await call(t, 'GET', '/api/admin/devices', { token: alice });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: expect.any(String) });
    expect(res.body).not.toContain('TrackingKey');
  });
});
