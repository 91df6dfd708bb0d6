import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../plugins/auth';
import { notifyRaceChanged } from '../services/race-events';
import { getRaceRequest } from '../services/race-requests';
import * as races from '../services/races';
import { courseSchema, raceIdParams, raceSchema } from './schemas';

const raceRequestSchema = raceSchema
  .extend({ RunnerCount: z.number().int(), Course: courseSchema.nullable() })
  .meta({ id: 'RaceRequest' });

/** Race requests: unapproved races waiting for an admin. */
const adminRequestRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['admin'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/admin/requests',
    {
      schema: {
        tags,
        security,
        summary: 'Pending (unapproved) races',
        response: { 200: z.array(raceSchema) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return races.listPendingRaces(app.db);
    },
  );

  app.get(
    '/api/admin/requests/:raceId',
    {
      schema: {
        tags,
        security,
        summary: 'One race request with its runner count and course (keyed map links while unapproved)',
        params: raceIdParams,
        response: { 200: raceRequestSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return getRaceRequest(app.db, app.config.publicUrl, request.params.raceId);
    },
  );

  app.post(
    '/api/admin/requests/approve/:raceId',
    {
      schema: {
        tags,
        security,
        summary: 'Approve a race (approving twice is harmless)',
        params: raceIdParams,
        response: { 200: raceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      const race = await races.approveRace(app.db, request.params.raceId);
      await notifyRaceChanged(app, race.RaceId);
      return race;
    },
  );
};

export default adminRequestRoutes;
