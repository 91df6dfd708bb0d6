import { describe, expect, it } from 'vitest';
import { parseOsmandParams, parseOsmandTime, parseTraccarJson } from '../src/ingest/adapters/osmand';
import { readDecoded, parseChirpstack } from '../src/ingest/adapters/lorawan';
import { nodeIds, parseMeshtastic } from '../src/ingest/adapters/meshtastic';
import { parseSpotFeed } from '../src/ingest/adapters/spot';
import { parseInreach } from '../src/ingest/adapters/inreach';
import { basicPassword, parseOwnTracks } from '../src/ingest/adapters/owntracks';
import { fixProblem } from '../src/ingest/validate';

describe('adapters (pure parsing)', () => {
  it('OsmAnd timestamps: seconds below 2^31, milliseconds above, ISO, "yyyy-MM-dd HH:mm:ss" UTC, missing = now', () => {
    expect(parseOsmandTime('1760000000').getTime()).toBe(1760000000000);
    expect(parseOsmandTime('1760000000123').getTime()).toBe(1760000000123);
    expect(parseOsmandTime('2025-10-09T08:53:20Z').toISOString()).toBe('2025-10-09T08:53:20.000Z');
    expect(parseOsmandTime('2025-10-09 08:53:20').toISOString()).toBe('2025-10-09T08:53:20.000Z');
    const now = new Date('2030-01-01T00:00:00Z');
    expect(parseOsmandTime(undefined, now)).toBe(now);
    expect(Number.isNaN(parseOsmandTime('yesterday').getTime())).toBe(true);
  });

  it('OsmAnd parameters: speed knots → m/s, battery percent, location "lat,lon", repeated params take the first', () => {
    const { key, fixes } = parseOsmandParams({
      id: ['k1', 'k2'],
      location: '46.5,7.5',
      speed: '10',
      batt: '42',
    });
    expect(key).toBe('k1');
    expect(fixes[0]).toMatchObject({ lat: 46.5, lon: 7.5, batteryPercent: 42, batteryState: 'GOOD' });
    expect(fixes[0].speed).toBeCloseTo(5.144, 3);
  });

  it('Traccar Client 9: unknown speed (-1) and battery (-1) become null', () => {
    const { fixes } = parseTraccarJson({
      device_id: 'k',
      location: {
        timestamp: '2025-10-09T08:53:20.412Z',
        coords: { latitude: 1, longitude: 2, speed: -1 },
        battery: { level: -1 },
      },
    });
    expect(fixes[0]).toMatchObject({ speed: null, batteryPercent: null, lat: 1, lon: 2 });
    expect(fixes[0].fixTime.toISOString()).toBe('2025-10-09T08:53:20.412Z');
  });

  it('LoRaWAN decoder fields: common names, nesting, volts are not percent', () => {
    expect(readDecoded({ lat: 1, lng: 2, alt: 3, batt: 50 })).toMatchObject({
      lat: 1,
      lon: 2,
      alt: 3,
      battery: 50,
    });
    expect(readDecoded({ location: { Latitude: 5, Longitude: 6 } })).toMatchObject({ lat: 5, lon: 6 });
    expect(readDecoded({ latitude: 1, longitude: 2, battery: 3.61 }).battery).toBeUndefined();
    expect(
      parseChirpstack('up', { deviceInfo: { devEui: 'ab' }, object: { latitude: 0, longitude: 0 } }).fix,
    ).toBeNull();
  });

  it('Meshtastic: node id spellings and telemetry with external power', () => {
    expect(nodeIds(0xabcdef2c)).toEqual(['2882400044', '!abcdef2c', 'abcdef2c']);
    const t = parseMeshtastic(
      JSON.stringify({ id: 1, from: 5, type: 'telemetry', payload: { battery_level: 101 } }),
    );
    expect(t).toMatchObject({ kind: 'battery', percent: null, state: 'GOOD' });
    const env = parseMeshtastic(
      JSON.stringify({ id: 2, from: 5, type: 'telemetry', payload: { temperature: 3 } }),
    );
    expect(env.kind).toBe('ignored');
  });

  it('SPOT: single object, E-0195, other errors', () => {
    const one = parseSpotFeed({
      response: {
        feedMessageResponse: {
          count: 1,
          messages: {
            message: {
              id: 1,
              messengerId: '0-1',
              unixTime: 1760000000,
              latitude: 1,
              longitude: 2,
              batteryState: 'LOW',
            },
          },
        },
      },
    });
    expect(one).toMatchObject({ ok: true, count: 1 });
    expect(one.ok && one.fixes[0]).toMatchObject({ lat: 1, lon: 2, batteryState: 'LOW' });
    expect(
      parseSpotFeed({ response: { errors: { error: { code: 'E-0195', text: 'No Messages to display' } } } }),
    ).toEqual({
      ok: true,
      fixes: [],
      alerts: [],
      count: 0,
    });
    expect(
      parseSpotFeed({ response: { errors: { error: { code: 'E-0160', text: 'Feed Not Found' } } } }),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/E-0160/),
    });
  });

  it('inReach: positions only from position codes or with a GPS fix; SOS and cancel are alerts', () => {
    const { fixes, alerts } = parseInreach({
      Events: [
        { imei: '1', messageCode: 8, timeStamp: 1, point: { latitude: 1, longitude: 1, gpsFix: 2 } }, // reference point
        { imei: '1', messageCode: 3, timeStamp: 2, point: { latitude: 1, longitude: 1, gpsFix: 0 } },
        { imei: '1', messageCode: 7, timeStamp: 3, point: { latitude: 0, longitude: 0, gpsFix: 0 } },
        {
          imei: '1',
          messageCode: 11,
          timeStamp: 4,
          point: { latitude: 1, longitude: 1, gpsFix: 2 },
          status: { lowBattery: 1 },
        },
        'garbage',
      ],
    });
    expect(fixes.map((f) => f.fixTime.getTime())).toEqual([4]);
    expect(fixes[0].batteryState).toBe('LOW');
    expect(alerts).toEqual([expect.objectContaining({ kind: 'sos-cancel', lat: null, lon: null })]);
  });

  it('OwnTracks: Basic password extraction and non-location messages', () => {
    expect(basicPassword(`Basic ${Buffer.from('user:pa:ss').toString('base64')}`)).toBe('pa:ss');
    expect(basicPassword(`Basic ${Buffer.from('user:').toString('base64')}`)).toBeNull();
    expect(basicPassword('Bearer x')).toBeNull();
    expect(parseOwnTracks({ _type: 'waypoint' }, 'k')).toBeNull();
  });

  it('validation refuses non-finite altitude/speed/battery and pre-2000 times', () => {
    const base = {
      device: { trackingKey: 'k' },
      source: 'osmand' as const,
      lat: 1,
      lon: 2,
      fixTime: new Date(),
    };
    expect(fixProblem(base)).toBeNull();
    expect(fixProblem({ ...base, speed: NaN })).toMatch(/speed/);
    expect(fixProblem({ ...base, fixTime: new Date(0) })).toMatch(/2000/);
  });
});

