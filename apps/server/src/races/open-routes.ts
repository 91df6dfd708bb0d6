import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParams, raceSchema } from '../lib/http-schemas';
import type { RaceService } from './service';

/** Anonymous reads: approved races only; an unapproved race is a 404 here. */
const openRaceRoutes: FastifyPluginAsyncZod<{ races: RaceService }> = async (app, { races }) => {
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
};

export default openRaceRoutes;
