import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { call, createRace, multipartFile } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';

/**
 * Fuzz: walks the OpenAPI document and sends hostile shapes to every endpoint — bad ids in every path parameter,
 * and NUL characters, dates JavaScript accepts but PostgreSQL refuses, out-of-range numbers and wrong types in
 * every query parameter and body field — with a token that gets each request past authentication to validation.
 * Device ingestion (no body schema in the document) is fuzzed from a realistic payload per wire format, every
 * leaf replaced in turn. Every answer must be below 500, and every 4xx a JSON { error, message }.
 */

const BAD_IDS = ['0x1', '1e0', '0b1', '%201', '1%0A', '2147483648', '-1', '99999999999999999999', '%00'];

const SHAPES: [string, unknown][] = [
  ['NUL inside', 'a\u0000b'],
  ['NUL only', '\u0000'],
  ['year 0', '0000-01-01T00:00:00Z'],
  ['min JS date', '-271821-04-20T00:00:00Z'],
  ['max JS date', '+275760-09-13T00:00:00Z'],
  ['"1" as a date', '1'],
  ['30 February', '2024-02-30'],
  ['1e39', 1e39],
  ['1e308', 1e308],
  ['1e-50', 1e-50],
  ['-5', -5],
  ['2^31', 2147483648],
  ['1e20', 1e20],
  ['true', true],
  ['array', [1, 'x']],
  ['object', { $ne: 1 }],
  ['null', null],
  ['empty string', ''],
  ['long string', 'x'.repeat(20_000)],
  ['lone surrogate', '\ud800'],
];

/** The same shapes as they can appear in a query string or form field. */
const TEXT_SHAPES: [string, string][] = [
  ...SHAPES.filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(
    ([l, v]) => [l, String(v)] as [string, string],
  ),
  ['1e39 as text', '1e39'],
  ['Infinity', 'Infinity'],
  ['NaN', 'NaN'],
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  minLength?: number;
  minimum?: number;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
}

/** Every leaf of a JSON value with its path (for "replace this leaf" mutations). */
function leaves(v: Json, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v !== null && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [path];
}

function setAt(v: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[path[path.length - 1]] = value;
  return copy as Json;
}

interface Failure {
  request: string;
  status: number;
  body: string;
}

/** Checks one answer: < 500, and a 4xx is JSON { error, message }. */
function check(failures: Failure[], label: string, res: { statusCode: number; body: string }) {
  const bad = () => failures.push({ request: label, status: res.statusCode, body: res.body.slice(0, 200) });
  if (res.statusCode >= 500) return bad();
  if (res.statusCode >= 400) {
    try {
      const j = JSON.parse(res.body) as Record<string, unknown>;
      if (typeof j.error !== 'string' || typeof j.message !== 'string') bad();
    } catch {
      bad();
    }
  }
}

const INREACH_TOKEN = 'fuzz-inreach-token';
const LORA_SECRET = 'fuzz-lora-secret';

