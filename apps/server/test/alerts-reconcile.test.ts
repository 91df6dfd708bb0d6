import type { Alert } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeAlert } from '../src/ingest/alert-repository';
import { AlertSweepJob } from '../src/jobs/alert-sweep-job';
import { addDevice, addRace, addRunner, assign } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

describe.each(dbKinds)('race HQ: device SOS stored without its HQ alert (%s)', (kind) => {
  let t: TestContext;
  let director: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    director = await t.issuer.director('director-1');
  });
  afterAll(async () => t?.close());

  const raceAlerts = async (raceId: number, query = '') => {
    const res = await call(t, 'GET', `/api/director/races/${raceId}/alerts${query}`, { token: director });
    expect(res.statusCode).toBe(200);
    return res.json<Alert[]>();
  };

  it('the sweep raises it once; a resolved one is not raised again', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Lost');
    const d = await addDevice(t.app, { source: 'inreach', hardwareId: `30043406${kind.length}999999` });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    // Stored as ingestion stores it, but its HQ alert never raised (as when raising failed).
    const stored = await storeAlert(t.app.db, {
      device: { deviceId: d.id },
      kind: 'sos',
      message: 'Fell',
      at: new Date(Date.now() - 5 * 60_000),
      lat: 46.5,
      lon: 7.9,
    });
    expect(stored).toMatchObject({ raceId, runnerId });
    expect(await raceAlerts(raceId)).toHaveLength(0);
    const job = new AlertSweepJob({
      db: t.app.db,
      live: t.app.live,
      alerts: t.app.alerts,
      log: t.app.log,
      everyMs: 15_000,
    });
    await job.runOnce();
    const open = await raceAlerts(raceId, '?state=open');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ RunnerId: runnerId, Kind: 'sos', State: 'open', Latitude: 46.5 });
    expect(open[0].Message).toContain('Fell');
    await job.runOnce();
    expect(await raceAlerts(raceId)).toHaveLength(1);
    const res = await call(t, 'POST', `/api/director/alerts/${open[0].AlertId}/resolve`, {
      token: director,
      body: { Note: 'Runner found, fine' },
    });
    expect(res.statusCode).toBe(200);
    await job.runOnce();
    const all = await raceAlerts(raceId);
    expect(all).toHaveLength(1);
    expect(all[0].State).toBe('resolved');
  });
});
