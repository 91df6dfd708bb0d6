import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import alertsPlugin from './alerts/plugin';
import type { Config } from './config';
import { openDatabase, type Database } from './db/client';
import demoPlugin from './demo/plugin';
import eventsPlugin from './events/plugin';
import authPlugin from './identity/auth-plugin';
import providerPlugin from './identity/provider-plugin';
import ingestPlugin from './ingest/plugin';
import jobsPlugin from './jobs/plugin';
import { raceEventsOnBus } from './lib/race-events';
import { checkinEventsOnBus } from './checkins/events';
import { fastifyTrustProxy } from './lib/trust-proxy';
import livePlugin from './live/plugin';
import { logRequest } from './live/stream-ticket';
import compressionPlugin from './platform/compression';
import configRoutes from './platform/config-routes';
import connectionLimitPlugin from './platform/connection-limit';
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './platform/errors';
import healthRoutes from './platform/health-routes';
import inputGuardPlugin from './platform/input-guard';
import openApiPlugin from './platform/openapi';
import securityHeadersPlugin from './platform/security-headers';
import spectatorRoutes from './spectators/routes';
import webAppPlugin from './platform/web-app';
import apiRoutes from './rest-api';
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
    // Stream tickets travel in the URL: the request log prints them redacted.
    logger: opts.logger ?? { level: config.LOG_LEVEL, serializers: { req: logRequest } },
    // X-Forwarded-* only from the proxies TRUST_PROXY names (off by default): request.ip is the real client.
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    bodyLimit: 2 * 1024 * 1024,
    // ids are integers; keep URLs like /api/open/races/not-started routable next to /:id
    routerOptions: { ignoreTrailingSlash: true },
    // Undecodable URLs and unreadable requests: our {error, message} and the security headers (platform/errors.ts).
    frameworkErrors: frameworkErrors(config),
    clientErrorHandler: clientErrorHandler(config),
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
  // CSP, nosniff, Referrer-Policy, frame-ancestors, HSTS under https: on every answer, the OIDC provider's included.
  await app.register(securityHeadersPlugin);
  // Open connections per client address (MAX_CONNECTIONS_PER_CLIENT): past it 429 and the connection closed.
  await app.register(connectionLimitPlugin);
  // Upload size on the header, id and NUL checks: before auth and every route.
  await app.register(inputGuardPlugin);
  // ETag/304 and brotli/gzip on every buffered answer: before any route (it hooks the routes registered after it).
  await app.register(compressionPlugin);

  // --- infrastructure (order matters) ---
  await app.register(authPlugin);
  await app.register(providerPlugin);
  await app.register(eventsPlugin);
  await app.register(openApiPlugin);

  // --- feature routes ---
  // GET /api/health (the process answers) and GET /api/ready (database, migrations and event bus; 503 when not)
  await app.register(healthRoutes);
  await app.register(configRoutes);
  await app.register(livePlugin);
  // The services announce race changes to live viewers on the event bus.
  await app.register(apiRoutes, {
    raceEvents: raceEventsOnBus(app.events, app.log),
    checkinEvents: checkinEventsOnBus(app.events, app.log),
    runnerDistance: (raceId, runnerId) => app.live.runnerDistanceM(raceId, runnerId),
  });
  // Race HQ alerts (before ingestion, which raises SOS and HELP through them).
  await app.register(alertsPlugin);
  await app.register(ingestPlugin);
  // Background jobs (the SPOT feed poller, the alert sweep): each in one process of the cluster, started once the app is ready.
  await app.register(jobsPlugin);
  await app.register(demoPlugin);

  // The text view of a race (server-rendered, no script).
  await app.register(spectatorRoutes);

  // --- the web app (last: its catch-all must not shadow API routes) ---
  await app.register(webAppPlugin);

  return app;
}
