import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { raceIdParams, raceRunnerParams } from '../lib/http-schemas';
import type { ExportFile, RunnerExportService } from './export-service';

/** A file download: its type, an attachment name (ASCII and UTF-8 forms), never cached by a shared cache. */
function sendFile(reply: FastifyReply, file: ExportFile, type: string) {
  return reply
    .type(type)
    .header(
      'content-disposition',
      `attachment; filename="${file.fileName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    )
    .header('cache-control', 'no-cache')
    .send(file.body);
}

const fileResponse = (description: string) => ({ 200: z.string().describe(description) });

/** Runner files: the director's runner list, the public results and a runner's track. */
const runnerExportRoutes: FastifyPluginAsyncZod<{ exports: RunnerExportService }> = async (
  app,
  { exports },
) => {
  app.get(
    '/api/director/runners/:raceId/export.csv',
    {
      schema: {
        tags: ['director'],
        security: [{ bearerAuth: [] }],
        summary:
          'The race’s runners as CSV (the import’s columns, HQ fields included; UTF-8 BOM). Owner or admin',
        produces: ['text/csv'],
        params: raceIdParams,
        response: fileResponse('CSV: BibNumber,FirstName,LastName,Gender,Age,EmergencyContact,Phone'),
      },
    },
    async (request, reply) =>
      sendFile(
        reply,
        await exports.runnersCsv(requireUser(request), request.params.raceId),
        'text/csv; charset=utf-8',
      ),
  );

  app.get(
    '/api/open/races/:raceId/results.csv',
    {
      schema: {
        tags: ['open'],
        summary:
          'Results of an approved race as CSV (rank, bib, names, gender, age, status, finish time, elapsed, distance, checkpoint passing times)',
        produces: ['text/csv'],
        params: raceIdParams,
        response: fileResponse('CSV with a UTF-8 BOM; times ISO 8601 with offset'),
      },
    },
    async (request, reply) =>
      sendFile(reply, await exports.resultsCsv(request.params.raceId), 'text/csv; charset=utf-8'),
  );

  app.get(
    '/api/open/races/:raceId/runners/:runnerId/track.gpx',
    {
      schema: {
        tags: ['open'],
        summary:
          'A runner’s recorded track as GPX 1.1 (one trk, the fixes in time order; as public as the live map)',
        produces: ['application/gpx+xml'],
        params: raceRunnerParams,
        response: fileResponse('GPX 1.1'),
      },
    },
    async (request, reply) => {
      const { raceId, runnerId } = request.params;
      return sendFile(reply, await exports.trackGpx(raceId, runnerId), 'application/gpx+xml; charset=utf-8');
    },
  );
};

export default runnerExportRoutes;
