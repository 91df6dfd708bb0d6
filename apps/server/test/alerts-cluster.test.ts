import type { Alert } from '@racebeacon/domain';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase, type Database } from '../src/db/client';
import { AlertSweepJob } from '../src/jobs/alert-sweep-job';
import { addDevice, addRace, addRunner, assign } from './ingest-fixtures';
import { createTestDatabase, type TestDatabase } from './support/databases';
import {
  startTestIssuer,
  TEST_ADMIN_GROUP,
  TEST_AUDIENCE,
  TEST_SCOPE,
  type TestIssuer,
} from './support/issuer';
import { pointAlong, postFixes, seedLiveRace } from './support/live-seed';

const MIN = 60_000;

/**
 * Two server processes on one PostgreSQL: each condition raises one alert, not two — even when both sweep at the
 * same instant (the job lock normally keeps the second from sweeping at all; the partial unique index is what
 * holds when a hand-over overlaps), and when the same SOS reaches both at once.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('race HQ alerts, two processes on one PostgreSQL', () => {
  let database: TestDatabase;
  let issuer: TestIssuer;
  const apps: FastifyInstance[] = [];
  const opened: Database[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const d of opened) await d.close();
    await issuer?.close();
    await database?.close();
  });

  it('raises one alert per condition', async () => {
    database = await createTestDatabase('postgres');
    issuer = await startTestIssuer();
    const config = loadConfig({
      OIDC_ISSUER: issuer.url,
      OIDC_AUDIENCE: TEST_AUDIENCE,
      OIDC_CLIENT_ID: 'racebeacon-test-client',
      OIDC_API_SCOPE: TEST_SCOPE,
      ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
      PUBLIC_URL: 'http://localhost:3000',
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      ALERT_SWEEP_SECONDS: '0',
      DATABASE_URL: database.url,
    });
    for (let i = 0; i < 2; i++) {
      const db = await openDatabase({ databaseUrl: database.url, poolSize: 5 });
      opened.push(db);
      const app = await buildApp({ config, database: db, logger: false });
      await app.ready();
      apps.push(app);
    }
    const [a, b] = apps;
    const now = Date.now();
    const race = await seedLiveRace(a.db, { runners: 2, clockStartMs: now - 60 * MIN, keyPrefix: 'cluster' });
    await postFixes(a, race.raceId, race.runners[0], [{ t: now - 20 * MIN, ...pointAlong(1000) }]);
    await postFixes(a, race.raceId, race.runners[1], [
      { t: now - 2 * MIN, ...pointAlong(1200), batteryPercent: 5 },
    ]);
    const jobs = apps.map(
      (app) =>
        new AlertSweepJob({
          db: app.db,
          live: app.live,
          alerts: app.alerts,
          log: app.log,
          everyMs: 15_000,
          now: () => now,
        }),
    );
    await Promise.all([jobs[0].runOnce(), jobs[1].runOnce(), jobs[0].runOnce(), jobs[1].runOnce()]);

    // The same SOS delivered to both processes at once (a retried webhook behind a load balancer).
    const raceId = await addRace(a, { startedAt: new Date(now - 3600_000) });
    const runnerId = await addRunner(a, raceId);
    const d = await addDevice(a, { name: 'Phone C' });
    await assign(a, d.id, raceId, runnerId, new Date(now - 7200_000));
    const ts = Math.floor(now / 1000) - 3;
    const url = `/api/ingest/osmand?id=${d.trackingKey}&lat=46.1&lon=7.1&timestamp=${ts}&alarm=sos`;
    const answers = await Promise.all([a.inject({ url }), b.inject({ url })]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);

    const token = await issuer.admin('admin-c');
    const all = await b.inject({ url: '/api/admin/alerts', headers: { authorization: `Bearer ${token}` } });
    const alerts = all.json<Alert[]>();
    const keys = alerts.map((x) => `${x.RunnerId}:${x.Kind}`).sort();
    expect(keys).toEqual(
      [
        `${race.runners[0].runnerId}:lost-signal`,
        `${race.runners[1].runnerId}:low-battery`,
        `${runnerId}:sos`,
      ].sort(),
    );
  });
});
