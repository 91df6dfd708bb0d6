import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../plugins/auth';
import { notifyRaceChanged } from '../services/race-events';
import * as races from '../services/races';
import { raceIdParams, raceSchema } from './schemas';

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
