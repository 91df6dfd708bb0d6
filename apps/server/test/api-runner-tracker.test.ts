import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAssignments, devices, races } from '../src/db/schema';
import { addDevice, addRace, addRunner, deviceRow, positionsOf, waitFor } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

const INREACH_TOKEN = 'own-tracker-secret';
const BROKER = 'mqtt://127.0.0.1:1883';

/** The director attaches a runner's own tracker from the runner's row, checks it before the start, detaches it. */
describe.each(dbKinds)('runner’s own tracker (%s)', (kind) => {
  let t: TestContext;
  let owner: string;
  let admin: string;
  let pub: mqtt.MqttClient;
  // A unique root per run: parallel runs on the shared broker never see each other's packets.
  const root = `rbtest-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      INREACH_OUTBOUND_TOKEN: INREACH_TOKEN,
      MQTT_URL: BROKER,
      MQTT_TOPIC: `${root}/+/2/json/#`,
    });
    pub = await mqtt.connectAsync(BROKER);
    // No background polling of share.garmin.com from a test.
    await t.app.jobs.stop();
    owner = await t.issuer.director('director-1');
    admin = await t.issuer.admin();
  });
  afterAll(async () => {
    await pub?.endAsync();
    await t?.close();
  });

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

  // Issue 24: a tracker attached by hardware id waits for proof of possession (an admin's approval or the claim code
  // sent from the device); the answer does not tell whether a device already has the id.
  let n = 0;

  const imei = () => `30043406${kind.length}${String(++n).padStart(6, '0')}`;
  const tracker = async (runnerId: number) => (await check(runnerId)).json();
  const inreach = (id: string, event: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: {
        Version: '2.0',
        Events: [
          {
            imei: id,
            timeStamp: Date.now() - 60_000,
            point: { latitude: 46.57, longitude: 7.93, altitude: 1900, gpsFix: 2, course: 0, speed: 0 },
            status: { lowBattery: 0 },
            ...event,
          },
        ],
      },
    });
  const position = (id: string, minutesAgo: number) =>
    inreach(id, { messageCode: 0, timeStamp: Date.now() - minutesAgo * 60_000 });
  const live = async (raceId: number) => (await call(t, 'GET', `/api/open/races/${raceId}/positions`)).body;

  it('a fleet id answers exactly like a fresh one (201, same shape): no existence oracle', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const fleetImei = imei();
    await addDevice(t.app, { source: 'inreach', hardwareId: fleetImei });
    const taken = await attach(await addRunner(t.app, raceId, 'Eve'), {
      Source: 'inreach',
      HardwareId: fleetImei,
    });
    const fresh = await attach(await addRunner(t.app, raceId, 'Fay'), {
      Source: 'inreach',
      HardwareId: imei(),
    });
    expect([taken.statusCode, fresh.statusCode]).toEqual([201, 201]);
    const shape = (b: Record<string, unknown>) =>
      Object.entries(b)
        .filter(([k]) => !['DeviceId', 'RunnerId', 'Name', 'HardwareId', 'ClaimCode'].includes(k))
        .concat([['keys', Object.keys(b).sort().join()]]);
    expect(shape(taken.json())).toEqual(shape(fresh.json()));
    expect(taken.json()).toMatchObject({ HardwareId: fleetImei, Pending: true, OwnTracker: true });
    expect(taken.json().ClaimCode).toMatch(/^RB[2-9A-HJ-NP-Z]{6}$/);
    // Same for a LoRaWAN DevEUI, a Meshtastic node and a SPOT ESN a fleet device has.
    for (const [source, hw] of [
      ['lorawan', '70B3D57ED0000001'],
      ['meshtastic', '!abcdef2c'],
      ['spot', '0-1234567'],
    ]) {
      await addDevice(t.app, { source, hardwareId: `${hw}${kind}` });
      const res = await attach(await addRunner(t.app, raceId, source), {
        Source: source,
        HardwareId: `${hw}${kind}`,
      });
      expect([res.statusCode, res.json().Pending], source).toEqual([201, true]);
      // No text channel on LoRaWAN or SPOT: an admin approves (no code shown).
      expect('ClaimCode' in res.json(), source).toBe(source === 'meshtastic');
    }
  });

  it('positions of a pending tracker are neither stored nor shown; after the code sent from the device they are', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Gus');
    const id = imei();
    const res = await attach(runnerId, { Source: 'inreach', HardwareId: id });
    const { DeviceId, ClaimCode } = res.json();
    expect((await position(id, 5)).statusCode).toBe(200);
    expect(await positionsOf(t.app, DeviceId)).toEqual([]);
    expect(await tracker(runnerId)).toMatchObject({ Pending: true, LastFixTime: null, LastLatitude: null });
    expect(await live(raceId)).not.toContain('46.57');
    // A wrong code, or the right code from another device, proves nothing.
    await inreach(id, { messageCode: 3, freeText: 'RB-2222222 here' });
    await inreach(imei(), { messageCode: 3, freeText: `code ${ClaimCode}` });
    expect((await tracker(runnerId)).Pending).toBe(true);
    // The runner types the code on the device (any case, with a dash): proven.
    const typed = `${ClaimCode.slice(0, 2)}-${ClaimCode.slice(2)}`.toLowerCase();
    expect((await inreach(id, { messageCode: 3, freeText: `hello ${typed}` })).statusCode).toBe(200);
    const proven = await tracker(runnerId);
    expect(proven).toMatchObject({ Pending: false, HardwareId: id });
    expect(proven.ClaimCode).toBeUndefined();
    expect((await deviceRow(t.app, DeviceId)).hardwareId).toBe(id);
    expect((await position(id, 2)).statusCode).toBe(200);
    expect((await positionsOf(t.app, DeviceId)).map((p) => p.runnerId)).toEqual([runnerId]);
    await t.app.ingest.flushDeviceState();
    expect((await tracker(runnerId)).LastLatitude).toBe(46.57);
    expect(
      await waitFor(
        () => live(raceId),
        (b) => b.includes('46.57'),
      ),
    ).toContain('46.57');
  });

  it('an admin registers a claimed id in the fleet (the fleet wins) and approves a claim', async () => {
    const raceId = await addRace(t.app);
    const claimed = imei();
    const a = await attach(await addRunner(t.app, raceId, 'Hal'), { Source: 'inreach', HardwareId: claimed });
    const reg = await call(t, 'POST', '/api/admin/devices', {
      token: admin,
      body: { Name: 'Fleet 1', Source: 'inreach', HardwareId: claimed },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    expect(reg.json().HardwareId).toBe(claimed);
    // The claim cannot be approved any more (the fleet has the id); it stays pending without access.
    const approve = (id: number) =>
      call(t, 'POST', `/api/admin/devices/${id}/approve-claim`, { token: admin });
    const refused = await approve(a.json().DeviceId);
    expect([refused.statusCode, refused.json().error]).toEqual([409, 'duplicate_hardware_id']);
    expect((await deviceRow(t.app, a.json().DeviceId)).hardwareId).toBeNull();

    // Another claim: the admin list shows what is pending; approving it makes the id the device's.
    const runnerId = await addRunner(t.app, raceId, 'Ida');
    const id = imei();
    const b = (await attach(runnerId, { Source: 'inreach', HardwareId: id })).json();
    const list = (await call(t, 'GET', '/api/admin/devices', { token: admin })).json();
    expect(list.find((d: { DeviceId: number }) => d.DeviceId === b.DeviceId)).toMatchObject({
      HardwareId: null,
      PendingHardwareId: id,
    });
    const ok = await approve(b.DeviceId);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ HardwareId: id, PendingHardwareId: null });
    expect(await tracker(runnerId)).toMatchObject({ Pending: false, HardwareId: id });
    const again = await approve(b.DeviceId);
    expect([again.statusCode, again.json().error]).toEqual([409, 'no_pending_claim']);
    // An admin typing the id of a pending tracker (its own edit) decides the claim as well.
    const ivo = await addRunner(t.app, raceId, 'Ivo');
    const e = (await attach(ivo, { Source: 'inreach', HardwareId: imei() })).json();
    const other = imei();
    const put = await call(t, 'PUT', `/api/admin/devices/${e.DeviceId}`, {
      token: admin,
      body: { HardwareId: other },
    });
    expect(put.json()).toMatchObject({ HardwareId: other, PendingHardwareId: null });
    expect(await tracker(ivo)).toMatchObject({ Pending: false, HardwareId: other });
    const missing = await approve(999_999);
    expect(missing.statusCode).toBe(404);
    const bad = await call(t, 'POST', '/api/admin/devices/abc/approve-claim', { token: admin });
    expect(bad.statusCode).toBe(400);
    // Detaching a claim (it never stored a fix) deletes it.
    const jo = await addRunner(t.app, raceId, 'Jo');
    const c = (await attach(jo, { Source: 'lorawan', HardwareId: `A1B2C3${kind}` })).json();
    const del = await call(t, 'DELETE', `/api/director/runners/${jo}/tracker`, { token: owner });
    expect(del.json()).toEqual({ RunnerId: jo, DeviceId: c.DeviceId, Deleted: true });
  });

  it('a Meshtastic node proves its claim with a text packet carrying the code (not another node, not a wrong code)', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Kim');
    const from = kind === 'pglite' ? 0x1234abcd : 0x1234abce;
    const node = `!${from.toString(16)}`;
    const { DeviceId, ClaimCode } = (
      await attach(runnerId, { Source: 'meshtastic', HardwareId: node })
    ).json();
    expect(ClaimCode).toMatch(/^RB/);
    const topic = `${root}/EU_868/2/json/RaceNet/!0fa1c2d3`;
    const packet = (id: number, sender: number, type: string, payload: unknown) =>
      JSON.stringify({
        id,
        channel: 0,
        from: sender,
        to: 4294967295,
        timestamp: Date.now() / 1000,
        type,
        payload,
      });
    const time = Math.floor(Date.now() / 1000) - 60;
    await pub.publishAsync(topic, packet(2, from + 1, 'text', { text: `mine ${ClaimCode}` }));
    await pub.publishAsync(topic, packet(3, from, 'text', { text: 'RB-2222222' }));
    await pub.publishAsync(topic, packet(4, from, 'text', { text: `claim ${ClaimCode}` }));
    const proven = await waitFor(
      () => tracker(runnerId),
      (b) => !b.Pending,
    );
    expect(proven).toMatchObject({ Pending: false, HardwareId: node });
    await pub.publishAsync(
      topic,
      packet(5, from, 'position', { latitude_i: 465581234, longitude_i: 79112345, time: time + 30 }),
    );
    const stored = await waitFor(
      () => positionsOf(t.app, DeviceId),
      (rows) => rows.length > 0,
    );
    expect(stored.map((r) => r.runnerId)).toEqual([runnerId]);
  });
});
