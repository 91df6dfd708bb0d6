import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../lib/errors';
import { noRaceEvents, type RaceEvents } from '../lib/race-events';
import { CourseService } from '../services/courses';
import { DeviceService } from '../services/devices';
import { RaceRequestService } from '../services/race-requests';
import { RaceService } from '../services/races';
import { RunnerService } from '../services/runners';
import adminDeviceRoutes from './admin-devices';
import adminRequestRoutes from './admin-requests';
import courseFileRoutes from './course-files';
import directorCourseRoutes from './director-course';
import directorDeviceRoutes from './director-devices';
import directorRaceRoutes from './director-races';
import directorRunnerRoutes from './director-runners';
import openRoutes from './open';

export interface ApiRoutesOptions {
  /** Where the services announce race changes; without it (an app without an event bus) nothing is announced. */
  raceEvents?: RaceEvents;
}

/**
 * The REST API: public reads, the director's races, runners, courses and device hand-overs, the admin's device
 * inventory and race requests, and the course map/download links. Builds the services with their dependencies and
 * hands each route plugin the services it calls.
 */
const apiRoutes: FastifyPluginAsync<ApiRoutesOptions> = async (app, opts) => {
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

  const events = opts.raceEvents ?? noRaceEvents;
  const races = new RaceService(app.db, events);
  const runners = new RunnerService(app.db, events, races);
  const courses = new CourseService(app.db, events, races, app.config.publicUrl);
  const devices = new DeviceService(app.db, events, races);
  const requests = new RaceRequestService(app.db, events, courses);

  await app.register(openRoutes, { races, runners, courses });
  await app.register(courseFileRoutes, { courses });
  await app.register(directorRaceRoutes, { races });
  await app.register(directorRunnerRoutes, { runners });
  await app.register(directorCourseRoutes, { courses, races });
  await app.register(directorDeviceRoutes, { devices });
  await app.register(adminDeviceRoutes, { devices });
  await app.register(adminRequestRoutes, { requests });
};

export default apiRoutes;
