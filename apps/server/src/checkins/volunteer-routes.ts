import { checkinAnswerSchema, checkinBodySchema, checkinPageSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CheckinService } from './service';

/** The token's format is checked by the service, so a malformed one is a 401 like a revoked one. */
const tokenParams = z.object({ token: z.string().max(200) });

/** The volunteer's page at an aid station: no account, the link's secret token is the credential. */
const volunteerCheckinRoutes: FastifyPluginAsyncZod<{ checkins: CheckinService }> = async (
  app,
  { checkins },
) => {
  const tags = ['check-in'];

  app.get(
    '/api/checkin/:token',
    {
      schema: {
        tags,
        summary:
          'What the volunteer page shows: race, checkpoint, runners by bib (401: revoked or unknown link)',
        params: tokenParams,
        response: { 200: checkinPageSchema },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return checkins.page(request.params.token);
    },
  );

  app.post(
    '/api/checkin/:token',
    {
      schema: {
        tags,
        summary:
          'Record an entry (in, out, dnf) at the link’s checkpoint. Idempotent by EntryId: a repeat gets the ' +
          'first answer. 404: unknown bib; 401: revoked link; 409: EntryId used for another entry',
        params: tokenParams,
        body: checkinBodySchema,
        response: { 201: checkinAnswerSchema },
      },
    },
    async (request, reply) => {
      const { answer } = await checkins.checkin(request.params.token, request.body);
      return reply.code(201).send(answer);
    },
  );
};

export default volunteerCheckinRoutes;
