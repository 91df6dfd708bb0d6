import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { HttpError } from '../lib/errors';
import type { AdapterResult, DeviceBatch, ParseErrorCode } from './adapters/contract';
import type { AcceptResult, IngestService } from './service';
import type { DeviceRef, DeviceSource } from './types';

/**
 * Why a device request is refused: a parse error of its adapter, or its credential. The shared handler turns it
 * into the HTTP answer (STATUS), so no adapter or protocol definition deals in HTTP errors.
 */
export interface Refusal {
  code: ParseErrorCode | 'unknown_device' | 'unauthorized' | 'not_configured';
  message: string;
  /** WWW-Authenticate challenge sent with a 401. */
  challenge?: string;
}

const STATUS: Record<Refusal['code'], number> = {
  missing_device_id: 400,
  invalid_device_id: 400,
  invalid_position: 400,
  source_error: 400,
  unreadable_body: 400,
  unknown_device: 400,
  unauthorized: 401,
  not_configured: 503,
};

export type Authentication = { ok: true; credential?: DeviceRef } | { ok: false; refusal: Refusal };

/** One device protocol over HTTP. Every protocol is declared with these few fields and served by deviceHandler. */
export interface DeviceRoute {
  url: string;
  methods: ('GET' | 'POST')[];
  summary: string;
  source: DeviceSource;
  /** `whole`: stored whole or refused (4xx); `each`: every message stored or skipped on its own (IngestService). */
  policy: 'whole' | 'each';
  /** The request's credential, checked before its body is read. */
  authenticate(request: FastifyRequest, config: Config): Authentication;
  /** The protocol's adapter. */
  read(request: FastifyRequest, credential: DeviceRef | undefined): AdapterResult;
  /** The refusal when the batch names no device of ours; without one, the answer reports it. */
  unknownDevice?: Refusal;
  /** The body of the 200 answer. */
  answer(result: AcceptResult, batch: DeviceBatch): unknown;
}

function refuse(reply: FastifyReply, refusal: Refusal): HttpError {
  if (refusal.challenge) reply.header('WWW-Authenticate', refusal.challenge);
  return new HttpError(STATUS[refusal.code], refusal.code, refusal.message);
}

/** Authenticate → read (the adapter) → accept (rate limits, validation, storage) → answer; refusals → 4xx/503. */
export function deviceHandler(route: DeviceRoute, service: IngestService, config: Config) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = route.authenticate(request, config);
    if (!auth.ok) throw refuse(reply, auth.refusal);
    const read = route.read(request, auth.credential);
    if (!read.ok) {
      // A body we cannot read is never answered 200 (the sender would not deliver it again), and is logged: it may
      // be a truncated delivery of a real fix, or a network server whose format changed.
      if (read.error.code === 'unreadable_body') logUnreadable(request, route.source, read.error.message);
      throw refuse(reply, read.error);
    }
    const { batch } = read;
    const result =
      route.policy === 'whole'
        ? await service.acceptWhole(route.source, batch, auth.credential)
        : await service.acceptEach(route.source, batch);
    if (result.unknownDevice && route.unknownDevice) throw refuse(reply, route.unknownDevice);
    const skipped = route.policy === 'each' ? service.skipped(batch, result) : null;
    if (skipped) request.log.warn({ source: route.source, ...skipped }, 'device messages skipped');
    return reply.code(200).send(route.answer(result, batch));
  };
}

/** The log line of a device request whose body cannot be read (what it was, never its content). */
export function logUnreadable(request: FastifyRequest, source: string, reason: string): void {
  request.log.warn(
    {
      source,
      reason,
      contentType: request.headers['content-type'],
      contentLength: request.headers['content-length'],
    },
    'device request body unreadable: refused',
  );
}

export function registerDeviceRoute(app: FastifyInstance, route: DeviceRoute, service: IngestService): void {
  app.route({
    method: route.methods,
    url: route.url,
    schema: { tags: ['ingest'], summary: route.summary },
    // Every tracker pings every few seconds: a production server at LOG_LEVEL=info would write two request lines per
    // ping. Warnings (skipped messages) and errors are still logged; successes and refusals are not.
    logLevel: 'warn',
    // The answers are empty or a few bytes: no compression hooks on the hot path.
    compress: false,
    handler: deviceHandler(route, service, app.config),
  });
}

/** Constant-time comparison of a presented secret with the configured one. */
export function secretMatches(presented: string | undefined, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A shared secret the request must present (a webhook's): 503 while the server has none configured. */
export function requireSecret(
  presented: string | undefined,
  secret: string | undefined,
  what: { name: string; variable: string; header: string },
): Authentication {
  if (!secret) {
    const message = `${what.name} ingestion is not enabled on this server (${what.variable} is not set).`;
    return { ok: false, refusal: { code: 'not_configured', message } };
  }
  if (!secretMatches(presented, secret))
    return {
      ok: false,
      refusal: { code: 'unauthorized', message: `A valid ${what.header} header is required.` },
    };
  return { ok: true };
}
