import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAlerts } from '../src/db/schema';
import { MapSharePollJob } from '../src/jobs/mapshare-poll-job';
import { SpotPollJob } from '../src/jobs/spot-poll-job';
import { addDevice, addRace, addRunner, assign, deviceRow, positionsOf, waitFor } from './ingest-fixtures';
import { createTestApp, type TestContext } from './support/app';

/**
 * The field corpus (issue 23): device payloads written by others — vendors' documentation, other open-source
 * trackers' decoder tests and captured traffic — sent through the real endpoints (HTTP routes, the MQTT subscriber
 * on the local Mosquitto, the MapShare and SPOT pollers against a local stand-in serving the sample) and checked
 * field by field: time, position, altitude, speed, battery, accuracy, heading, alerts.
 *
 * Two sets: the shared samples (`DEVICE_SAMPLES_DIR`, default /work/shared/device-samples, else
 * `../shared/device-samples` beside the repository; never committed: the test fails, naming the variable, when they
 * are nowhere), each with its `.origin`; and the samples committed in `field-corpus/` (origins in its README and
 * beside each file). Samples are sent as written: their own times are in the past, which the pipeline accepts (only
 * a time more than 10 minutes ahead or before 2000 is refused), so nothing but device ids is substituted.
 */

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');

function samplesDir(): string {
  const fromEnv = process.env.DEVICE_SAMPLES_DIR;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`DEVICE_SAMPLES_DIR=${fromEnv} does not exist`);
    return fromEnv;
  }
  for (const dir of ['/work/shared/device-samples', resolve(repoRoot, '../shared/device-samples')])
    if (existsSync(dir)) return dir;
  throw new Error(
    'The shared device samples are missing: set DEVICE_SAMPLES_DIR (default /work/shared/device-samples, or ../shared/device-samples beside the repository).',
  );
}

const SHARED = samplesDir();
const CORPUS = join(here, 'field-corpus');
const sample = (name: string) => readFileSync(join(SHARED, name), 'utf8');
const corpus = (name: string) => readFileSync(join(CORPUS, name), 'utf8');
/** Every shared sample a case sent (the last test checks that none was left out). */
const used = new Set<string>();
const use = (name: string) => (used.add(name), sample(name));

const SECRET = 'corpus-webhook-secret';
const TOKEN = 'corpus-inreach-token';
const BROKER = 'mqtt://127.0.0.1:1883';
const iso = (s: number) => new Date(s * 1000).toISOString();

type Row = Awaited<ReturnType<typeof positionsOf>>[number];
/** The fields a fix is checked by. */
const fields = (p: Row) => ({
  t: p.fixTime.toISOString(),
  lat: p.lat,
  lon: p.lon,
  alt: p.altitude,
  speed: p.speed === null ? null : Math.round(p.speed * 1000) / 1000,
  battery: p.batteryPercent,
  state: p.batteryState,
  acc: p.accuracyM,
  heading: p.headingDeg === null ? null : Math.round(p.headingDeg * 100) / 100,
});

