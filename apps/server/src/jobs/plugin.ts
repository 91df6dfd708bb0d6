import fp from 'fastify-plugin';
import { AlertSweepJob } from './alert-sweep-job';
import { jobLockFor } from './lock';
import { MapSharePollJob } from './mapshare-poll-job';
import { PushNotifyJob } from './push-notify-job';
import { RetentionJob } from './retention-job';
import { JobRunner } from './runner';
import { SpotPollJob } from './spot-poll-job';

declare module 'fastify' {
  interface FastifyInstance {
    /** Background jobs: each runs in one process of the cluster (see jobs/runner.ts). */
    jobs: JobRunner;
  }
}

/**
 * Every background job of the app, registered here: started once the app is ready, woken by the events they ask
 * for, stopped (their runs finished, their locks given back) when it closes.
 */
export default fp(
  async (app) => {
    const { config } = app;
    const runner = new JobRunner({
      lock: jobLockFor(app.database, app.log),
      log: app.log,
      onDatabaseUnavailable: (err) => app.databaseOutage.failed(err),
    });
    app.decorate('jobs', runner);

    runner.add(
      new SpotPollJob({
        db: app.db,
        ingest: app.ingest,
        log: app.log,
        apiUrl: config.SPOT_API_URL,
        pollSeconds: config.SPOT_POLL_SECONDS,
      }),
    );

    runner.add(
      new MapSharePollJob({ db: app.db, ingest: app.ingest, log: app.log, apiUrl: config.MAPSHARE_API_URL }),
    );

    if (config.ALERT_SWEEP_SECONDS > 0)
      runner.add(
        new AlertSweepJob({
          db: app.db,
          live: app.live,
          alerts: app.alerts,
          log: app.log,
          everyMs: config.ALERT_SWEEP_SECONDS * 1000,
        }),
      );

    if (config.PUSH_NOTIFY_SECONDS > 0)
      runner.add(
        new PushNotifyJob({
          db: app.db,
          live: app.live,
          log: app.log,
          subject: config.pushSubject,
          everyMs: config.PUSH_NOTIFY_SECONDS * 1000,
        }),
      );

    // Privacy of runners: the fixes of ended races with a retention period are deleted, their results kept.
    runner.add(new RetentionJob({ db: app.db, live: app.live, events: app.events, log: app.log }));

    const unsubscribe = app.events.subscribe((e) => runner.notify(e));
    app.addHook('onReady', async () => runner.start());
    app.addHook('onClose', async () => {
      unsubscribe();
      await runner.stop();
    });
  },
  { name: 'jobs', dependencies: ['events', 'ingest', 'live', 'alerts'] },
);
