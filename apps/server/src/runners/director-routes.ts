import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deletedSchema, raceIdParams, raceRunnerParams } from '../lib/http-schemas';
import { requireUser } from '../identity/auth-plugin';
import { directorRunnerBodySchema, directorRunnerSchema } from './hq-fields';
import type { RunnerService } from './service';

/** Runners of the caller's races (approved or not), with the device each holds. */
const directorRunnerRoutes: FastifyPluginAsyncZod<{ runners: RunnerService }> = async (app, { runners }) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/director/runners/:raceId',
    {
      schema: {
        tags,
        security,
        summary:
          'Runners of one of the caller’s races, with DeviceId and the HQ fields (EmergencyContact, Phone)',
        params: raceIdParams,
        response: { 200: z.array(directorRunnerSchema) },
      },
    },
    async (request) => runners.listDirectorRunners(requireUser(request).id, request.params.raceId),
  );

  app.post(
    '/api/director/runners/:raceId',
    {
      schema: {
        tags,
        security,
        summary: 'Add a runner (BibNumber unique within the race, 409 otherwise)',
        params: raceIdParams,
        body: directorRunnerBodySchema,
        response: { 201: directorRunnerSchema },
      },
    },
    async (request, reply) => {
      const { raceId } = request.params;
      const runner = await runners.createRunner(requireUser(request).id, raceId, request.body);
      return reply.code(201).send(runner);
    },
  );

  app.put(
    '/api/director/runners/:raceId/:runnerId',
    {
      schema: {
        tags,
        security,
        summary: 'Update a runner (body is the runner object; RunnerId/RaceId/DeviceId are ignored)',
        params: raceRunnerParams,
        body: directorRunnerBodySchema,
        response: { 200: directorRunnerSchema },
      },
    },
    async (request) => {
      const { raceId, runnerId } = request.params;
      return runners.updateRunner(requireUser(request).id, raceId, runnerId, request.body);
    },
  );

  app.delete(
    '/api/director/runners/:raceId/:runnerId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a runner (frees the device they held)',
        params: raceRunnerParams,
        response: { 200: deletedSchema.extend({ RunnerId: z.number().int() }) },
      },
    },
    async (request) => {
      const { raceId, runnerId } = request.params;
      await runners.deleteRunner(requireUser(request).id, raceId, runnerId);
      return { Deleted: true as const, RunnerId: runnerId };
    },
  );
};

export default directorRunnerRoutes;