describe('Meshtastic precision bits and heading (issue 23)', () => {
  it('precision_bits 1–31 is the cell size in metres; 32, 0 or none is no figure', async () => {
    const { precisionMetres } = await import('../src/ingest/adapters/meshtastic');
    expect([13, 16, 19, 32, 0, undefined].map((b) => precisionMetres(b))).toEqual([
      5836,
      730,
      91,
      null,
      null,
      null,
    ]);
  });
  it('reads ground_track in 1e-5 degrees, timestamp before time, and a packet without a fix as no position', () => {
    const packet = (payload: Record<string, unknown>) =>
      JSON.stringify({ id: 7, from: 2882400044, type: 'position', timestamp: 1782654737, payload });
    const p = parseMeshtastic(
      packet({
        latitude_i: 589260443,
        longitude_i: 248635653,
        time: 1782654734,
        timestamp: 1782654724,
        ground_track: 18212000,
        precision_bits: 16,
      }),
    );
    expect(p.kind === 'position' && [p.fix.fixTime.getTime() / 1000, p.fix.heading, p.fix.accuracy]).toEqual([
      1782654724, 182.12, 730,
    ]);
    expect(parseMeshtastic(packet({ latitude_i: 0, longitude_i: 0 })).kind).toBe('no_position');
    expect(parseMeshtastic('{"from": 1, "type": "posit').kind).toBe('unreadable');
  });
});

describe('a device body that cannot be read (issue 23)', () => {
  it('is refused with 400 unreadable_body and one warn log line naming the source and reason, never 200', async () => {
    const { deviceHandler } = await import('../src/ingest/device-handler');
    const { parseError } = await import('../src/ingest/adapters/contract');
    const warnings: [Record<string, unknown>, string][] = [];
    const request = {
      headers: { 'content-type': 'application/json', 'content-length': '40' },
      log: { warn: (o: Record<string, unknown>, m: string) => warnings.push([o, m]) },
    };
    const reply = { header: () => reply, code: () => ({ send: () => 'sent' }) };
    const route = {
      url: '/x',
      methods: ['POST' as const],
      summary: '',
      source: 'inreach' as const,
      policy: 'each' as const,
      authenticate: () => ({ ok: true as const }),
      read: () => parseError('unreadable_body', 'The body is not JSON.'),
      answer: () => ({}),
    };
    const handler = deviceHandler(route, {} as never, {} as never);
    await expect(handler(request as never, reply as never)).rejects.toMatchObject({
      statusCode: 400,
      code: 'unreadable_body',
    });
    expect(warnings).toEqual([
      [
        {
          source: 'inreach',
          reason: 'The body is not JSON.',
          contentType: 'application/json',
          contentLength: '40',
        },
        'device request body unreadable: refused',
      ],
    ]);
  });
});
