import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CourseService } from '../services/courses';
import type { RaceService } from '../services/races';
import type { RunnerService } from '../services/runners';
import { courseSchema, idParams, publicRunnerSchema, raceIdParams, raceSchema } from './schemas';

/** Anonymous reads: approved races only; an unapproved race is a 404 here. */
const openRoutes: FastifyPluginAsyncZod<{
  races: RaceService;
  runners: RunnerService;
  courses: CourseService;
}> = async (app, { races, runners, courses }) => {
  const tags = ['open'];

  app.get(
    '/api/open/races',
    { schema: { tags, summary: 'Approved races', response: { 200: z.array(raceSchema) } } },
    async () => races.listPublicRaces(),
  );

  // Registered as a static path, so find-my-way never takes "not-started" for an id.
  app.get(
    '/api/open/races/not-started',
    { schema: { tags, summary: 'Approved races not yet started', response: { 200: z.array(raceSchema) } } },
    async () => races.listPublicRaces({ notStartedOnly: true }),
  );

  app.get(
    '/api/open/races/:id',
    { schema: { tags, summary: 'One approved race', params: idParams, response: { 200: raceSchema } } },
    async (request) => races.getPublicRace(request.params.id),
  );

  app.get(
    '/api/open/runners/:raceId',
    {
      schema: {
        tags,
        summary: 'Runners of an approved race (no device details)',
        params: raceIdParams,
        response: { 200: z.array(publicRunnerSchema) },
      },
    },
    async (request) => runners.listPublicRunners(request.params.raceId),
  );

  app.get(
    '/api/open/course/:raceId',
    {
      schema: {
        tags,
        summary: 'Course of an approved race (404 when none)',
        params: raceIdParams,
        response: { 200: courseSchema },
      },
    },
    async (request) => courses.getPublicCourse(request.params.raceId),
  );
};

export default openRoutes;
