import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { REPLAY_TRAIL, type ReplayService } from './replay-service';

const params = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

const replayQuery = z.object({
  at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      'The moment to show (ISO 8601 with offset); before the start: the start, after now or the end: the end',
    ),
  trail: z.coerce.number().int().min(0).max(REPLAY_TRAIL).optional(),
});

/** Public replay and race-flow routes: thin, the rules are in ReplayService and the domain. */
export default async function storyRoutes(fastify: FastifyInstance, opts: { replay: ReplayService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { replay } = opts;

  app.get(
    '/api/open/races/:id/replay',
    {
      schema: {
        tags: ['live'],
        summary:
          'The race as spectators saw it at a moment: leaderboard rows and positions from the fixes received by then',
        description:
          'A late fix counts from when it arrived, not from its fix time. Leaderboard rows have the /leaderboard ' +
          'fields, Positions the /positions shape (trails of at most `trail` fixes, default 100). From/To: the times ' +
          'a replay can show (the start, and now or the end of the race).',
        params,
        querystring: replayQuery,
      },
    },
    async (request, reply) => {
      const { at, trail } = request.query;
      reply.header('cache-control', 'no-cache');
      return replay.replay(request.params.id, at === undefined ? undefined : Date.parse(at), trail);
    },
  );

  app.get(
    '/api/open/races/:id/flow',
    {
      schema: {
        tags: ['live'],
        summary:
          'Race-flow chart: every runner’s distance along the course against time, thinned for drawing',
        description:
          'Per runner, Lines of [epoch ms, km] broken where data is missing (no fix for longer than the runner would ' +
          'take to go stale); Checkpoints with their cutoffs (the course waypoints when the race has no checkpoints).',
        params,
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      return replay.flow(request.params.id);
    },
  );
}
