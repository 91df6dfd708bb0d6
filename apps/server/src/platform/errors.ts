import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { validationMessage } from '@racebeacon/domain';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/errors';
import { DATABASE_RETRY_AFTER_S, DatabaseOutage } from '../db/outage';
import { newestAppliedMigration } from '../db/readiness';
import type { Config } from '../config';
import { HttpError } from '../lib/errors';
import { securityHeaderValues } from './security-headers';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether the database is reachable; logs an outage once when it starts and once when it ends. */
    databaseOutage: DatabaseOutage;
  }
}

/**
 * The one error handler: 4xx → { error, message }; database unreachable → 503 `database_unavailable` with
 * Retry-After (the outage is logged once, not per request); other 5xx → generic body, details only in the log.
 */
export default fp(async (app) => {
  const { database } = app;
  const outage = new DatabaseOutage({
    log: app.log,
    probe: async () => void (await newestAppliedMigration(database, 2000)),
  });
  app.decorate('databaseOutage', outage);
  app.addHook('onClose', async () => outage.close());
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${request.url}.` });
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).send({ error: err.code, message: err.message });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      // Worded by the domain package, which the web forms use too: "Field: rule; Other.field: rule".
      const message = validationMessage(
        err.validation.map((v) => ({
          path: (v.instancePath || '').split('/').filter(Boolean),
          message: String(v.message),
        })),
      );
      return reply.code(400).send({ error: 'validation_error', message });
    }
    if (err.validation) {
      return reply.code(400).send({ error: 'validation_error', message: err.message });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = (err.code ?? 'bad_request').replace(/^FST_ERR_/, '').toLowerCase();
      return reply.code(status).send({ error: code, message: err.message });
    }
    if (isDatabaseUnavailable(err)) {
      outage.failed(err);
      request.log.debug({ err: err.message }, 'database unavailable');
      return reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_S)).send({
        error: 'database_unavailable',
        message: 'The database cannot be reached right now. Try again in a few seconds.',
      });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side.' });
  });
});

/**
 * Answers Fastify gives before any hook runs, in our shape and with the security headers (issue 24.10): a URL that
 * cannot be decoded (`/api/open/races/%E0%A4%A`) is 400 `invalid_url`, a path segment past the router's length
 * 414 `url_too_long`; never Fastify's own body with its internal error code.
 */
export function frameworkErrors(config: Config) {
  const headers = securityHeaderValues(config, config.embeddedIdp ? [] : [new URL(config.issuer).origin]);
  return (err: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers(headers);
    if (err.code === 'FST_ERR_BAD_URL')
      return reply.code(400).send({
        error: 'invalid_url',
        message: 'The URL cannot be decoded: a % must be followed by two hex digits of valid UTF-8.',
      });
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
      return reply.code(414).send({ error: 'url_too_long', message: 'A part of the URL is too long.' });
    reply.log.error({ err }, 'framework error');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side.' });
  };
}

/**
 * Requests Node's HTTP parser refuses (malformed, headers too large, too slow): the answer is written on the socket
 * directly, in our shape and with the security headers, and the connection is closed.
 */
export function clientErrorHandler(config: Config) {
  const headers = securityHeaderValues(config, config.embeddedIdp ? [] : [new URL(config.issuer).origin]);
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, reason, error, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [
              431,
              'Request Header Fields Too Large',
              'headers_too_large',
              'The request headers are too large.',
            ]
          : [400, 'Bad Request', 'bad_request', 'The request could not be read as HTTP/1.1.'];
    const body = JSON.stringify({ error, message });
    if (socket.writable && !(socket as Socket & { _httpMessage?: unknown })._httpMessage) {
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${head}\r\n${body}`,
      );
    }
    socket.destroySoon();
  };
}
