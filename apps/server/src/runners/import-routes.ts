import multipart from '@fastify/multipart';
import { MAX_RUNNER_CSV_BYTES } from '@racebeacon/domain';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../identity/auth-plugin';
import { badRequest, HttpError } from '../lib/errors';
import { raceIdParams } from '../lib/http-schemas';
import { assertNoNul } from '../platform/input-guard';
import { ImportRefused, type RunnerImportService } from './import-service';

/** The largest CSV file an import reads: the domain's limit, shared with the web app's check before sending. */
export const MAX_CSV_BYTES = MAX_RUNNER_CSV_BYTES;
const MAX_UPLOAD_BYTES = MAX_CSV_BYTES + 64 * 1024;

const lineErrorSchema = z.object({ Line: z.number().int(), Message: z.string() });

const importResultSchema = z
  .object({
    Created: z.number().int(),
    Updated: z.number().int(),
    Unchanged: z.number().int(),
    Errors: z.array(lineErrorSchema),
    DryRun: z.boolean(),
    Rows: z.array(
      z.object({
        Line: z.number().int(),
        Action: z.enum(['create', 'update', 'unchanged']),
        BibNumber: z.string(),
        FirstName: z.string(),
        LastName: z.string(),
      }),
    ),
  })
  .meta({ id: 'RunnerImportResult' });

const importRefusedSchema = z.object({
  error: z.string(),
  message: z.string(),
  Errors: z.array(lineErrorSchema),
});

const flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const importQuery = z.object({
  dryRun: flag.describe('true: answer what would happen and write nothing'),
  skipInvalid: flag.describe('true: import the valid rows and list the others in Errors'),
});

/** UTF-8 text, or a 400 that says how to save the file (a spreadsheet's "CSV UTF-8"). */
function decodeUtf8(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    throw badRequest('The file is not UTF-8 text; save it as "CSV UTF-8" and try again.', 'invalid_encoding');
  }
}

/** The CSV of a multipart upload (field "file"), read with the same checks as the course upload. */
async function readMultipartCsv(request: FastifyRequest): Promise<Buffer> {
  let file: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      assertNoNul(part.fieldname, 'A multipart field name');
      if (part.type === 'file') {
        assertNoNul(part.filename ?? '', 'The file name');
        const data = await part.toBuffer();
        if (part.fieldname === 'file' && !file) file = data;
      } else if (typeof part.value === 'string') {
        assertNoNul(part.value, part.fieldname);
      }
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (err instanceof HttpError) throw err;
    throw badRequest(`The upload could not be read: ${(err as Error).message}`);
  }
  if (!file) throw badRequest('Please select a CSV file first (multipart field "file").', 'file_missing');
  return file;
}

const tooLarge = () =>
  new HttpError(413, 'file_too_large', `The file is larger than ${MAX_CSV_BYTES / 1024 / 1024} MB.`);

/** POST /api/director/runners/{raceId}/import: a CSV body (text/csv) or a multipart upload (field "file"). */
const runnerImportRoutes: FastifyPluginAsyncZod<{ imports: RunnerImportService }> = async (
  app,
  { imports },
) => {
  // Encapsulated: these parsers exist only for the import route.
  await app.register(multipart, { limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 10, parts: 20 } });
  for (const type of ['text/csv', 'text/plain', 'application/csv', 'application/vnd.ms-excel']) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: MAX_CSV_BYTES }, (_request, body, done) =>
      done(null, body),
    );
  }

  app.post(
    '/api/director/runners/:raceId/import',
    {
      schema: {
        tags: ['director'],
        security: [{ bearerAuth: [] }],
        summary:
          'Import runners from a CSV file (text/csv body, or multipart field "file"); a bib already in the race is updated',
        description:
          'Columns by header name (BibNumber/bib/dossard, FirstName/first name, LastName/last name/surname, ' +
          'Gender/sex, Age, optional EmergencyContact and Phone), comma or semicolon separated, UTF-8 with or ' +
          `without BOM, at most ${MAX_CSV_BYTES / 1024 / 1024} MB. Any error writes nothing (400 naming the first ` +
          'line, every error in Errors) unless skipInvalid=true. One transaction. Owner or admin.',
        consumes: ['text/csv', 'multipart/form-data'],
        params: raceIdParams,
        querystring: importQuery,
        response: {
          200: importResultSchema,
          400: importRefusedSchema.or(z.object({ error: z.string(), message: z.string() })),
        },
      },
      config: { maxUploadBytes: MAX_UPLOAD_BYTES },
    },
    async (request, reply) => {
      const user = requireUser(request);
      let data: Buffer;
      if (request.isMultipart()) data = await readMultipartCsv(request);
      else if (Buffer.isBuffer(request.body)) data = request.body;
      else {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'Send the CSV as a text/csv body, or as multipart/form-data in a field named "file".',
        );
      }
      const text = decodeUtf8(data);
      assertNoNul(text, 'The file');
      try {
        return await imports.importCsv(user, request.params.raceId, text, request.query);
      } catch (err) {
        if (!(err instanceof ImportRefused)) throw err;
        return reply.code(400).send({ error: err.code, message: err.message, Errors: err.errors });
      }
    },
  );
};

export default runnerImportRoutes;