describe('field corpus: third-party device payloads through the real endpoints', () => {
  let t: TestContext;
  let feeds: http.Server;
  let pub: mqtt.MqttClient;
  let apiBase = '';
  const served = new Map<string, { type: string; body: string }>();
  const root = `devsamples-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    feeds = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body = served.get(path);
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': body.type }).end(body.body);
    });
    await new Promise<void>((r) => feeds.listen(0, '127.0.0.1', r));
    apiBase = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
    t = await createTestApp('pglite', {
      LORAWAN_WEBHOOK_SECRET: SECRET,
      INREACH_OUTBOUND_TOKEN: TOKEN,
      MQTT_URL: BROKER,
      MQTT_TOPIC: `msh/EU_868/${root}/2/json/#`,
      MAPSHARE_API_URL: `${apiBase}/mapshare`,
      SPOT_API_URL: `${apiBase}/spot`,
    });
    // The pollers are driven by runOnce below, not on their own schedule.
    await t.app.jobs.stop();
    pub = await mqtt.connectAsync(BROKER);
  });
  afterAll(async () => {
    await pub?.endAsync();
    await t?.close();
    await new Promise((r) => feeds.close(r));
  });

  const post = (url: string, payload: string, headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const basic = (key: string) => ({
    authorization: `Basic ${Buffer.from(`runner:${key}`).toString('base64')}`,
  });
  const bearer = { authorization: `Bearer ${SECRET}` };

  async function liveDevice(source: string, hardwareId: string | null) {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const device = await addDevice(t.app, { source, hardwareId });
    // Held since before any sample was recorded: every fix is attributed to the runner.
    await assign(t.app, device.id, raceId, runnerId, new Date('2001-01-01T00:00:00Z'));
    return { ...device, raceId, runnerId };
  }

  const alertsOf = (deviceId: number) =>
    t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, deviceId));

  it('every shared sample has its origin beside it', () => {
    const files = readdirSync(SHARED).filter((f) => !f.endsWith('.origin') && f !== 'README.md');
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(files.filter((f) => !existsSync(join(SHARED, `${f}.origin`)))).toEqual([]);
    const committed = readdirSync(CORPUS).filter((f) => !f.endsWith('.origin') && f !== 'README.md');
    expect(committed.filter((f) => !existsSync(join(CORPUS, `${f}.origin`)))).toEqual([]);
    const readme = corpus('README.md');
    expect(committed.filter((f) => !readme.includes(f))).toEqual([]);
  });

  it('OwnTracks (traccar decoder test bodies): time, position, altitude, speed, battery, accuracy, course', async () => {
    for (let i = 1; i <= 6; i++) {
      const name = `owntracks--traccar-OwnTracksProtocolDecoderTest--${i}.json`;
      const text = use(name);
      const m = JSON.parse(text) as Record<string, number>;
      const d = await addDevice(t.app);
      const res = await post('/api/ingest/owntracks', text, basic(d.trackingKey));
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual([]);
      const stored = (await positionsOf(t.app, d.id)).map(fields);
      expect(stored, name).toEqual([
        {
          t: iso(m.tst),
          lat: m.lat,
          lon: m.lon,
          alt: m.alt ?? null,
          speed: m.vel === undefined ? null : Math.round((m.vel / 3.6) * 1000) / 1000,
          battery: m.batt ?? null,
          state: m.batt === undefined ? null : m.batt <= 20 ? 'LOW' : 'GOOD',
          acc: m.acc ?? null,
          heading: m.cog ?? null,
        },
      ]);
    }
    // The figures of sample 3 written out: acc 5 m, cog 271°, vel 61 km/h, alt 167 m, batt 67 %.
    const d = await addDevice(t.app);
    await post(
      '/api/ingest/owntracks',
      use('owntracks--traccar-OwnTracksProtocolDecoderTest--3.json'),
      basic(d.trackingKey),
    );
    expect((await positionsOf(t.app, d.id)).map(fields)).toEqual([
      {
        t: iso(1497349316),
        lat: 48.85833,
        lon: 2.29513,
        alt: 167,
        speed: 16.944,
        battery: 67,
        state: 'GOOD',
        acc: 5,
        heading: 271,
      },
    ]);
  });

  it('OwnTracks: a truncated body is a 400 with its reason, a wrong key 401; nothing stored', async () => {
    const text = use('owntracks--traccar-OwnTracksProtocolDecoderTest--1.json');
    const d = await addDevice(t.app);
    const cut = await post('/api/ingest/owntracks', text.slice(0, text.length >> 1), basic(d.trackingKey));
    expect(cut.statusCode).toBe(400);
    expect(cut.json().error).toBe('invalid_json');
    const plain = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/owntracks',
      payload: text.slice(0, 40),
      headers: { 'content-type': 'text/plain', ...basic(d.trackingKey) },
    });
    expect(plain.statusCode, plain.body).toBe(400);
    expect(plain.json()).toMatchObject({
      error: 'unreadable_body',
      message: expect.stringMatching(/not JSON/),
    });
    expect((await post('/api/ingest/owntracks', text, basic('not-a-key'))).statusCode).toBe(401);
    expect(await positionsOf(t.app, d.id)).toEqual([]);
  });

  it('The Things Stack: Adeunis FTD decoded position; CayenneLPP gps_0 (with and without a DevEUI); the docs sensor uplink counted without a position', async () => {
    const adeunis = await addDevice(t.app, { source: 'lorawan', hardwareId: '0018B20000022799' });
    const a = await post(
      '/api/ingest/ttn',
      use('ttn--ttnmapper-android-v3--adeunis-ftd-uplink.json'),
      bearer,
    );
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json()).toEqual({ status: 'stored' });
    expect((await positionsOf(t.app, adeunis.id)).map(fields)).toEqual([
      // No time in the decoded payload nor rx_metadata: the network's received_at. Battery 4078 is mV: not a %.
      {
        t: '2021-01-16T14:41:16.374Z',
        lat: 50.889433333333336,
        lon: 4.740833333333333,
        alt: 0,
        speed: null,
        battery: null,
        state: null,
        acc: null,
        heading: null,
      },
    ]);

    const cayenneText = use('ttn--ttnmapper-ingress-api--ttnV3input-cayennelpp.json');
    const asIs = await post('/api/ingest/ttn', cayenneText, bearer);
    expect(asIs.statusCode).toBe(400);
    expect(asIs.json().error).toBe('missing_device_id');
    const cayenne = await addDevice(t.app, { source: 'lorawan', hardwareId: '70B3D57ED005B1C5' });
    const withEui = JSON.parse(cayenneText) as { end_device_ids: Record<string, unknown> };
    withEui.end_device_ids.dev_eui = '70B3D57ED005B1C5';
    const c = await post('/api/ingest/ttn', JSON.stringify(withEui), bearer);
    expect(c.json()).toEqual({ status: 'stored' });
    expect((await positionsOf(t.app, cayenne.id)).map(fields)).toEqual([
      {
        t: '2020-04-05T13:16:51.068Z',
        lat: -33.93659973144531,
        lon: 18.871000289916992,
        alt: 114.19999694824219,
        speed: null,
        battery: null,
        state: null,
        acc: null,
        heading: null,
      },
    ]);

    const sensor = await addDevice(t.app, { source: 'lorawan', hardwareId: '0004A30B001C0530' });
    const s = await post(
      '/api/ingest/ttn',
      use('ttn--lorawan-stack-docs--data-formats-uplink-example.json'),
      bearer,
    );
    expect(s.statusCode).toBe(200);
    expect(s.json()).toEqual({ status: 'ignored' });
    expect(await positionsOf(t.app, sensor.id)).toEqual([]);
    const row = await deviceRow(t.app, sensor.id);
    expect([row.uplinksWithoutPosition, row.batteryPercent, row.lastUplinkWithoutPositionAt]).toEqual([
      1,
      null,
      expect.any(Date),
    ]);
    // The admin device list shows it.
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/devices',
      headers: { authorization: `Bearer ${await t.issuer.admin()}` },
    });
    const shown = (
      list.json() as {
        DeviceId: number;
        UplinksWithoutPosition: number;
        LastUplinkWithoutPositionAt: string;
      }[]
    ).find((x) => x.DeviceId === sensor.id);
    expect(shown?.UplinksWithoutPosition).toBe(1);
    expect(shown?.LastUplinkWithoutPositionAt).toBe(row.lastUplinkWithoutPositionAt?.toISOString());

    const cut = await post('/api/ingest/ttn', cayenneText.slice(0, 300), bearer);
    expect(cut.statusCode).toBe(400);
  });

  it('ChirpStack v4 (docs events): location → fix, status → battery, up without codec counted, join ignored; v3 refused', async () => {
    const d = await addDevice(t.app, { source: 'lorawan', hardwareId: '0101010101010101' });
    const ev = (event: string, name: string) =>
      post(`/api/ingest/chirpstack?event=${event}`, use(name), bearer);
    const up = await ev('up', 'chirpstack--chirpstack-docs--events-up.json');
    expect([up.statusCode, up.json()]).toEqual([200, { status: 'ignored' }]);
    const join = await ev('join', 'chirpstack--chirpstack-docs--events-join.json');
    expect([join.statusCode, join.json()]).toEqual([200, { status: 'ignored' }]);
    const status = await ev('status', 'chirpstack--chirpstack-docs--events-status.json');
    expect([status.statusCode, status.json()]).toEqual([200, { status: 'battery' }]);
    const loc = await ev('location', 'chirpstack--chirpstack-docs--events-location.json');
    expect([loc.statusCode, loc.json()]).toEqual([200, { status: 'stored' }]);
    expect((await positionsOf(t.app, d.id)).map(fields)).toEqual([
      {
        t: '2022-07-18T09:55:11.059Z',
        lat: 37.344214,
        lon: -8.839375,
        alt: 2,
        speed: null,
        battery: null,
        state: null,
        acc: null,
        heading: null,
      },
    ]);
    const row = await deviceRow(t.app, d.id);
    // The up event counted (no decoded position); join, status and location not.
    expect([row.uplinksWithoutPosition, row.batteryPercent]).toEqual([1, 88.3]);
    const before = (await positionsOf(t.app, d.id)).length;
    const v3 = await post(
      '/api/ingest/chirpstack?event=up',
      use('chirpstack--ttnmapper-ingress-api--chirpstack-v3-up.json'),
      bearer,
    );
    expect(v3.statusCode).toBeGreaterThanOrEqual(400);
    expect(v3.statusCode).toBeLessThan(500);
    expect((await positionsOf(t.app, d.id)).length).toBe(before);
  });

  it('Garmin inReach IPC Outbound (24 real POSTs): 22 fixes at their point, time and altitude; lowBattery 2 read as no state; a truncated post is a 400', async () => {
    const name = 'inreach--ultra_tracker--post_log-01.json';
    const bodies = JSON.parse(use(name)) as { Events: Record<string, unknown>[] }[];
    const imei = '300434061234567';
    const d = await addDevice(t.app, { source: 'inreach', hardwareId: imei });
    const headers = { 'x-outbound-auth-token': TOKEN };
    const first = JSON.stringify(bodies[0]).replace('"0000000000"', `"${imei}"`);
    const cut = await post('/api/ingest/inreach', first.slice(0, first.length - 40), headers);
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toMatchObject({
      error: 'unreadable_body',
      message: expect.stringMatching(/not JSON/),
    });
    expect(await positionsOf(t.app, d.id)).toEqual([]);
    for (const body of bodies) {
      const res = await post(
        '/api/ingest/inreach',
        JSON.stringify(body).replace('"0000000000"', `"${imei}"`),
        headers,
      );
      expect(res.statusCode, res.body).toBe(200);
    }
    const events = bodies.flatMap((b) => b.Events) as {
      timeStamp: number;
      point: { latitude: number; longitude: number; altitude: number; gpsFix: number; course: number };
      status: { lowBattery: number };
    }[];
    const expected = events
      .filter((e) => e.point.gpsFix !== 0)
      .sort((x, y) => x.timeStamp - y.timeStamp)
      .map((e) => ({
        t: new Date(e.timeStamp).toISOString(),
        lat: e.point.latitude,
        lon: e.point.longitude,
        alt: e.point.altitude,
        speed: null,
        battery: null,
        state: e.status.lowBattery === 0 ? 'GOOD' : null,
        acc: null,
        heading: e.point.course,
      }));
    expect(expected).toHaveLength(22);
    expect((await positionsOf(t.app, d.id)).map(fields)).toEqual(expected);
    expect(expected.filter((e) => e.state === null)).toHaveLength(4);
  });

  it('Meshtastic MQTT JSON: fix time from the GPS solution (timestamp), heading from ground_track, telemetry battery', async () => {
    const eye = await addDevice(t.app, { source: 'meshtastic', hardwareId: '!ea8f8630' });
    const mere = await addDevice(t.app, { source: 'meshtastic', hardwareId: '1201545706' });
    const topic = (channel: string, gw: string) => `msh/EU_868/${root}/2/json/${channel}/${gw}`;
    await pub.publishAsync(topic('MediumFast', '!ea8f8630'), use('meshtastic--eye-set--position.json'));
    await pub.publishAsync(topic('MediumFast', '!ea8f8630'), use('meshtastic--eye-set--telemetry.json'));
    await pub.publishAsync(
      topic('LongFast', '!0fd8badc'),
      use('meshtastic--merelaager--telemetry-environment.json'),
    );
    await pub.publishAsync(topic('LongFast', '!0fd8badc'), use('meshtastic--merelaager--position-1.json'));
    await pub.publishAsync(topic('LongFast', '!0fd8badc'), use('meshtastic--merelaager--position-2.json'));
    await waitFor(
      async () => (await positionsOf(t.app, mere.id)).length,
      (n) => n === 2,
    );
    await waitFor(
      async () => (await deviceRow(t.app, eye.id)).batteryState,
      (s) => s === 'GOOD',
    );
    expect((await positionsOf(t.app, eye.id)).map(fields)).toEqual([
      {
        t: iso(1749534914),
        lat: 51.849588,
        lon: 19.586621,
        alt: null,
        speed: null,
        battery: null,
        state: null,
        acc: null,
        heading: null,
      },
    ]);
    expect((await positionsOf(t.app, mere.id)).map(fields)).toEqual([
      // payload.timestamp 1782654724 (the GPS solution), not payload.time 1782654734 (sent 10 s later).
      {
        t: iso(1782654724),
        lat: 58.9260443,
        lon: 24.8635653,
        alt: null,
        speed: null,
        battery: null,
        state: null,
        acc: null,
        heading: 182.12,
      },
      {
        t: iso(1782655471),
        lat: 58.9257621,
        lon: 24.8633915,
        alt: null,
        speed: 1.111,
        battery: null,
        state: null,
        acc: null,
        heading: 39.93,
      },
    ]);
    const eyeRow = await deviceRow(t.app, eye.id);
    // battery_level 101: on external power, no percentage.
    expect([eyeRow.batteryPercent, eyeRow.batteryState]).toEqual([null, 'GOOD']);
    // The environment telemetry changed nothing on the device.
    const mereRow = await deviceRow(t.app, mere.id);
    expect([mereRow.batteryPercent, mereRow.batteryState, mereRow.uplinksWithoutPosition]).toEqual([
      null,
      null,
      0,
    ]);
  });

  it('SPOT shared page (flyXC fixture): 5 fixes with altitude, the HELP message an alert; E-0160 an error, E-0195 empty', async () => {
    const spotDevice = await liveDevice('spot', '0-8139942');
    served.set('/spot/FEEDFLYXC/message.json', {
      type: 'application/json',
      body: use('spot--flyXC--spot3-feed.json'),
    });
    served.set('/spot/FEEDGONE/message.json', {
      type: 'application/json',
      body: use('spot--flyXC--error-E-0160-feed-not-found.json'),
    });
    served.set('/spot/FEEDEMPTY/message.json', {
      type: 'application/json',
      body: use('spot--flyXC--error-E-0195-no-messages.json'),
    });
    const admin = await t.issuer.admin();
    for (const FeedId of ['FEEDFLYXC', 'FEEDGONE', 'FEEDEMPTY']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/spot-feeds',
        headers: { authorization: `Bearer ${admin}` },
        payload: { FeedId },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const job = new SpotPollJob({
      db: t.app.db,
      ingest: t.app.ingest,
      log: t.app.log,
      apiUrl: `${apiBase}/spot`,
      pollSeconds: 150,
    });
    await job.runOnce();
    const page = JSON.parse(sample('spot--flyXC--spot3-feed.json')) as {
      response: { feedMessageResponse: { messages: { message: Record<string, unknown>[] } } };
    };
    const messages = page.response.feedMessageResponse.messages.message;
    const stored = (await positionsOf(t.app, spotDevice.id)).map(fields);
    expect(stored.map((f) => [f.t, f.lat, f.lon, f.alt])).toEqual(
      messages
        .map((m) => [iso(m.unixTime as number), m.latitude, m.longitude, m.altitude])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    expect(stored).toHaveLength(5);
    const alerts = await alertsOf(spotDevice.id);
    expect(alerts.map((a) => a.kind)).toEqual(['help']);
    expect((await deviceRow(t.app, spotDevice.id)).batteryState).toBe('GOOD');
    const list = (
      await t.app.inject({
        method: 'GET',
        url: '/api/admin/spot-feeds',
        headers: { authorization: `Bearer ${admin}` },
      })
    ).json() as { FeedId: string; LastError: string | null }[];
    expect(list.find((f) => f.FeedId === 'FEEDGONE')?.LastError).toMatch(/E-0160/);
    expect(list.find((f) => f.FeedId === 'FEEDEMPTY')?.LastError).toBeNull();
  });

  it('Garmin MapShare KML (flyXC fixture, inreach-mapshare demo export): every valid fix with its elevation, the emergency an SOS', async () => {
    const job = new MapSharePollJob({
      db: t.app.db,
      ingest: t.app.ingest,
      log: t.app.log,
      apiUrl: `${apiBase}/mapshare`,
    });
    const cases: [string, string][] = [
      ['FlyxcFeed', 'mapshare--flyXC--inreach-feed.kml'],
      ['DemoExport', 'mapshare--inreach-mapshare--demo.kml'],
    ];
    for (const [feedName, file] of cases) {
      const kml = use(file);
      served.set(`/mapshare/${feedName}`, { type: 'application/vnd.google-earth.kml+xml', body: kml });
      const d = await liveDevice('mapshare', feedName);
      await job.runOnce();
      const valid = [...kml.matchAll(/name="Valid GPS Fix">\s*<value>\s*True/g)].length;
      const stored = await positionsOf(t.app, d.id);
      expect((await deviceRow(t.app, d.id)).feedError, file).toBeNull();
      expect(stored.length, file).toBe(valid);
      expect(
        stored.every((p) => p.altitude !== null && p.runnerId === d.runnerId),
        file,
      ).toBe(true);
      // "Course" is the heading: every fix has one (0 when standing still).
      expect(
        stored.every((p) => p.headingDeg !== null && p.headingDeg >= 0 && p.headingDeg < 360),
        file,
      ).toBe(true);
      if (file.includes('flyXC')) expect(stored.map((p) => p.headingDeg)).toContain(337.5);
      const emergencies = [...kml.matchAll(/name="In Emergency">\s*<value>\s*True/g)].length;
      const sos = (await alertsOf(d.id)).filter((a) => a.kind === 'sos');
      expect(sos.length, file).toBe(Math.min(emergencies, 1));
    }
  });

  it('OsmAnd / Traccar Client (traccar decoder test requests): query and JSON, accuracy and heading, unknowns dropped', async () => {
    const query = async (file: string) => {
      const d = await addDevice(t.app);
      const url = corpus(file)
        .trim()
        .replace(/([?&])id=[^&]*/, `$1id=${d.trackingKey}`);
      const res = await t.app.inject({ method: 'GET', url: `/api/ingest/osmand${url.slice(1)}` });
      expect(res.statusCode, `${file}: ${res.body}`).toBe(200);
      return (await positionsOf(t.app, d.id)).map(fields);
    };
    expect(await query('osmand--traccar-OsmAndProtocolDecoderTest--query-3.txt')).toEqual([
      {
        t: '2016-01-27T18:55:47.000Z',
        lat: 42.06288,
        lon: -88.23412,
        alt: 224,
        speed: 0,
        battery: null,
        state: null,
        acc: null,
        heading: null,
      },
    ]);
    const before = Date.now();
    const nine = await query('osmand--traccar-OsmAndProtocolDecoderTest--query-9.txt');
    expect(nine).toEqual([
      {
        t: expect.any(String),
        lat: 41.666667,
        lon: -0.883333,
        alt: 350.059479,
        speed: 0,
        battery: 87,
        state: 'GOOD',
        acc: null,
        heading: null,
      },
    ]);
    // No timestamp: the receive time.
    expect(Date.parse(nine[0].t)).toBeGreaterThanOrEqual(before - 1000);
    expect(await query('osmand--traccar-OsmAndProtocolDecoderTest--query-11.txt')).toEqual([
      {
        t: iso(1504763810),
        lat: 40.7232948571,
        lon: -74.0061408571,
        alt: null,
        speed: 20.578,
        battery: null,
        state: null,
        acc: null,
        heading: 7.2,
      },
    ]);
    const json = async (file: string) => {
      const d = await addDevice(t.app);
      const body = corpus(file).replace(/"device_id":"[^"]*"/, `"device_id":"${d.trackingKey}"`);
      const res = await post('/api/ingest/osmand', body, {});
      expect(res.statusCode, `${file}: ${res.body}`).toBe(200);
      return (await positionsOf(t.app, d.id)).map(fields);
    };
    // Truncated: as JSON a 400 invalid_json, as text a 400 unreadable_body; never a 200.
    const four = corpus('osmand--traccar-OsmAndProtocolDecoderTest--json-4.json');
    const cutJson = await post('/api/ingest/osmand', four.slice(0, 120), {});
    expect([cutJson.statusCode, cutJson.json().error]).toEqual([400, 'invalid_json']);
    const cutText = await post('/api/ingest/osmand', four.slice(0, 120), { 'content-type': 'text/plain' });
    expect([cutText.statusCode, cutText.json().error]).toEqual([400, 'unreadable_body']);
    expect(await json('osmand--traccar-OsmAndProtocolDecoderTest--json-3.json')).toEqual([
      {
        t: '2025-05-09T04:11:30.579Z',
        lat: 37.785834,
        lon: -122.406417,
        alt: 0,
        speed: null,
        battery: null,
        state: null,
        acc: 5,
        heading: null,
      },
    ]);
    expect(await json('osmand--traccar-OsmAndProtocolDecoderTest--json-4.json')).toEqual([
      {
        t: '2021-07-21T08:06:34.444Z',
        lat: -6.1148096,
        lon: 106.6837015,
        alt: 35.7,
        speed: 18.67,
        battery: 79,
        state: 'GOOD',
        acc: 3.8,
        heading: 63,
      },
    ]);
  });

  it('OwnTracks transition (openHAB binding docs): stored as a fix with its accuracy', async () => {
    const d = await addDevice(t.app);
    const res = await post(
      '/api/ingest/owntracks',
      corpus('owntracks--openhab-gpstracker-readme--transition.json'),
      basic(d.trackingKey),
    );
    expect([res.statusCode, res.json()]).toEqual([200, []]);
    expect((await positionsOf(t.app, d.id)).map(fields)).toEqual([
      {
        t: iso(1527966973),
        lat: 42.53,
        lon: 18.22,
        alt: null,
        speed: null,
        battery: null,
        state: null,
        acc: 10,
        heading: null,
      },
    ]);
  });

  it('every shared sample was sent by a case above', () => {
    const files = readdirSync(SHARED).filter((f) => !f.endsWith('.origin') && f !== 'README.md');
    expect(files.filter((f) => !used.has(f))).toEqual([]);
  });
});
