import { raceRequestSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { raceIdParams, raceSchema } from '../lib/http-schemas';
import { requireAdmin } from '../identity/auth-plugin';
import type { RaceRequestService } from './request-service';

/** Race requests: unapproved races waiting for an admin. */
const adminRequestRoutes: FastifyPluginAsyncZod<{ requests: RaceRequestService }> = async (
  app,
  { requests },
) => {
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
      return requests.listPendingRaces();
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
      return requests.getRaceRequest(request.params.raceId);
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
      return requests.approveRace(request.params.raceId);
    },
  );
};

export default adminRequestRoutes;
