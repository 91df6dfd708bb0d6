import type { FastifyInstance } from 'fastify';
import { HttpError } from '../lib/errors';

/**
 * Replaces the JSON body parser of `app` (and only of the routes registered in its scope): an empty body is "no
 * body", anything else must be valid JSON (400 `invalid_json` otherwise). Action calls (PUT …/start/{id}, assign,
 * unassign) carry no body, but clients often still send Content-Type: application/json, which Fastify's default
 * parser refuses when the body is empty.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      // Like Fastify's own parser, never let a body carry __proto__ (prototype poisoning downstream).
      done(
        null,
        JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value)),
      );
    } catch {
      done(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });
}
