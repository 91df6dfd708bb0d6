import { checkpointSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { raceIdParams } from '../lib/http-schemas';
import type { CheckpointService } from './service';

/** A public race's checkpoints with their cutoffs. */
const openCheckpointRoutes: FastifyPluginAsyncZod<{ checkpoints: CheckpointService }> = async (
  app,
  { checkpoints },
) => {
  app.get(
    '/api/open/races/:raceId/checkpoints',
    {
      schema: {
        tags: ['open'],
        summary: 'Checkpoints of a race (start, the course’s named waypoints, finish) with their cutoffs',
        params: raceIdParams,
        response: { 200: z.array(checkpointSchema) },
      },
    },
    async (request) => checkpoints.listPublic(request.params.raceId),
  );
};

export default openCheckpointRoutes;
