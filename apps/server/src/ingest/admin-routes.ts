import { spotFeedBodySchema, spotFeedSchema, type SpotFeed } from '@racebeacon/domain';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireAdmin } from '../identity/auth-plugin';
import { conflict, notFound } from '../lib/errors';
import { idParams } from '../lib/http-schemas';
import { deleteSpotFeed, insertSpotFeed, listSpotFeeds, type SpotFeedRow } from './spot-feed-repository';
import { SPOT_POLL_JOB } from '../jobs/spot-poll-job';

const security = [{ bearerAuth: [] }];

/** The password is write-only: it is needed to poll, never shown again. */
const toDto = (f: SpotFeedRow): SpotFeed => ({
  Id: f.id,
  FeedId: f.feedId,
  HasPassword: !!f.feedPassword,
  LastPolledAt: f.lastPolledAt,
  LastError: f.lastError,
  CreatedAt: f.createdAt,
});

/** Admin registration of SPOT shared-page feeds (the SPOT poll job reads them). */
export default async function adminRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/admin/spot-feeds',
    {
      schema: {
        tags: ['admin'],
        security,
        summary: 'SPOT shared-page feeds the poller reads',
        response: { 200: z.array(spotFeedSchema) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return (await listSpotFeeds(app.db)).map(toDto);
    },
  );

  r.post(
    '/api/admin/spot-feeds',
    {
      schema: {
        tags: ['admin'],
        security,
        summary:
          'Register a SPOT feed (FeedId, optional FeedPassword); polled within seconds if a race needs it',
        body: spotFeedBodySchema,
        response: { 201: spotFeedSchema },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const { FeedId, FeedPassword } = request.body;
      const row = await insertSpotFeed(app.db, FeedId, FeedPassword ? FeedPassword : null);
      if (!row) throw conflict('This SPOT feed is already registered.');
      // Polled at once by this process if it runs the job; otherwise at the running process's next turn.
      app.jobs.wake(SPOT_POLL_JOB);
      return reply.code(201).send(toDto(row));
    },
  );

  r.delete(
    '/api/admin/spot-feeds/:id',
    {
      schema: {
        tags: ['admin'],
        security,
        summary: 'Remove a SPOT feed',
        params: idParams,
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      if (!(await deleteSpotFeed(app.db, request.params.id))) throw notFound('No SPOT feed has this id.');
      return reply.code(204).send();
    },
  );
}
