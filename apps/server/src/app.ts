import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config';
import { raceEventsOnBus } from './lib/race-events';
import { fastifyTrustProxy } from './lib/trust-proxy';
import { openDatabase, type Database } from './db/client';
import errorsPlugin from './plugins/errors';
import inputGuardPlugin from './plugins/input-guard';
import authPlugin from './plugins/auth';
import oidcPlugin from './oidc/plugin';
import configRoutes from './routes/config';
import eventsPlugin from './events/plugin';
import livePlugin from './live/plugin';
import webAppPlugin from './plugins/web-app';
import openApiPlugin from './plugins/openapi';
import apiRoutes from './routes';
import ingestPlugin from './ingest/plugin';
import demoPlugin from './demo/plugin';
import readyRoutes from './routes/ready';
import './types';

export interface BuildAppOptions {
  config: Config;
  /** An already-open database (tests); otherwise one is opened from the config. */
  database?: Database;
  logger?: FastifyServerOptions['logger'];
}

/**
 * The application as a Fastify instance. Infrastructure plugins load first (config, database, errors, auth,
 * OIDC provider, live bus), then feature routes. server.ts only starts it.
 */
export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    logger: opts.logger ?? { level: config.LOG_LEVEL },
    // X-Forwarded-* only from the proxies TRUST_PROXY names (off by default): request.ip is the real client.
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    bodyLimit: 2 * 1024 * 1024,
    // ids are integers; keep URLs like /api/open/races/not-started routable next to /:id
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database =
    opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }));
  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('db', database.db);
  if (!opts.database) app.addHook('onClose', async () => database.close());

  await app.register(errorsPlugin);
  // Upload size on the header, id and NUL checks: before auth and every route.
  await app.register(inputGuardPlugin);

  // --- infrastructure (order matters) ---
  await app.register(authPlugin);
  await app.register(oidcPlugin);
  await app.register(eventsPlugin);
  await app.register(openApiPlugin);

  // --- feature routes ---
  app.get('/api/health', async () => ({ status: 'ok', database: database.kind }));
  await app.register(readyRoutes); // GET /api/ready: database, migrations and event bus (503 when not)
  await app.register(configRoutes);
  await app.register(livePlugin);
  // The services announce race changes to live viewers on the event bus.
  await app.register(apiRoutes, { raceEvents: raceEventsOnBus(app.events, app.log) });
  await app.register(ingestPlugin);
  await app.register(demoPlugin);

  // --- the web app (last: its catch-all must not shadow API routes) ---
  await app.register(webAppPlugin);

  return app;
}
