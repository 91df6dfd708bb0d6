import fp from 'fastify-plugin';
import { reattributeRace } from './attribution-repository';
import deviceRoutes from './device-routes';
import { MeshtasticSubscriber } from './meshtastic-mqtt';
import { IngestPipeline } from './pipeline';
import { IngestRateLimiter } from './rate-limit';
import { IngestService } from './service';
import spotFeedRoutes from './spot-feed-routes';
import { SpotPoller } from './spot-poller';

declare module 'fastify' {
  interface FastifyInstance {
    /** Device ingestion: what every source's adapter reads goes through it (the SPOT poll job too). */
    ingest: IngestService;
  }
}

/**
 * Device ingestion: HTTP adapters under /api/ingest, the SPOT poller, the Meshtastic MQTT subscriber, and
 * re-attribution of stored fixes when a race's device assignments change.
 */
export default fp(
  async (app) => {
    const { config, database } = app;
    const pipeline = new IngestPipeline({
      db: app.db,
      events: app.events,
      log: app.log,
      concurrency: database.kind === 'postgres' ? 4 : 1,
      pool: database.kind === 'postgres' ? database.pool : undefined,
    });
    const service = new IngestService({ pipeline, limiter: new IngestRateLimiter(), log: app.log });
    app.decorate('ingest', service);

    const poller = new SpotPoller({
      db: app.db,
      service,
      log: app.log,
      apiUrl: config.SPOT_API_URL,
      pollSeconds: config.SPOT_POLL_SECONDS,
    });

    // Routes in their own scope: the form-body and catch-all parsers apply to ingestion only.
    await app.register(deviceRoutes, { service });
    await app.register(async (scope) => spotFeedRoutes(scope, { poller }));

    // A late first assignment (or a correction) must not lose or misplace fixes already stored.
    const pending = new Map<number, NodeJS.Timeout>();
    const unsubscribe = app.events.subscribe((e) => {
      if (e.type !== 'race-updated') return;
      poller.racesChanged();
      clearTimeout(pending.get(e.raceId));
      const t = setTimeout(() => {
        pending.delete(e.raceId);
        reattributeRace(app.db, e.raceId)
          .then((n) => (n ? app.events.publish({ type: 'race-updated', raceId: e.raceId }) : undefined))
          .catch((err: unknown) => app.log.warn({ err, raceId: e.raceId }, 're-attribution failed'));
      }, 300);
      pending.set(e.raceId, t);
    });

    let mqtt: MeshtasticSubscriber | null = null;
    app.addHook('onReady', async () => {
      poller.start();
      if (config.MQTT_URL) {
        mqtt = new MeshtasticSubscriber({
          url: config.MQTT_URL,
          topic: config.MQTT_TOPIC,
          service,
          log: app.log,
        });
        await mqtt.start();
      }
    });

    app.addHook('onClose', async () => {
      unsubscribe();
      for (const t of pending.values()) clearTimeout(t);
      await poller.stop();
      await mqtt?.stop();
      await pipeline.close();
    });
  },
  { name: 'ingest', dependencies: ['events'] },
);
