import fp from 'fastify-plugin';
import { createMemoryBus, type EventBus } from './bus';
import { createPgBus } from './pg-bus';

declare module 'fastify' {
  interface FastifyInstance {
    /** The internal event stream (positions, race changes, alerts); see events/bus.ts. */
    events: EventBus;
  }
}

/** PGlite: in-process bus. PostgreSQL: LISTEN/NOTIFY so every process sharing the database sees every event. */
export default fp(
  async (app) => {
    const { database } = app;
    const bus =
      database.kind === 'postgres' && database.url && database.pool
        ? await createPgBus({ url: database.url, pool: database.pool, log: app.log })
        : createMemoryBus(app.log);
    app.decorate('events', bus);
    app.addHook('onClose', async () => bus.close());
  },
  { name: 'events' },
);
