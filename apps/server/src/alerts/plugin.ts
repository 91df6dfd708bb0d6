import fp from 'fastify-plugin';
import { acceptEmptyJsonBodies } from '../platform/json-body';
import alertRoutes from './routes';
import { AlertService } from './service';
import { AlertStreamHub } from './stream';

declare module 'fastify' {
  interface FastifyInstance {
    /** Race HQ alerts: raised by device messages (ingestion) and the sweep job, acted on through the API. */
    alerts: AlertService;
  }
}

/** Race HQ: the alert service (ingestion and the sweep job raise through it), its routes and the HQ streams. */
export default fp(
  async (app) => {
    const alerts = new AlertService({ db: app.db, events: app.events, log: app.log });
    app.decorate('alerts', alerts);
    const hub = new AlertStreamHub({
      bus: app.events,
      load: (id) => alerts.getAlert(id),
      log: app.log,
      maxStreamsPerClient: app.config.LIVE_MAX_STREAMS_PER_CLIENT,
    });
    // Open streams would keep the HTTP server from closing: end them first (graceful shutdown).
    app.addHook('preClose', async () => hub.close());
    app.addHook('onClose', async () => hub.close());
    // A hand-over changes who held a device when: its SOS/HELP messages follow (a tracker's SOS sent before it was
    // handed to a runner names the runner as soon as the hand-over covers it). Debounced per race, as fixes are.
    const pending = new Map<number, NodeJS.Timeout>();
    const unsubscribe = app.events.subscribe((e) => {
      if (e.type !== 'race-updated') return;
      clearTimeout(pending.get(e.raceId));
      const timer = setTimeout(() => {
        pending.delete(e.raceId);
        alerts
          .reattributeRace(e.raceId)
          .catch((err: unknown) => app.log.warn({ err, raceId: e.raceId }, 'alert re-attribution failed'));
      }, 300);
      timer.unref();
      pending.set(e.raceId, timer);
    });
    app.addHook('onClose', async () => {
      unsubscribe();
      for (const timer of pending.values()) clearTimeout(timer);
    });
    await app.register(async (scope) => {
      // An acknowledge or resolve without a note may come with an empty JSON body.
      acceptEmptyJsonBodies(scope);
      await scope.register(alertRoutes, { alerts, hub });
    });
  },
  { name: 'alerts', dependencies: ['events'] },
);
