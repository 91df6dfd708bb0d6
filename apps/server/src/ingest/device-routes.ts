import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../lib/errors';
import { readInreach } from './adapters/inreach';
import { readChirpstack, readTtn } from './adapters/lorawan';
import { readOsmand } from './adapters/osmand';
import { basicPassword, readOwnTracks } from './adapters/owntracks';
import { parseError, type AdapterResult } from './adapters/contract';
import {
  logUnreadable,
  registerDeviceRoute,
  requireSecret,
  type DeviceRoute,
  type Refusal,
} from './device-handler';
import type { IngestService } from './service';
import { deviceIdProblem } from './validate';

/**
 * The device protocols over HTTP, under /api/ingest. Each is declared the same way (device-handler.ts): how its
 * credential is checked, which adapter reads it, which policy stores it, what it is answered.
 */

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const unreadable = (message: string) => parseError('unreadable_body', message);

/** A network server's webhook is a JSON object; anything else is refused as unreadable (null: read it). */
function lorawanBody(body: unknown): AdapterResult | null {
  if (body === undefined || body === null || body === '') return unreadable('The body is empty.');
  if (typeof body === 'string' || Buffer.isBuffer(body))
    return unreadable('The body is not JSON (send it with Content-Type: application/json).');
  if (typeof body !== 'object' || Array.isArray(body)) return unreadable('The body is not a JSON object.');
  return null;
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

const bearer = (authorization: string | undefined) => /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];

/** Traccar Client / OsmAnd: the tracking key is in the request itself. */
const osmand: DeviceRoute = {
  url: '/api/ingest/osmand',
  methods: ['GET', 'POST'],
  summary: 'Traccar Client / OsmAnd: id=TrackingKey, lat, lon, timestamp… as query, form or Traccar 9 JSON',
  source: 'osmand',
  policy: 'whole',
  authenticate: () => ({ ok: true }),
  read: (request) => readOsmand({ query: request.query, body: request.body }),
  unknownDevice: { code: 'unknown_device', message: 'No device has this id.' },
  answer: () => undefined,
};

const ownTracksRefusal: Refusal = {
  code: 'unauthorized',
  message: "Use HTTP Basic auth with the device's tracking key as password.",
  challenge: 'Basic realm="RaceBeacon"',
};

/** OwnTracks HTTP mode: Basic auth, the password is the tracking key; answered with an empty command list. */
const ownTracks: DeviceRoute = {
  url: '/api/ingest/owntracks',
  methods: ['POST'],
  summary: 'OwnTracks HTTP mode (Basic auth, password = TrackingKey); answers []',
  source: 'owntracks',
  policy: 'whole',
  authenticate(request) {
    const key = basicPassword(request.headers.authorization);
    if (!key) return { ok: false, refusal: ownTracksRefusal };
    // A key no device can have (NUL byte, absurd length) never reaches a query.
    const problem = deviceIdProblem(key);
    if (problem) return { ok: false, refusal: { code: 'invalid_device_id', message: problem } };
    return { ok: true, credential: { trackingKey: key } };
  },
  read(request, credential) {
    const key = credential && 'trackingKey' in credential ? credential.trackingKey : '';
    const body = typeof request.body === 'string' ? tryJson(request.body) : request.body;
    // OwnTracks always sends a JSON object: anything else is a body we cannot read (an empty one is no message).
    if (body === undefined && typeof request.body === 'string' && request.body.trim() !== '')
      return unreadable('The body is not JSON (OwnTracks sends a JSON object).');
    if (body !== undefined && (!body || typeof body !== 'object' || Array.isArray(body)))
      return unreadable('The body is not a JSON object (OwnTracks sends one message per request).');
    return readOwnTracks(body, key);
  },
  unknownDevice: ownTracksRefusal,
  answer: () => [],
};

/**
 * Garmin inReach IPC Outbound. Garmin must get 200 for every batch it sends that can be read (it suspends an
 * integration after repeated non-200 answers), so a bad value in one event — a NUL character in a message, an
 * impossible time — skips that event, never refuses the batch; only a database that fails every write gets an
 * error answer, so that Garmin delivers again. Its body is read raw (see deviceRoutes).
 */
