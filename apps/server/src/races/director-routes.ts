import { raceBodySchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deletedSchema, idParams, raceSchema } from '../lib/http-schemas';
import { requireUser } from '../identity/auth-plugin';
import type { RaceService } from './service';

/** The caller's own races. Approved/HasStarted/HasFinished/DirectorId in a body are ignored (not in the schema). */
const directorRaceRoutes: FastifyPluginAsyncZod<{ races: RaceService }> = async (app, { races }) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/director/races',
    { schema: { tags, security, summary: "The caller's races", response: { 200: z.array(raceSchema) } } },
    async (request) => races.listDirectorRaces(requireUser(request).id),
  );

  app.get(
    '/api/director/races/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One of the caller’s races',
        params: idParams,
        response: { 200: raceSchema },
      },
    },
    async (request) => races.getDirectorRace(requireUser(request).id, request.params.id),
  );

  app.post(
    '/api/director/races',
    {
      schema: {
        tags,
        security,
        summary: 'Create a race (unapproved, owned by the caller)',
        body: raceBodySchema,
        response: { 201: raceSchema },
      },
    },
    async (request, reply) => {
      const race = await races.createRace(requireUser(request).id, request.body);
      return reply.code(201).send(race);
    },
  );

  app.put(
    '/api/director/races/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Update a race (full body)',
        params: idParams,
        body: raceBodySchema,
        response: { 200: raceSchema },
      },
    },
    async (request) => {
      return races.updateRace(requireUser(request).id, request.params.id, request.body);
    },
  );

  app.delete(
    '/api/director/races/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a race: frees its devices, removes its runners and course',
        params: idParams,
        response: { 200: deletedSchema.extend({ RaceId: z.number().int() }) },
      },
    },
    async (request) => {
      await races.deleteRace(requireUser(request).id, request.params.id);
      return { Deleted: true as const, RaceId: request.params.id };
    },
  );

  app.put(
    '/api/director/races/start/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Start an approved race (409 if not approved or already started)',
        params: idParams,
        response: { 200: raceSchema },
      },
    },
    async (request) => {
      return races.startRace(requireUser(request).id, request.params.id);
    },
  );

  app.put(
    '/api/director/races/end/:id',
    {
      schema: {
        tags,
        security,
        summary: 'End a started race (409 if not started or already ended)',
        params: idParams,
        response: { 200: raceSchema },
      },
    },
    async (request) => {
      return races.endRace(requireUser(request).id, request.params.id);
    },
  );
};

export default directorRaceRoutes;
