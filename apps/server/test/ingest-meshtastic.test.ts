import { randomBytes } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, addRace, addRunner, assign, deviceRow, positionsOf, waitFor } from './ingest-fixtures';

const BROKER = 'mqtt://127.0.0.1:1883';

describe.each(dbKinds)('Meshtastic over MQTT (%s)', (kind) => {
  let t: TestContext;
  let pub: mqtt.MqttClient;
  // A unique root per test run, so parallel runs on the shared broker never see each other's packets.
  const root = `rbtest-${randomBytes(4).toString('hex')}`;
  const topic = (gateway: string) => `${root}/EU_868/2/json/RaceNet/${gateway}`;

  beforeAll(async () => {
    t = await createTestApp(kind, { MQTT_URL: BROKER, MQTT_TOPIC: `${root}/+/2/json/#` });
    pub = await mqtt.connectAsync(BROKER);
  });
  afterAll(async () => {
    await pub?.endAsync();
    await t?.close();
  });

  const position = (id: number, from: number, time: number, latI: number, lonI: number) =>
    JSON.stringify({
      id,
      channel: 0,
      from,
      to: 4294967295,
      sender: '!0fa1c2d3',
      timestamp: time + 4,
      type: 'position',
      rssi: -109,
      snr: -7.25,
      hops_away: 1,
      hop_start: 3,
      payload: {
        latitude_i: latI,
        longitude_i: lonI,
        altitude: 1732,
        time,
        ground_speed: 9,
        ground_track: 21200000,
        sats_in_view: 9,
        PDOP: 140,
        precision_bits: 32,
      },
    });

  it('stores positions (×1e-7, node time), de-duplicates a packet relayed by two gateways, takes battery telemetry', async () => {
    const from = 0xabcdef2c; // 2882400044 (the reference's 2882323244 is really !abccc32c)
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app, { source: 'meshtastic', hardwareId: '!abcdef2c' });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const time = Math.floor(Date.now() / 1000) - 120;
    const packet = position(3021855417, from, time, 465581234, 79112345);
    await pub.publishAsync(topic('!0fa1c2d3'), packet);
    await pub.publishAsync(topic('!0badcafe'), packet); // the same packet heard by a second gateway
    await pub.publishAsync(topic('!0fa1c2d3'), position(3021855418, from, time + 60, 465591234, 79122345));
    await pub.publishAsync(
      topic('!0fa1c2d3'),
      JSON.stringify({
        id: 3021855502,
        channel: 0,
        from,
        to: 4294967295,
        sender: '!0fa1c2d3',
        timestamp: time + 61,
        type: 'telemetry',
        payload: {
          battery_level: 17,
          voltage: 3.6,
          channel_utilization: 7.2,
          air_util_tx: 1.1,
          uptime_seconds: 20412,
        },
      }),
    );
    const rows = await waitFor(
      () => positionsOf(t.app, dev.id),
      (r) => r.length === 2,
    );
    expect(rows[0].lat).toBeCloseTo(46.5581234, 7);
    expect(rows[0].lon).toBeCloseTo(7.9112345, 7);
    expect(rows[0].fixTime.getTime()).toBe(time * 1000);
    expect(rows[0].speed).toBeCloseTo(9 / 3.6, 6);
    expect(rows.every((r) => r.runnerId === runnerId && r.source === 'meshtastic')).toBe(true);
    // The battery and the last ping are written off the acknowledgement path (within a second): waited for both.
    const d = await waitFor(
      () => deviceRow(t.app, dev.id),
      (x) => x.batteryPercent === 17 && x.lastPingTime?.getTime() === (time + 60) * 1000,
    );
    expect(d.batteryState).toBe('LOW');
    expect(d.lastPingTime?.getTime()).toBe((time + 60) * 1000);
  });

  it('matches a node entered as its decimal number; ignores 0/0 positions, unknown nodes and other topics', async () => {
    const from = 305419896; // !12345678
    const dev = await addDevice(t.app, { source: 'meshtastic', hardwareId: String(from) });
    const time = Math.floor(Date.now() / 1000) - 60;
    await pub.publishAsync(topic('!0fa1c2d3'), position(1, from, time - 30, 0, 0));
    await pub.publishAsync(
      `${root}-other/EU_868/2/json/RaceNet/!0fa1c2d3`,
      position(2, from, time - 20, 451000000, 61000000),
    );
    await pub.publishAsync(topic('!0fa1c2d3'), position(3, 99, time - 10, 451000000, 61000000));
    await pub.publishAsync(topic('!0fa1c2d3'), 'not json');
    await pub.publishAsync(topic('!0fa1c2d3'), position(4, from, time, 452000000, 62000000));
    const rows = await waitFor(
      () => positionsOf(t.app, dev.id),
      (r) => r.length >= 1,
    );
    expect(rows.map((r) => r.fixTime.getTime())).toEqual([time * 1000]);
    expect(rows[0].lat).toBeCloseTo(45.2, 7);
  });
});
