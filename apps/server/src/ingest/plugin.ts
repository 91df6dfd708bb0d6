import fp from 'fastify-plugin';
import { reattributeRace } from './attribution-repository';
import deviceRoutes from './device-routes';
import { MeshtasticSubscriber } from './meshtastic-mqtt';
import { IngestPipeline } from './pipeline';
import { IngestRateLimiter } from './rate-limit';
import { IngestService } from './service';
import adminRoutes from './admin-routes';
import { proveByText } from '../devices/own-tracker-claim';

declare module 'fastify' {
  interface FastifyInstance {
    /** Device ingestion: what every source's adapter reads goes through it (the SPOT poll job too). */
    ingest: IngestService;
  }
}

/**
 * Device ingestion: the device protocols under /api/ingest, the SPOT feed registry, the Meshtastic MQTT subscriber
 * and re-attribution of stored fixes when a race's device assignments change. SPOT feeds are polled by a job
 * (jobs/spot-poll-job.ts) that hands each page to this module's service.
 */
export default fp(
  async (app) => {
    const { config, database } = app;
    const pipeline = new IngestPipeline({
      db: app.db,
      events: app.events,
      log: app.log,
      // Two statements at a time on PostgreSQL (one can wait for its commit's WAL flush while the other runs), and
      // while one runs a second starts only for 64 waiting fixes: a statement has a fixed cost (~0.7 ms of PostgreSQL
      // CPU: commit, NOTIFY, its CTEs) that small batches pay per fix (bench/ingest.bench.ts).
      concurrency: database.kind === 'postgres' ? 2 : 1,
      minBatchWhileBusy: 64,
      pool: database.kind === 'postgres' ? database.pool : undefined,
      // Race HQ: an SOS or HELP becomes an open alert within the device's request.
      onAlert: app.hasDecorator('alerts') ? (a) => app.alerts.fromDevice(a) : undefined,
      // An inReach text with the race's help keyword becomes an open help alert.
      onText: app.hasDecorator('alerts') ? (m) => app.alerts.fromDevice(m) : undefined,
    });
    const service = new IngestService({
      pipeline,
      limiter: new IngestRateLimiter(),
      log: app.log,
      // A runner's own tracker proven by the code its device sent: its race's viewers and director see it.
      onClaimText: async (device, text) => {
        for (const raceId of await proveByText(app.db, device, text))
          await app.events.publish({ type: 'race-updated', raceId });
      },
    });
    app.decorate('ingest', service);

    await app.register(deviceRoutes, { service });
    await app.register(adminRoutes);

    // A late first assignment (or a correction) must not lose or misplace fixes already stored.
    const pending = new Map<number, NodeJS.Timeout>();
    const unsubscribe = app.events.subscribe((e) => {
      if (e.type !== 'race-updated') return;
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
      await mqtt?.stop();
      await pipeline.close();
    });
  },
  { name: 'ingest', dependencies: ['events'] },
);
