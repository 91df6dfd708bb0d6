import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import mqtt from 'mqtt';
import type { LeaderboardRow, LiveUpdate } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { connectSse } from './support/sse-client';
import { addDevice, addRace, addRunner, assign, deviceRow, waitFor } from './ingest-fixtures';

/**
 * A battery level that comes without a position (a ChirpStack status event, Meshtastic device telemetry) goes
 * through the ingest pipeline like a fix: stored on the device and published, so live viewers see it at once.
 */

const LORA_SECRET = 'live-battery-secret';
const BROKER = 'mqtt://127.0.0.1:1883';

describe.each(dbKinds)('battery-only reports reach live viewers (%s)', (kind) => {
  let t: TestContext;
  let base: string;
  const root = `rbbattery-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      LORAWAN_WEBHOOK_SECRET: LORA_SECRET,
      MQTT_URL: BROKER,
      MQTT_TOPIC: `${root}/+/2/json/#`,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  async function raceWithDevice(source: string, hardwareId: string) {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app, { source, hardwareId });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    return { raceId, runnerId, deviceId: dev.id };
  }

  const leaderboard = async (raceId: number) =>
    (
      await t.app.inject({ method: 'GET', url: `/api/open/races/${raceId}/leaderboard` })
    ).json() as LeaderboardRow[];

  it('a ChirpStack status event updates the battery on the leaderboard and in an SSE update', async () => {
    const { raceId, runnerId, deviceId } = await raceWithDevice('lorawan', '70b3d57ed00ba7e1');
    // The race is in memory before the report arrives: only the event can change what viewers see.
    expect((await leaderboard(raceId))[0]).toMatchObject({ RunnerId: runnerId, BatteryState: null });
    const sse = await connectSse(`${base}/api/open/races/${raceId}/live`);
    try {
      await sse.next((e) => e.event === 'snapshot');
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/ingest/chirpstack?event=status',
        headers: { authorization: `Bearer ${LORA_SECRET}` },
        payload: { deviceInfo: { devEui: '70B3D57ED00BA7E1' }, batteryLevel: 12.5 },
      });
      expect(res.json()).toEqual({ status: 'battery' });
      expect((await deviceRow(t.app, deviceId)).batteryPercent).toBe(12.5);

      const update = await sse.next((e) => e.event === 'update', 5000);
      const rows = (JSON.parse(update.data) as LiveUpdate).Rows;
      expect(rows).toEqual([expect.objectContaining({ RunnerId: runnerId, BatteryState: '13%' })]);
      expect((await leaderboard(raceId))[0].BatteryState).toBe('13%');
    } finally {
      sse.close();
    }
  });

  it('Meshtastic telemetry updates the battery on the leaderboard', async () => {
    const from = 0x0badbe11;
    const { raceId, runnerId } = await raceWithDevice('meshtastic', `!${from.toString(16).padStart(8, '0')}`);
    expect((await leaderboard(raceId))[0]).toMatchObject({ RunnerId: runnerId, BatteryState: null });
    const pub = await mqtt.connectAsync(BROKER);
    try {
      await pub.publishAsync(
        `${root}/EU_868/2/json/RaceNet/!0fa1c2d3`,
        JSON.stringify({
          id: 77,
          from,
          type: 'telemetry',
          timestamp: Math.floor(Date.now() / 1000),
          payload: { battery_level: 41, voltage: 3.7 },
        }),
      );
      const row = await waitFor(
        async () => (await leaderboard(raceId))[0],
        (r) => r.BatteryState !== null,
      );
      expect(row.BatteryState).toBe('41%');
    } finally {
      await pub.endAsync();
    }
  });
});
