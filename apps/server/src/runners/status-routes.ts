import {
  runnerStatusBodySchema,
  runnerStatusInfoSchema,
  runnerStatusLogEntrySchema,
} from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { id, raceIdParams } from '../lib/http-schemas';
import type { RunnerStatusService } from './status';

/** DNS / DNF / DSQ set by the race's director or an admin (another director sees 404), and the status log. */
const runnerStatusRoutes: FastifyPluginAsyncZod<{ statuses: RunnerStatusService }> = async (
  app,
  { statuses },
) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.put(
    '/api/director/runners/:runnerId/status',
    {
      schema: {
        tags,
        security,
        summary:
          'Set a runner’s status DNS, DNF (keeps the distance reached) or DSQ with a reason, or clear it (Status null)',
        params: z.object({ runnerId: id }),
        body: runnerStatusBodySchema,
        response: { 200: runnerStatusInfoSchema },
      },
    },
    async (request) => statuses.setStatus(requireUser(request), request.params.runnerId, request.body),
  );

  app.get(
    '/api/director/runners/:raceId/status-log',
    {
      schema: {
        tags,
        security,
        summary: 'Every change of the race’s runners’ statuses (who, when, reason), oldest first',
        params: raceIdParams,
        response: { 200: z.array(runnerStatusLogEntrySchema) },
      },
    },
    async (request) => statuses.statusLog(requireUser(request), request.params.raceId),
  );
};

export default runnerStatusRoutes;
