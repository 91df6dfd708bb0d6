import multipart from '@fastify/multipart';
import { MAX_GPX_BYTES } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { badRequest, HttpError } from '../lib/errors';
import { courseSchema, deletedSchema, raceCourseParams, raceIdParams } from '../lib/http-schemas';
import { assertNoNul } from '../platform/input-guard';
import { requireUser } from '../identity/auth-plugin';
import type { RaceService } from '../races/service';
import type { CourseService } from './service';

/** The GPX file's limit is the domain's, shared with the web app's check before sending. */
export { MAX_GPX_BYTES };
/** The whole multipart request: the file plus room for its part headers and boundaries. */
export const MAX_UPLOAD_BYTES = MAX_GPX_BYTES + 64 * 1024;

/** Course of the caller's race: read, upload (multipart field "file"), delete. */
const directorCourseRoutes: FastifyPluginAsyncZod<{ courses: CourseService; races: RaceService }> = async (
  app,
  { courses, races },
) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];
  // Encapsulated: multipart parsing exists only for the routes of this plugin.
  await app.register(multipart, { limits: { fileSize: MAX_GPX_BYTES, files: 1, fields: 10, parts: 20 } });

  app.get(
    '/api/director/course/:raceId',
    {
      schema: {
        tags,
        security,
        summary:
          'Course of one of the caller’s races (links work even before approval); 204 No Content while it has none',
        params: raceIdParams,
        response: { 200: courseSchema, 204: z.null().describe('No course uploaded yet') },
      },
    },
    async (request, reply) => {
      const course = await courses.getDirectorCourse(requireUser(request).id, request.params.raceId);
      return course ?? reply.code(204).send(null);
    },
  );

  app.post(
    '/api/director/course/:raceId',
    {
      schema: {
        tags,
        security,
        summary: 'Upload a GPX 1.0/1.1 file (multipart field "file", at most 20 MB); replaces the course',
        consumes: ['multipart/form-data'],
        params: raceIdParams,
        response: { 201: courseSchema },
      },
      // A Content-Length above this is a 413 before the body is read (platform/input-guard.ts).
      config: { maxUploadBytes: MAX_UPLOAD_BYTES },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const { raceId } = request.params;
      await races.getOwnedRace(user.id, raceId);
      if (!request.isMultipart()) {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'Send the GPX file as multipart/form-data in a field named "file".',
        );
      }
      let file: { data: Buffer; fileName: string | null } | null = null;
      try {
        for await (const part of request.parts()) {
          assertNoNul(part.fieldname, 'A multipart field name');
          if (part.type === 'file') {
            assertNoNul(part.filename ?? '', 'The file name');
            const data = await part.toBuffer();
            if (part.fieldname === 'file' && !file) file = { data, fileName: part.filename || null };
          } else if (typeof part.value === 'string') {
            assertNoNul(part.value, part.fieldname);
          }
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new HttpError(
            413,
            'file_too_large',
            `The file is larger than ${MAX_GPX_BYTES / 1024 / 1024} MB.`,
          );
        }
        if (err instanceof HttpError) throw err;
        // Everything else here comes from reading the request (multipart parser, truncated or malformed body).
        throw badRequest(`The upload could not be read: ${(err as Error).message}`);
      }
      if (!file) throw badRequest('Please select a GPX file first (multipart field "file").', 'file_missing');
      return reply.code(201).send(await courses.uploadCourse(user.id, raceId, file));
    },
  );

  app.delete(
    '/api/director/course/:raceId/:courseId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete the course',
        params: raceCourseParams,
        response: { 200: deletedSchema.extend({ CourseId: z.number().int() }) },
      },
    },
    async (request) => {
      const { raceId, courseId } = request.params;
      await courses.deleteCourse(requireUser(request).id, raceId, courseId);
      return { Deleted: true as const, CourseId: courseId };
    },
  );
};

export default directorCourseRoutes;
