import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AGE_GROUPS,
  COMPACT_STREAM_VERSION,
  genderSchema,
  parseAgeGroup,
  runnerSplitsSchema,
} from '@racebeacon/domain';
import { closeRefusedStream } from '../lib/close-refused';
import { courseTrack } from './course-track';
import { gzipEventStream } from './sse-compression';
import { sendStreamRefusal, StreamLimitError } from './stream-admission';
import { STREAM_TICKET_MAX_LENGTH, streamReadsLive } from './stream-ticket';

const params = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

const leaderboardQuery = z.object({
  gender: genderSchema.optional(),
  ageGroup: z
    .string()
    .refine((g) => parseAgeGroup(g) !== null, {
      message: `must be an age group such as ${AGE_GROUPS.join(', ')}`,
    })
    .optional(),
  search: z.string().trim().max(100).optional(),
});

const streamQuery = z.object({
  /** The last event id seen, for a new EventSource (it cannot send the Last-Event-ID header itself). */
  lastEventId: z.string().max(100).optional(),
  /**
   * `5`: the compact stream (events `snap` and `delta`, live-codec.ts in the domain); absent or `1`: the first one.
   * A codec change takes the next number; a superseded one (`2`: the compact format before its column packing; `3`:
   * before trails against the course and predicted ETA ranges; `4`: before range-coded columns) is answered with the
   * first stream, which every web build reads, so a tab left open across a deploy stays right.
   */
  v: z.enum(['1', '2', '3', '4', '5']).optional(),
  /** A stream ticket (POST /api/director/races/{raceId}/live-ticket): the race's director reads it live. */
  ticket: z.string().max(STREAM_TICKET_MAX_LENGTH).optional(),
});

const positionsQuery = z.object({
  since: z.iso.datetime({ offset: true }).optional(),
});

/**
 * Public live routes: thin, the rules are in LiveService. The leaderboard, positions and splits are read through
 * the public view (privacy/public-view.ts: the public delay, hidden runners, private trails), which serves the
 * race's director and admins (race HQ, signed in) live.
 */
export default async function openRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/open/races/:id/leaderboard',
    {
      schema: {
        tags: ['live'],
        summary: 'Live leaderboard of an approved race (optionally filtered)',
        params,
        querystring: leaderboardQuery,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { gender, ageGroup, search } = request.query;
      reply.header('cache-control', 'no-cache');
      if (!gender && !ageGroup && !search) {
        // The common read: one serialisation per race version, shared by every reader.
        return reply
          .type('application/json; charset=utf-8')
          .send(await app.publicView.leaderboardJson(id, request.user));
      }
      return app.publicView.leaderboard(id, { gender, ageGroup, search }, request.user);
    },
  );

  app.get(
    '/api/open/races/:id/splits',
    {
      schema: {
        tags: ['live'],
        summary:
          'Each runner’s splits: when they passed each checkpoint (GPS, interpolated between two fixes; or check-in)',
        params,
        response: { 200: z.array(runnerSplitsSchema) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      return app.publicView.splits(request.params.id, request.user);
    },
  );

  app.get(
    '/api/open/races/:id/positions',
    {
      schema: {
        tags: ['live'],
        summary: 'Latest position and a bounded trail ([timeMs, lat, lon]) per runner',
        params,
        querystring: positionsQuery,
      },
    },
    async (request, reply) => {
      const since = request.query.since ? Date.parse(request.query.since) : undefined;
      reply.header('cache-control', 'no-cache');
      return app.publicView.positions(request.params.id, since, request.user);
    },
  );

  app.get(
    '/api/open/races/:id/course-track',
    {
      schema: {
        tags: ['live'],
        summary: 'Course line, km markers, waypoints and elevation profile for the live map',
        params,
      },
    },
    async (request) => {
      const course = await app.live.course(request.params.id);
      return courseTrack(course);
    },
  );

  app.get(
    '/api/open/races/:id/live',
    {
      schema: {
        tags: ['live'],
        summary: 'Server-Sent Events: a snapshot, then batched updates of the runners that changed',
        description:
          'Streams are capped per client address (LIVE_MAX_STREAMS_PER_CLIENT: 429) and per server process ' +
          '(LIVE_MAX_STREAMS: 503); both answers carry Retry-After and a JSON {error, message}. A reconnecting ' +
          'viewer resumes with its Last-Event-ID header (or `lastEventId`, for a new EventSource, which cannot ' +
          'set the header), on any process of a cluster. `?v=5`: the compact stream (`snap`, then `delta` ' +
          'messages at most every 15 s; packages/domain/src/live-codec.ts), a fraction of the bytes; `?v=2`, ' +
          '`?v=3` and `?v=4` (older codecs) get the first stream. ' +
          '`?ticket=`: a stream ticket of the race’s director or an admin (POST ' +
          '/api/director/races/{raceId}/live-ticket) opens the live stream, undelayed and unmasked, of a race ' +
          'with privacy settings; an invalid, expired or other race’s ticket is refused with 401.',
        params,
        querystring: streamQuery,
      },
      onSend: closeRefusedStream,
    },
    async (request, reply) => {
      const header = request.headers['last-event-id'];
      const lastEventId = typeof header === 'string' ? header : request.query.lastEventId;
      const { id } = request.params;
      // A ticket that does not hold is a 401 (thrown), never the public view instead.
      const readsLive = await streamReadsLive(app.streamTickets, app.live, id, request.query.ticket);
      let open;
      try {
        open = await app.live.prepareStream(
          id,
          request.ip,
          lastEventId,
          request.query.v === COMPACT_STREAM_VERSION,
          readsLive,
        );
      } catch (err) {
        if (!(err instanceof StreamLimitError)) throw err;
        // The refused client's connection is closed (not kept alive), so refusals never pile up descriptors.
        return sendStreamRefusal(reply, err);
      }
      reply.hijack();
      // gzip-encoded for clients that accept it, each message compressed once for every viewer
      open(gzipEventStream(reply.raw, request.headers['accept-encoding']));
    },
  );
}
