import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as courses from '../services/courses';
import * as races from '../services/races';
import * as runners from '../services/runners';
import { toRace } from '../services/dto';
import { courseSchema, idParams, publicRunnerSchema, raceIdParams, raceSchema } from './schemas';

/** Anonymous reads: approved races only; an unapproved race is a 404 here. */
const openRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['open'];

  app.get(
    '/api/open/races',
    { schema: { tags, summary: 'Approved races', response: { 200: z.array(raceSchema) } } },
    async () => races.listPublicRaces(app.db),
  );

  // Registered as a static path, so find-my-way never takes "not-started" for an id.
  app.get(
    '/api/open/races/not-started',
    { schema: { tags, summary: 'Approved races not yet started', response: { 200: z.array(raceSchema) } } },
    async () => races.listPublicRaces(app.db, { notStartedOnly: true }),
  );

  app.get(
    '/api/open/races/:id',
    { schema: { tags, summary: 'One approved race', params: idParams, response: { 200: raceSchema } } },
    async (request) => toRace(await races.getApprovedRace(app.db, request.params.id)),
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
    async (request) => runners.listPublicRunners(app.db, request.params.raceId),
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
    async (request) => courses.getPublicCourse(app.db, app.config.publicUrl, request.params.raceId),
  );
};

export default openRoutes;