const inreach: DeviceRoute = {
  url: '/api/ingest/inreach',
  methods: ['POST'],
  summary: 'Garmin inReach IPC Outbound (X-Outbound-Auth-Token)',
  source: 'inreach',
  policy: 'each',
  authenticate: (request, config) =>
    requireSecret(header(request.headers['x-outbound-auth-token']), config.INREACH_OUTBOUND_TOKEN, {
      name: 'inReach',
      variable: 'INREACH_OUTBOUND_TOKEN',
      header: 'X-Outbound-Auth-Token',
    }),
  read(request) {
    const body = Buffer.isBuffer(request.body) ? tryJson(request.body.toString('utf8')) : request.body;
    // Only a body that is not an IPC batch at all is refused (4xx, logged; Garmin delivers it again): a batch
    // whose events are partly unreadable is answered 200, those events skipped and logged.
    if (body === undefined) return unreadable('The body is not JSON (a truncated or empty delivery?).');
    const events = body && typeof body === 'object' ? (body as { Events?: unknown }).Events : undefined;
    if (!Array.isArray(events)) return unreadable('The body is not an IPC Outbound batch (no Events list).');
    return readInreach(body);
  },
  answer: (result, batch) => {
    const stored = result.fixes.filter((o) => o.status === 'stored').length;
    const duplicates = result.fixes.filter((o) => o.status === 'duplicate').length;
    return {
      stored,
      duplicates,
      skipped: batch.fixes.length - stored - duplicates + batch.rejected.length,
      alerts: result.alerts,
    };
  },
};

const lorawanSecret = {
  name: 'LoRaWAN',
  variable: 'LORAWAN_WEBHOOK_SECRET',
  header: '"Authorization: Bearer <webhook secret>"',
};

/**
 * LoRaWAN network servers. A DevEUI not registered here is not an error of the network server (refusing it would
 * disable the webhook): the answer says what happened.
 */
const lorawanAnswer: DeviceRoute['answer'] = (result) => {
  if (result.fixes.length) return { status: result.fixes[0].status };
  return { status: result.batteries[0] === 'stored' ? 'battery' : 'ignored' };
};

const ttn: DeviceRoute = {
  url: '/api/ingest/ttn',
  methods: ['POST'],
  summary: 'The Things Stack v3 uplink webhook (Bearer LORAWAN_WEBHOOK_SECRET)',
  source: 'lorawan',
  policy: 'whole',
  authenticate: (request, config) =>
    requireSecret(bearer(request.headers.authorization), config.LORAWAN_WEBHOOK_SECRET, lorawanSecret),
  read: (request) => lorawanBody(request.body) ?? readTtn(request.body),
  answer: lorawanAnswer,
};

const chirpstack: DeviceRoute = {
  ...ttn,
  url: '/api/ingest/chirpstack',
  summary: 'ChirpStack v4 HTTP integration, ?event=up|location|status (Bearer secret)',
  read: (request) =>
    lorawanBody(request.body) ??
    readChirpstack(String((request.query as Record<string, unknown>).event ?? 'up'), request.body),
};

/** Which protocol a route is, for the log line of a body its JSON parser could not read. */
const DEVICE_SOURCE_OF: Record<string, string> = {
  '/api/ingest/osmand': 'osmand',
  '/api/ingest/owntracks': 'owntracks',
  '/api/ingest/ttn': 'lorawan',
  '/api/ingest/chirpstack': 'lorawan',
};

/** Device ingestion endpoints, each in the scope of the body parsers its protocol needs. */
export default async function deviceRoutes(app: FastifyInstance, { service }: { service: IngestService }) {
  await app.register(async (scope) => {
    // Old Traccar Client / DIY devices may POST form bodies or empty bodies with odd content types.
    await scope.register(formbody);
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    // An empty JSON body is "no body" (old clients send Content-Length: 0 with any content type).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch (err) {
        const route = DEVICE_SOURCE_OF[_req.routeOptions.url ?? ''] ?? 'unknown';
        logUnreadable(_req, route, `not valid JSON: ${(err as Error).message}`);
        done(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
      }
    });
    for (const route of [osmand, ownTracks, ttn, chirpstack]) registerDeviceRoute(scope, route, service);
  });
  // inReach reads its body as raw bytes and parses it itself: a NUL character in one event's text must skip that
  // event (the adapter drops it from message text), not refuse the batch as the input guard would a parsed body.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    registerDeviceRoute(scope, inreach, service);
  });
}
