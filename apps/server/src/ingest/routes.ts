import { timingSafeEqual } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, badRequest } from '../lib/errors';
import { parseInreach } from './adapters/inreach';
import { parseChirpstack, parseTtn, type LorawanParsed } from './adapters/lorawan';
import { parseOsmandParams, parseTraccarJson, type OsmandParsed } from './adapters/osmand';
import { basicPassword, parseOwnTracks } from './adapters/owntracks';
import { throwIfAllFailed, type IngestPipeline } from './pipeline';
import type { IngestRateLimiter } from './rate-limit';
import { updateBattery } from './battery-repository';
import { deviceIdByKey } from './fix-repository';
import type { FixOutcome } from './types';
import { batteryProblem, deviceIdProblem, fixProblem } from './validate';

export interface IngestRouteDeps {
  pipeline: IngestPipeline;
  limiter: IngestRateLimiter;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Constant-time comparison of a presented secret with the configured one. */
export function secretMatches(presented: string | undefined, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const notConfigured = (what: string, variable: string) =>
  new HttpError(
    503,
    'not_configured',
    `${what} ingestion is not enabled on this server (${variable} is not set).`,
  );

function requireBearer(request: FastifyRequest, secret: string | undefined, what: string) {
  if (!secret) throw notConfigured(what, 'LORAWAN_WEBHOOK_SECRET');
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!m || !secretMatches(m[1], secret))
    throw new HttpError(
      401,
      'unauthorized',
      'A valid "Authorization: Bearer <webhook secret>" header is required.',
    );
}

/**
 * Device ingestion endpoints. Each adapter turns its wire format into FixInput; everything else (validation,
 * attribution, idempotent storage, acking after commit, publishing) is the pipeline's.
 */
export default async function ingestRoutes(app: FastifyInstance, deps: IngestRouteDeps) {
  const { pipeline, limiter } = deps;
  const { config } = app;

  // Old Traccar Client / DIY devices may POST form bodies or empty bodies with odd content types.
  await app.register(formbody);
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // An empty JSON body is "no body" (old clients send Content-Length: 0 with any content type).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });

  /**
   * Validate all first (a request is stored whole or not at all), then store. A batch larger than a full rate-limit
   * bucket (MAX_FIXES_PER_REQUEST) is 413: it could never be accepted, and a 429 would be retried forever.
   */
  async function storeAll(source: string, parsed: OsmandParsed, kind: string): Promise<FixOutcome[]> {
    limiter.checkSize(parsed.fixes.length);
    for (const f of parsed.fixes) {
      const problem = fixProblem(f);
      if (problem) throw badRequest(problem, 'invalid_position');
    }
    limiter.check(source, parsed.key, parsed.fixes.length);
    const outcomes = await Promise.all(parsed.fixes.map((f) => pipeline.ingest(f)));
    if (outcomes.some((o) => o.status === 'unknown_device'))
      throw badRequest(`No device has this ${kind}.`, 'unknown_device');
    return outcomes;
  }

  // --- Traccar Client / OsmAnd ---
  const osmand = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const body = request.body;
    let parsed: OsmandParsed;
    if (isObj(body) && (isObj(body.location) || Array.isArray(body.location)))
      parsed = parseTraccarJson(body);
    else if (Object.keys(query).length) parsed = parseOsmandParams(query);
    else if (isObj(body)) parsed = parseOsmandParams(body);
    else if (typeof body === 'string' && body.includes('='))
      parsed = parseOsmandParams(Object.fromEntries(new URLSearchParams(body)));
    else throw badRequest('Send the OsmAnd parameters (id, lat, lon, timestamp…).', 'missing_device_id');
    await storeAll('osmand', parsed, 'id');
    return reply.code(200).send();
  };
  const osmandSchema = {
    schema: {
      tags: ['ingest'],
      summary:
        'Traccar Client / OsmAnd: id=TrackingKey, lat, lon, timestamp… as query, form or Traccar 9 JSON',
    },
  };
  app.get('/api/ingest/osmand', osmandSchema, osmand);
  app.post('/api/ingest/osmand', osmandSchema, osmand);

  // --- OwnTracks (HTTP mode) ---
  app.post(
    '/api/ingest/owntracks',
    {
      schema: {
        tags: ['ingest'],
        summary: 'OwnTracks HTTP mode (Basic auth, password = TrackingKey); answers []',
      },
    },
    async (request, reply) => {
      const key = basicPassword(request.headers.authorization);
      const refuse = () => {
        reply.header('WWW-Authenticate', 'Basic realm="RaceBeacon"');
        return new HttpError(
          401,
          'unauthorized',
          "Use HTTP Basic auth with the device's tracking key as password.",
        );
      };
      if (!key) throw refuse();
      // A key no device can have (NUL byte, absurd length) never reaches a query.
      const keyProblem = deviceIdProblem(key);
      if (keyProblem) throw badRequest(keyProblem, 'invalid_device_id');
      const fix = parseOwnTracks(
        typeof request.body === 'string' ? tryJson(request.body) : request.body,
        key,
      );
      if (!fix) {
        if ((await deviceIdByKey(app.db, key)) === null) throw refuse();
        return reply.code(200).send([]);
      }
      const problem = fixProblem(fix);
      if (problem) throw badRequest(problem, 'invalid_position');
      limiter.check('owntracks', key);
      const out = await pipeline.ingest(fix);
      if (out.status === 'unknown_device') throw refuse();
      return reply.code(200).send([]);
    },
  );

