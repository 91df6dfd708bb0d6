import type { CoursePoint } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { courseSchema, raceIdParams } from '../lib/http-schemas';
import { langQueryField, pickLanguage } from '../lib/language';
import { renderCourseMapHtml } from './map-page';
import { COURSE_MAP_TEXTS } from './map-texts';
import { courseGeoJson, courseGpx, type CourseService } from './service';
import { COURSE_MAP_CSP } from '../platform/security-headers';

const keyQuery = z.object({
  key: z.string().max(100).optional().describe('Link key, needed only while the race is unapproved'),
});
const mapQuery = keyQuery.extend({
  lang: langQueryField,
});

/**
 * Anonymous reads of a course: the Course of an approved race, and what Course.MapUrl / GeoJsonUrl / GpxUrl point
 * at. The links are public for approved races; for unapproved ones they work only with the link key the director
 * endpoints hand out (see links.ts).
 */
const openCourseRoutes: FastifyPluginAsyncZod<{ courses: CourseService }> = async (app, { courses }) => {
  const tags = ['open'];

  app.get(
    '/api/open/course/:raceId',
    {
      schema: {
        tags,
        summary: 'Course of an approved race (204 No Content while it has none; 404: no such public race)',
        params: raceIdParams,
        response: { 200: courseSchema, 204: z.null().describe('No course uploaded yet') },
      },
    },
    async (request, reply) => {
      const course = await courses.getPublicCourse(request.params.raceId);
      return course ?? reply.code(204).send(null);
    },
  );

  app.get(
    '/courses/:raceId/map',
    {
      schema: {
        tags,
        summary: 'The course drawn on a self-contained HTML page (inline SVG, no tiles or scripts)',
        params: raceIdParams,
        querystring: mapQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const { raceId } = request.params;
      const row = await courses.getCourseForLink(raceId, request.query.key);
      const q = request.query.key ? `?key=${encodeURIComponent(request.query.key)}` : '';
      const { language, locale } = pickLanguage(request.query.lang, request.headers['accept-language']);
      const html = renderCourseMapHtml({
        productName: app.config.PRODUCT_NAME,
        title: row.name ?? COURSE_MAP_TEXTS[language].courseOf(raceId),
        lengthM: row.lengthM,
        climbM: row.climbM,
        descentM: row.descentM,
        hasElevation: row.hasElevation,
        points: row.geometry.points as CoursePoint[],
        waypoints: row.geometry.waypoints,
        gpxUrl: `${app.config.publicUrl}/api/open/course/${raceId}/course.gpx${q}`,
        geoJsonUrl: `${app.config.publicUrl}/api/open/course/${raceId}/course.geojson${q}`,
        language,
        locale,
      });
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', COURSE_MAP_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-cache')
        .header('vary', 'Accept-Language')
        .send(html);
    },
  );

  app.get(
    '/api/open/course/:raceId/course.geojson',
    {
      schema: {
        tags,
        summary: 'Course as GeoJSON (LineString with elevations, waypoints as Points)',
        params: raceIdParams,
        querystring: keyQuery,
        produces: ['application/geo+json'],
      },
    },
    async (request, reply) => {
      const row = await courses.getCourseForLink(request.params.raceId, request.query.key);
      return reply
        .type('application/geo+json')
        .header('content-disposition', `inline; filename="race-${row.raceId}-course.geojson"`)
        .header('cache-control', 'no-cache')
        .send(JSON.stringify(courseGeoJson(row)));
    },
  );

  app.get(
    '/api/open/course/:raceId/course.gpx',
    {
      schema: {
        tags,
        summary: 'Course as GPX 1.1 (regenerated from the stored geometry)',
        params: raceIdParams,
        querystring: keyQuery,
        produces: ['application/gpx+xml'],
      },
    },
    async (request, reply) => {
      const row = await courses.getCourseForLink(request.params.raceId, request.query.key);
      return reply
        .type('application/gpx+xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="race-${row.raceId}-course.gpx"`)
        .header('cache-control', 'no-cache')
        .send(courseGpx(row, app.config.PRODUCT_NAME));
    },
  );
};

export default openCourseRoutes;