describe.each(dbKinds)('API fuzz (%s)', (kind) => {
  let t: TestContext;
  let alice: string, admin: string;
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, Schema> };
  };
  const valid: Record<string, number> = {};
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(kind, {
      INREACH_OUTBOUND_TOKEN: INREACH_TOKEN,
      LORAWAN_WEBHOOK_SECRET: LORA_SECRET,
    });
    alice = await t.issuer.director('alice');
    admin = await t.issuer.admin();
    // Real objects behind the valid ids, so a request with one bad field reaches the deepest code it can.
    valid.raceId = await createRace(t, alice, { Name: 'Fuzz race' }, { approve: true, adminToken: admin });
    valid.runnerId = (
      await call(t, 'POST', `/api/director/runners/${valid.raceId}`, {
        token: alice,
        body: { FirstName: 'Fuzz', LastName: 'Runner' },
      })
    ).json().RunnerId;
    const upload = multipartFile(gpxFixture('gpx11-two-segments.gpx'));
    valid.courseId = (
      await call(t, 'POST', `/api/director/course/${valid.raceId}`, { token: alice, ...upload })
    ).json().CourseId;
    const device = async (Source: string, HardwareId: string | null) => {
      const res = await call(t, 'POST', '/api/admin/devices', {
        token: admin,
        body: { Name: `Fuzz ${Source}`, Source, HardwareId },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { DeviceId: number; TrackingKey: string };
    };
    const osmand = await device('osmand', null);
    valid.deviceId = osmand.DeviceId;
    keys.osmand = osmand.TrackingKey;
    keys.traccar = (await device('osmand', null)).TrackingKey;
    keys.owntracks = (await device('owntracks', null)).TrackingKey;
    await device('inreach', '300434060000001');
    await device('lorawan', '70b3d57ed0000001');
    await device('lorawan', '70b3d57ed0000002');
    for (const d of [valid.deviceId]) {
      await call(t, 'PUT', `/api/admin/devices/${d}/assign-race/${valid.raceId}`, { token: admin });
    }
    const feed = await call(t, 'POST', '/api/admin/spot-feeds', {
      token: admin,
      body: { FeedId: 'fuzzfeed' },
    });
    expect(feed.statusCode, feed.body).toBe(201);
    valid.feedId = feed.json().Id;
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => t?.close());

  /**
   * The live event stream stays open when its id is accepted: read the answer's head, and the body only when it is
   * an error (a bad id that is wrongly accepted must fail the check, not hang the test).
   */
  const openStream = async (url: string): Promise<{ statusCode: number; body: string }> => {
    const abort = new AbortController();
    const res = await t.app.inject({ method: 'GET', url, payloadAsStream: true, signal: abort.signal });
    if (res.statusCode < 400) {
      abort.abort();
      return { statusCode: res.statusCode, body: '(an open event stream)' };
    }
    let body = '';
    for await (const chunk of res.stream()) body += String(chunk);
    return { statusCode: res.statusCode, body };
  };

  const tokenFor = (path: string) =>
    path.startsWith('/api/admin') ? admin : path.startsWith('/api/director') ? alice : undefined;

  /** A valid value for a path parameter, by name (and path, for the plain `id`). */
  const validParam = (path: string, name: string): string => {
    if (name === 'id') return String(path.startsWith('/api/admin/spot-feeds') ? valid.feedId : valid.raceId);
    if (name in valid) return String(valid[name]);
    return 'fuzz';
  };

  const resolve = (s: Schema | undefined): Schema => {
    if (!s) return {};
    if (s.$ref) return resolve(doc.components?.schemas?.[s.$ref.split('/').pop()!]);
    return s;
  };

  /** A valid example of a request schema (the base every mutation starts from). */
  const example = (raw: Schema | undefined, name = ''): Json => {
    const s = resolve(raw);
    const alt = s.anyOf ?? s.oneOf;
    if (alt) return example(alt.find((a) => resolve(a).type !== 'null') ?? alt[0], name);
    if (s.enum) return s.enum[0] as Json;
    const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    switch (type) {
      case 'object': {
        const o: Record<string, Json> = {};
        for (const [k, p] of Object.entries(s.properties ?? {})) o[k] = example(p, k);
        return o;
      }
      case 'array':
        return [example(s.items)];
      case 'integer':
      case 'number':
        return Math.max(1, s.minimum ?? 1);
      case 'boolean':
        return true;
      case 'string':
        if (s.format === 'date-time') return '2030-01-01T08:00:00Z';
        return name === 'FeedId' ? `feed${Math.random().toString(36).slice(2, 8)}` : `Fuzz ${name}`;
      default:
        return null;
    }
  };

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );

  it('the document lists the REST API, the live routes, the ingest endpoints and the SPOT feed admin', () => {
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/api/director/races/{id}',
      '/api/admin/devices/{deviceId}',
      '/api/open/races/{id}/leaderboard',
      '/api/ingest/osmand',
      '/api/ingest/inreach',
      '/api/admin/spot-feeds/{id}',
    ])
      expect(paths).toContain(p);
  });

  it('every path parameter: bad ids and NUL → 4xx JSON, never 5xx', async () => {
    const failures: Failure[] = [];
    let sent = 0;
    for (const { path, method, op } of operations()) {
      const params = (op.parameters ?? []).filter((p) => p.in === 'path');
      for (const param of params) {
        for (const bad of BAD_IDS) {
          const url = path.replace(/\{([^}]+)\}/g, (_m, n: string) =>
            n === param.name ? bad : validParam(path, n),
          );
          const res = path.endsWith('/live')
            ? await openStream(url)
            : await call(t, method as 'GET', url, { token: tokenFor(path) });
          sent++;
          check(failures, `${method} ${url}`, res);
          if (param.name !== '*' && res.statusCode < 400)
            failures.push({ request: `${method} ${url}`, status: res.statusCode, body: 'accepted a bad id' });
        }
      }
    }
    expect(sent).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  });

  it('every query parameter and JSON body field: hostile shapes → never 5xx, 4xx JSON', async () => {
    const failures: Failure[] = [];
    let sent = 0;
    for (const { path, method, op } of operations()) {
      const base = path.replace(/\{([^}]+)\}/g, (_m, n: string) => validParam(path, n));
      if (base.endsWith('/live')) continue; // an event stream that stays open (its id is fuzzed above)
      const token = tokenFor(path);
      for (const q of (op.parameters ?? []).filter((p) => p.in === 'query')) {
        for (const [label, value] of TEXT_SHAPES) {
          const url = `${base}?${new URLSearchParams({ [q.name]: value })}`;
          const res = await call(t, method as 'GET', url, { token });
          sent++;
          check(failures, `${method} ${base} ?${q.name}=${label}`, res);
        }
      }
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const body = example(schema);
      const mutations: [string, unknown][] = [
        ...leaves(body).flatMap((p) =>
          SHAPES.map(([l, v]) => [`${p.join('.')}=${l}`, setAt(body, p, v)] as [string, unknown]),
        ),
        ...SHAPES.map(([l, v]) => [`whole body ${l}`, v] as [string, unknown]),
      ];
      for (const [label, payload] of mutations) {
        const res = await call(t, method as 'POST', base, {
          token,
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json' },
        });
        sent++;
        check(failures, `${method} ${base} ${label}`, res);
      }
    }
    expect(sent).toBeGreaterThan(300);
    expect(failures).toEqual([]);
  });

  it('the GPX upload (multipart): NUL in the file name or a field, and odd parts → never 5xx', async () => {
    const failures: Failure[] = [];
    const url = `/api/director/course/${valid.raceId}`;
    const gpx = gpxFixture('gpx10-track.gpx');
    const bodies: [string, { payload: Buffer; headers: Record<string, string> }][] = [
      ['NUL in the file name', multipartFile(gpx, { filename: 'a\u0000.gpx' })],
      ['NUL in the content', multipartFile(`${gpx.slice(0, 60)}\u0000${gpx.slice(60)}`)],
      ['a 300-character file name', multipartFile(gpx, { filename: `${'n'.repeat(300)}.gpx` })],
      [
        'a field with a NUL',
        {
          payload: Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\u0000\r\n--b--\r\n'),
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
        },
      ],
      [
        'no parts',
        { payload: Buffer.from('--b--\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=b' } },
      ],
      [
        'a truncated part',
        {
          payload: Buffer.from(
            '--b\r\nContent-Disposition: form-data; name="file"; filename="c.gpx"\r\n\r\n<gpx',
          ),
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
        },
      ],
    ];
    for (const [label, body] of bodies) {
      check(failures, `POST ${url} ${label}`, await call(t, 'POST', url, { token: alice, ...body }));
    }
    expect(failures).toEqual([]);
  });

  describe('device ingestion: every field of each wire format replaced by each shape', () => {
    const ago = (s: number) => new Date(Date.now() - s * 1000);

    const run = async (
      label: string,
      base: Json,
      send: (payload: Json) => Promise<{ statusCode: number; body: string }>,
    ) => {
      // The unchanged payload is accepted: the mutations start from a request that reaches storage.
      const ok = await send(base);
      expect(ok.statusCode, `${label}: ${ok.body}`).toBe(200);
      const failures: Failure[] = [];
      let sent = 0;
      for (const p of leaves(base)) {
        for (const [l, v] of SHAPES) {
          check(failures, `${label} ${p.join('.')}=${l}`, await send(setAt(base, p, v)));
          sent++;
        }
      }
      for (const [l, v] of SHAPES) {
        check(failures, `${label} whole body ${l}`, await send(v as Json));
        sent++;
      }
      expect(sent).toBeGreaterThan(SHAPES.length);
      return failures;
    };

    const inject = (opts: InjectOptions) => t.app.inject(opts);

    it('OsmAnd query string and form body', async () => {
      const base = {
        id: keys.osmand,
        lat: '46.5',
        lon: '7.5',
        timestamp: String(Math.floor(ago(60).getTime() / 1000)),
        altitude: '1500',
        speed: '3.2',
        bearing: '90',
        accuracy: '5',
        hdop: '0.9',
        batt: '80',
      };
      const ok = await inject({ method: 'GET', url: `/api/ingest/osmand?${new URLSearchParams(base)}` });
      expect(ok.statusCode, ok.body).toBe(200);
      const failures: Failure[] = [];
      for (const field of Object.keys(base)) {
        for (const [l, v] of TEXT_SHAPES) {
          const params = new URLSearchParams({ ...base, [field]: v }).toString();
          check(
            failures,
            `GET osmand ${field}=${l}`,
            await inject({ method: 'GET', url: `/api/ingest/osmand?${params}` }),
          );
          check(
            failures,
            `POST osmand form ${field}=${l}`,
            await inject({
              method: 'POST',
              url: '/api/ingest/osmand',
              payload: params,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            }),
          );
        }
      }
      expect(failures).toEqual([]);
    });

    it('Traccar Client JSON', async () => {
      const base = {
        device_id: keys.traccar,
        location: {
          timestamp: ago(50).toISOString(),
          coords: { latitude: 46.5, longitude: 7.5, accuracy: 5, speed: 2.5, heading: 90, altitude: 1500 },
          battery: { level: 0.8, is_charging: false },
          is_moving: true,
        },
      };
      const failures = await run('traccar', base, (payload) =>
        inject({
          method: 'POST',
          url: '/api/ingest/osmand',
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(failures).toEqual([]);
    });

    it('OwnTracks (and a NUL in the Basic password)', async () => {
      const auth = (pw: string) => `Basic ${Buffer.from(`user:${pw}`).toString('base64')}`;
      const base = {
        _type: 'location',
        lat: 46.5,
        lon: 7.5,
        tst: Math.floor(ago(40).getTime() / 1000),
        alt: 1500,
        vel: 10,
        batt: 70,
        tid: 'rb',
      };
      const failures = await run('owntracks', base, (payload) =>
        inject({
          method: 'POST',
          url: '/api/ingest/owntracks',
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json', authorization: auth(keys.owntracks) },
        }),
      );
      check(
        failures,
        'owntracks password with NUL',
        await inject({
          method: 'POST',
          url: '/api/ingest/owntracks',
          payload: JSON.stringify(base),
          headers: { 'content-type': 'application/json', authorization: auth(`${keys.owntracks}\u0000`) },
        }),
      );
      expect(failures).toEqual([]);
    });

    it('Garmin inReach', async () => {
      const base = {
        Version: '2.0',
        Events: [
          {
            imei: '300434060000001',
            messageCode: 4,
            freeText: 'help',
            timeStamp: ago(30).getTime(),
            addresses: [{ address: 'ops@example.org' }],
            point: { latitude: 46.5, longitude: 7.5, altitude: 1500, gpsFix: 2, course: 0, speed: 0 },
            status: { autonomous: 0, lowBattery: 1, intervalChange: 0, resetDetected: 0 },
          },
        ],
      };
      const failures = await run('inreach', base, (payload) =>
        inject({
          method: 'POST',
          url: '/api/ingest/inreach',
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json', 'x-outbound-auth-token': INREACH_TOKEN },
        }),
      );
      expect(failures).toEqual([]);
    });

    it('The Things Stack', async () => {
      const at = ago(20);
      const base = {
        end_device_ids: {
          device_id: 'fuzz',
          application_ids: { application_id: 'fuzz' },
          dev_eui: '70B3D57ED0000001',
        },
        received_at: at.toISOString(),
        uplink_message: {
          f_port: 2,
          f_cnt: 1,
          decoded_payload: {
            latitude: 46.5,
            longitude: 7.5,
            altitude: 1500,
            batteryLevel: 80,
            time: at.toISOString(),
          },
          rx_metadata: [{ gateway_ids: { gateway_id: 'gw' }, time: at.toISOString(), rssi: -100 }],
          received_at: at.toISOString(),
        },
      };
      const failures = await run('ttn', base, (payload) =>
        inject({
          method: 'POST',
          url: '/api/ingest/ttn',
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json', authorization: `Bearer ${LORA_SECRET}` },
        }),
      );
      expect(failures).toEqual([]);
    });

    it('ChirpStack (up and status events)', async () => {
      const at = ago(10);
      const up = {
        deduplicationId: 'fuzz',
        time: at.toISOString(),
        deviceInfo: { devEui: '70b3d57ed0000002', deviceName: 'fuzz' },
        fCnt: 1,
        object: { latitude: 46.5, longitude: 7.5, altitude: 1500, battery: 77 },
      };
      const status = { deviceInfo: { devEui: '70b3d57ed0000002' }, margin: 7, batteryLevel: 12.5 };
      const send = (event: string) => (payload: Json) =>
        inject({
          method: 'POST',
          url: `/api/ingest/chirpstack?event=${event}`,
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json', authorization: `Bearer ${LORA_SECRET}` },
        });
      const failures = [
        ...(await run('chirpstack up', up, send('up'))),
        ...(await run('chirpstack status', status, send('status'))),
      ];
      expect(failures).toEqual([]);
    });
  });
});
