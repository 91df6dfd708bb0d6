import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError } from '../lib/errors';

/** The one error handler: 4xx → { error, message }; 5xx → generic body, details only in the log. */
export default fp(async (app) => {
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${request.url}.` });
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).send({ error: err.code, message: err.message });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const msg = err.validation
        .map((v) => {
          const p = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
          return p ? `${p}: ${v.message}` : String(v.message);
        })
        .join('; ');
      return reply.code(400).send({ error: 'validation_error', message: msg || 'Invalid request.' });
    }
    if (err.validation) {
      return reply.code(400).send({ error: 'validation_error', message: err.message });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = (err.code ?? 'bad_request').replace(/^FST_ERR_/, '').toLowerCase();
      return reply.code(status).send({ error: code, message: err.message });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side.' });
  });
});
