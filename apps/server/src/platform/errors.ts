import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { validationMessage } from '@racebeacon/domain';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/errors';
import { DATABASE_RETRY_AFTER_S, DatabaseOutage } from '../db/outage';
import { newestAppliedMigration } from '../db/readiness';
import { HttpError } from '../lib/errors';

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
