import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicRunnerSchema, raceIdParams } from '../lib/http-schemas';
import type { RunnerService } from './service';

/** Anonymous reads: the runners of an approved race, without device details. */
const openRunnerRoutes: FastifyPluginAsyncZod<{ runners: RunnerService }> = async (app, { runners }) => {
  app.get(
    '/api/open/runners/:raceId',
    {
      schema: {
        tags: ['open'],
        summary: 'Runners of an approved race (no device details)',
        params: raceIdParams,
        response: { 200: z.array(publicRunnerSchema) },
      },
    },
    async (request) => runners.listPublicRunners(request.params.raceId),
  );
};

export default openRunnerRoutes;
