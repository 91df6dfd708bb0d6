import fp from 'fastify-plugin';
import { RaceSimulator } from '../simulator/simulator';
import { findDemoRace, seedDemo, type DemoRace } from './seed';

/**
 * The newcomer's demo (config.demo: on by default with the embedded database, off with DATABASE_URL unless
 * DEMO=on): seed a live race on a fresh install, then once the server listens, run the simulator against it,
 * posting real OsmAnd requests to this very server.
 */
export default fp(
  async (app) => {
    if (!app.config.demo) return;
    let demo: DemoRace | null = null;
    let sim: RaceSimulator | null = null;

    app.addHook('onReady', async () => {
      try {
        demo = (await seedDemo(app.db)) ?? (await findDemoRace(app.db));
        if (demo) app.log.info({ raceId: demo.raceId }, 'demo race ready (DEMO=off disables it)');
      } catch (err) {
        app.log.warn({ err }, 'demo seeding failed; starting without the demo');
      }
    });

    app.addHook('onListen', async () => {
      if (!demo || sim) return;
      const address = app.server.address();
      if (!address || typeof address !== 'object') return;
      sim = new RaceSimulator({
        baseUrl: `http://127.0.0.1:${address.port}`,
        course: demo.course,
        runners: demo.runners,
        raceStart: demo.raceStart,
        seed: demo.raceId,
        log: (msg) => app.log.debug(msg),
      });
      sim.start();
    });

    app.addHook('preClose', async () => {
      await sim?.stop();
    });
  },
  { name: 'demo', dependencies: ['ingest'] },
);
