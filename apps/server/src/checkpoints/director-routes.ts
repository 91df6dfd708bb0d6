import { checkpointCutoffBodySchema, checkpointSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { id, raceIdParams } from '../lib/http-schemas';
import type { CheckpointService } from './service';

const checkpointParams = z.object({ raceId: id, checkpointId: id });

/** Checkpoints of the caller's race (its director or an admin; another director sees 404) and their cutoffs. */
const directorCheckpointRoutes: FastifyPluginAsyncZod<{ checkpoints: CheckpointService }> = async (
  app,
  { checkpoints },
) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/director/races/:raceId/checkpoints',
    {
      schema: {
        tags,
        security,
        summary: 'Checkpoints of one of the caller’s races (approved or not), with their cutoffs',
        params: raceIdParams,
        response: { 200: z.array(checkpointSchema) },
      },
    },
    async (request) => checkpoints.listForDirector(requireUser(request), request.params.raceId),
  );

  app.put(
    '/api/director/races/:raceId/checkpoints/:checkpointId',
    {
      schema: {
        tags,
        security,
        summary: 'Set (ISO date-time) or clear (null) a checkpoint’s cutoff',
        params: checkpointParams,
        body: checkpointCutoffBodySchema,
        response: { 200: checkpointSchema },
      },
    },
    async (request) => {
      const { raceId, checkpointId } = request.params;
      return checkpoints.setCutoff(requireUser(request), raceId, checkpointId, request.body.CutoffTime);
    },
  );
};

export default directorCheckpointRoutes;
