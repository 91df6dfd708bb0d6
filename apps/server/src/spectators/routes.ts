import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { races } from '../db/schema';
import { notFound } from '../lib/errors';
import { raceIdParams } from '../lib/http-schemas';
import { courseTrack } from '../live/course-track';
import { DATABASE_RETRY_AFTER_S } from '../db/outage';
import { isDatabaseUnavailable } from '../db/errors';
import { langQueryField, pickLanguage } from '../lib/language';
import { renderTextNotFound, renderTextPage, renderTextUnavailable, TEXT_PAGE_ROWS } from './text-page';

const textQuery = z.object({
  q: z.string().trim().max(100).optional().describe('Bib or name to look for'),
  lang: langQueryField,
});

/** The page's language and locale: `?lang=`, else Accept-Language, else English. */
function languageOf(request: { query: unknown; headers: { 'accept-language'?: string } }) {
  const lang = (request.query as { lang?: unknown } | undefined)?.lang;
  return pickLanguage(typeof lang === 'string' ? lang : undefined, request.headers['accept-language']);
}

/**
 * Spectator pages rendered by the server: the text view of a race (`/race/{raceId}/text`). The embeddable views
 * (`/embed/race/{raceId}`) are web app routes, served with their own frame-ancestors by platform/web-app.ts.
 */
const spectatorRoutes: FastifyPluginAsyncZod = async (app) => {
  // The database away: a browser gets a readable 503 page that reloads itself; an API client (and every other
  // error) goes on to the app's error handler ({error, message}, 503 with Retry-After).
  app.setErrorHandler((err, request, reply) => {
    const raceId = (request.params as { raceId?: unknown } | undefined)?.raceId;
    if (!isDatabaseUnavailable(err) || !/text\/html/i.test(request.headers.accept ?? '')) throw err;
    app.databaseOutage.failed(err);
    const { language } = languageOf(request);
    return reply
      .code(503)
      .header('vary', 'Accept-Language')
      .header('retry-after', String(DATABASE_RETRY_AFTER_S))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(renderTextUnavailable(app.config.PRODUCT_NAME, Number(raceId), DATABASE_RETRY_AFTER_S, language));
  });

  app.get(
    '/race/:raceId/text',
    {
      schema: {
        tags: ['live'],
        summary: 'Text-only live results of a public race (HTML, no script): top 100 or a bib/name search',
        params: raceIdParams,
        querystring: textQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const { raceId } = request.params;
      const search = request.query.q ?? '';
      const { language, locale } = languageOf(request);
      reply.header('vary', 'Accept-Language');
      const [race] = await app.db
        .select({ name: races.name, approved: races.approved })
        .from(races)
        .where(eq(races.id, raceId));
      if (!race || !race.approved) {
        // A browser gets a page; an API client the usual {error, message}.
        if (!/text\/html/i.test(request.headers.accept ?? '')) {
          throw notFound(`Race ${raceId} was not found or is not public.`, 'race_not_found');
        }
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(renderTextNotFound(app.config.PRODUCT_NAME, raceId, language));
      }
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache');
      const [rows, course] = await Promise.all([
        // As the public sees it (privacy of runners: the public delay; the text view has no positions).
        app.publicView.leaderboard(raceId, search ? { search } : {}),
        app.live.course(raceId),
      ]);
      return renderTextPage({
        productName: app.config.PRODUCT_NAME,
        raceId,
        raceName: race.name,
        rows: rows.slice(0, TEXT_PAGE_ROWS),
        total: rows.length,
        search,
        waypoints: courseTrack(course).Waypoints,
        racePageUrl: `/race/${raceId}`,
        now: new Date(),
        language,
        locale,
      });
    },
  );
};

export default spectatorRoutes;
