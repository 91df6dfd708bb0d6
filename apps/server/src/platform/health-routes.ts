import type { FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors';
import { DATABASE_RETRY_AFTER_S } from '../db/outage';
import { expectedMigrationMillis, newestAppliedMigration } from '../db/readiness';

/** How long the readiness check waits for the database. */
const READY_TIMEOUT_MS = 2000;

/**
 * GET /api/health — liveness: 200 whenever the process answers (with the kind of database it uses).
 *
 * GET /api/ready — readiness for a load balancer or orchestrator: 200 `{status: "ready"}` when the database answers
 * within 2 s, its migrations are the ones this server expects and the event bus is listening; otherwise 503
 * `{status: "unavailable", reasons}` with Retry-After. It recovers by itself. `/api/health` stays the liveness
 * check (the process answers), so an outage of the database takes processes out of rotation without restarting
 * them.
 */
export default async function healthRoutes(app: FastifyInstance) {
  const { database, databaseOutage } = app;
  const expected = expectedMigrationMillis();

  // A probe's answer is never cached (so no ETag is worked out for it either), like /api/ready's.
  app.get('/api/health', (_request, reply) => {
    reply.header('cache-control', 'no-store').send({ status: 'ok', database: database.kind });
  });

  app.get(
    '/api/ready',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: 200 when the database answers and the event bus listens, else 503 with reasons',
      },
    },
    async (request, reply) => {
      const reasons: string[] = [];
      try {
        const applied = await newestAppliedMigration(database, READY_TIMEOUT_MS);
        databaseOutage.recovered();
        if (applied === null || applied < expected) reasons.push('migrations_pending');
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          databaseOutage.failed(err);
          reasons.push('database_unavailable');
        } else {
          request.log.warn({ err }, 'readiness check query failed');
          reasons.push('database_error');
        }
      }
      if (!app.events.listening()) reasons.push('event_bus_not_listening');
      if (reasons.length) {
        return reply
          .code(503)
          .header('retry-after', String(DATABASE_RETRY_AFTER_S))
          .header('cache-control', 'no-store')
          .send({ status: 'unavailable', database: database.kind, reasons });
      }
      return reply
        .header('cache-control', 'no-store')
        .send({ status: 'ready', database: database.kind, eventBus: 'listening' });
    },
  );
}
