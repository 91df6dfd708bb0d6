import { attachTrackerBodySchema, detachTrackerSchema, runnerTrackerSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { id } from '../lib/http-schemas';
import type { RunnerTrackerService } from './runner-tracker';

/**
 * A runner's own tracker (MapShare, SPOT with its own feed, a phone…) attached from the runner's row by the race's
 * director or an admin (another director: 404), and the pre-race tracker check.
 */
const runnerTrackerRoutes: FastifyPluginAsyncZod<{ trackers: RunnerTrackerService }> = async (
  app,
  { trackers },
) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];
  const params = z.object({ runnerId: id });

  app.get(
    '/api/director/runners/:runnerId/tracker',
    {
      schema: {
        tags,
        security,
        summary: 'Tracker check: the runner’s tracker with its last fix and the fix’s age (null: none)',
        params,
        response: { 200: runnerTrackerSchema.nullable() },
      },
    },
    async (request) => trackers.get(requireUser(request), request.params.runnerId),
  );

  app.post(
    '/api/director/runners/:runnerId/tracker',
    {
      schema: {
        tags,
        security,
        summary:
          'Attach the runner’s own tracker (Source, HardwareId, FeedId?, FeedPassword?): a device for this race only (409 if the runner holds one)',
        params,
        body: attachTrackerBodySchema,
        response: { 201: runnerTrackerSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await trackers.attach(requireUser(request), request.params.runnerId, request.body)),
  );

  app.delete(
    '/api/director/runners/:runnerId/tracker',
    {
      schema: {
        tags,
        security,
        summary: 'Detach the runner’s tracker (an own tracker without fixes is deleted; fixes are kept)',
        params,
        response: { 200: detachTrackerSchema },
      },
    },
    async (request) => trackers.detach(requireUser(request), request.params.runnerId),
  );
};

export default runnerTrackerRoutes;