  // --- Garmin inReach IPC Outbound ---
  // In a scope of its own that reads the body as raw bytes and parses it here: Garmin must get 200 for every
  // batch it sends that can be read (it suspends an integration after repeated non-200 answers), so a bad value in
  // one event — a NUL character in a message, an impossible time — must skip that event, never refuse the batch.
  // The adapter drops NUL characters from message text and skips an event whose IMEI has one.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post(
      '/api/ingest/inreach',
      { schema: { tags: ['ingest'], summary: 'Garmin inReach IPC Outbound (X-Outbound-Auth-Token)' } },
      async (request, reply) => {
        const token = config.INREACH_OUTBOUND_TOKEN;
        if (!token) throw notConfigured('inReach', 'INREACH_OUTBOUND_TOKEN');
        const presented = request.headers['x-outbound-auth-token'];
        if (!secretMatches(Array.isArray(presented) ? presented[0] : presented, token))
          throw new HttpError(401, 'unauthorized', 'A valid X-Outbound-Auth-Token header is required.');
        // Authenticated: 200 for anything readable; bad events are logged, not returned. Only a database that
        // fails every write gets an error answer, so that Garmin re-delivers (which stores nothing twice).
        const body = Buffer.isBuffer(request.body) ? tryJson(request.body.toString('utf8')) : request.body;
        const { fixes, alerts, rejected } = parseInreach(body);
        const allowed = fixes.filter((f) =>
          limiter.allow('inreach', 'hardwareIds' in f.device ? f.device.hardwareIds[0] : ''),
        );
        const outcomes = await pipeline.ingestMany(allowed);
        let alertsStored = 0;
        const alertErrors: unknown[] = [];
        for (const a of alerts) {
          try {
            if (await pipeline.recordAlert(a)) alertsStored++;
          } catch (err) {
            alertErrors.push(err);
            request.log.error({ err, kind: a.kind, device: a.device }, 'inReach alert not stored');
          }
        }
        throwIfAllFailed(outcomes);
        if (alertErrors.length && alertErrors.length === alerts.length) throw alertErrors[0];
        const count = (s: string) => outcomes.filter((o) => o.status === s).length;
        const invalid = outcomes.flatMap((o) => (o.status === 'invalid' ? [o.message] : []));
        if (rejected.length || invalid.length || count('unknown_device') || count('failed'))
          request.log.warn(
            {
              rejected: rejected.slice(0, 20),
              invalid: invalid.slice(0, 20),
              unknown: count('unknown_device'),
              failed: count('failed'),
              rateLimited: fixes.length - allowed.length,
            },
            'inReach events skipped',
          );
        return reply.code(200).send({
          stored: count('stored'),
          duplicates: count('duplicate'),
          skipped: fixes.length - count('stored') - count('duplicate') + rejected.length,
          alerts: alertsStored,
        });
      },
    );
  });

  // --- LoRaWAN: The Things Stack and ChirpStack ---
  async function lorawan(request: FastifyRequest, reply: FastifyReply, parsed: LorawanParsed) {
    if (!parsed.devEui) throw badRequest('The uplink names no DevEUI.', 'missing_device_id');
    const idProblem = deviceIdProblem(parsed.devEui);
    if (idProblem) throw badRequest(idProblem, 'invalid_device_id');
    const hardwareIds = [parsed.devEui];
    if (!parsed.fix) {
      const battery = batteryProblem(parsed.batteryPercent);
      if (battery) throw badRequest(battery, 'invalid_position');
      const id =
        parsed.batteryPercent === null
          ? null
          : await updateBattery(app.db, 'lorawan', hardwareIds, parsed.batteryPercent, null);
      return reply.code(200).send({ status: id === null ? 'ignored' : 'battery' });
    }
    const fix = { ...parsed.fix, device: { source: 'lorawan' as const, hardwareIds } };
    limiter.check('lorawan', parsed.devEui.toLowerCase());
    const out = await pipeline.ingest(fix);
    // A DevEUI not registered here is not an error of the network server (it would disable the webhook).
    return reply.code(200).send({ status: out.status });
  }

  app.post(
    '/api/ingest/ttn',
    {
      schema: {
        tags: ['ingest'],
        summary: 'The Things Stack v3 uplink webhook (Bearer LORAWAN_WEBHOOK_SECRET)',
      },
    },
    async (request, reply) => {
      requireBearer(request, config.LORAWAN_WEBHOOK_SECRET, 'LoRaWAN');
      return lorawan(request, reply, parseTtn(request.body));
    },
  );

  app.post(
    '/api/ingest/chirpstack',
    {
      schema: {
        tags: ['ingest'],
        summary: 'ChirpStack v4 HTTP integration, ?event=up|location|status (Bearer secret)',
      },
    },
    async (request, reply) => {
      requireBearer(request, config.LORAWAN_WEBHOOK_SECRET, 'LoRaWAN');
      const event = String((request.query as Record<string, unknown>).event ?? 'up');
      return lorawan(request, reply, parseChirpstack(event, request.body));
    },
  );
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
