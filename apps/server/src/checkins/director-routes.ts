import { checkinLinkBodySchema, checkinLinkSchema, createdCheckinLinkSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { id, raceIdParams } from '../lib/http-schemas';
import type { CheckinService } from './service';

/** The director's (or an admin's) check-in links of a race: create one per checkpoint, list, revoke. */
const directorCheckinRoutes: FastifyPluginAsyncZod<{ checkins: CheckinService }> = async (
  app,
  { checkins },
) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.post(
    '/api/director/races/:raceId/checkpoints/:checkpointId/checkin-links',
    {
      schema: {
        tags,
        security,
        summary:
          'Create a check-in link for a checkpoint: Url is the volunteer page /checkin/{token}, shown only now',
        params: z.object({ raceId: id, checkpointId: id }),
        body: checkinLinkBodySchema.nullish(),
        response: { 201: createdCheckinLinkSchema },
      },
    },
    async (request, reply) => {
      const { raceId, checkpointId } = request.params;
      const link = await checkins.createLink(
        requireUser(request),
        raceId,
        checkpointId,
        request.body?.Label ?? null,
      );
      return reply.code(201).send(link);
    },
  );

  app.get(
    '/api/director/races/:raceId/checkin-links',
    {
      schema: {
        tags,
        security,
        summary: 'Check-in links of a race (without their tokens), revoked ones included',
        params: raceIdParams,
        response: { 200: z.array(checkinLinkSchema) },
      },
    },
    async (request) => checkins.listLinks(requireUser(request), request.params.raceId),
  );

  app.delete(
    '/api/director/races/:raceId/checkin-links/:linkId',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a check-in link: its page and posts answer 401 from now on',
        params: z.object({ raceId: id, linkId: id }),
        response: { 200: checkinLinkSchema },
      },
    },
    async (request) => {
      const { raceId, linkId } = request.params;
      return checkins.revokeLink(requireUser(request), raceId, linkId);
    },
  );
};

export default directorCheckinRoutes;
