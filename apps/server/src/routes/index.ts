import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../lib/errors';
import adminDeviceRoutes from './admin-devices';
import adminRequestRoutes from './admin-requests';
import courseFileRoutes from './course-files';
import directorCourseRoutes from './director-course';
import directorDeviceRoutes from './director-devices';
import directorRaceRoutes from './director-races';
import directorRunnerRoutes from './director-runners';
import openRoutes from './open';

/** The REST API of spec section 7 (+ course map/download links and device admin extras). */
const apiRoutes: FastifyPluginAsync = async (app) => {
  // Action calls (PUT …/start/{id}, assign, unassign) carry no body, but clients often still send
  // Content-Type: application/json; Fastify's default parser refuses such an empty body. Here an empty JSON body
  // is "no body"; anything else must be valid JSON (400 otherwise). Scoped to these routes only.
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

  await app.register(openRoutes);
  await app.register(courseFileRoutes);
  await app.register(directorRaceRoutes);
  await app.register(directorRunnerRoutes);
  await app.register(directorCourseRoutes);
  await app.register(directorDeviceRoutes);
  await app.register(adminDeviceRoutes);
  await app.register(adminRequestRoutes);
};

export default apiRoutes;
