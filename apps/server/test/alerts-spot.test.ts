import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Alert } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDevice, addRace, addRunner, assign, waitFor } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/** SPOT HELP through the feed poller raises a help alert; HELP-CANCEL resolves it by itself. */

const message = (id: number, esn: string, unixTime: number, messageType: string) => ({
  id,
  messengerId: esn,
  messengerName: `Bib ${esn}`,
  unixTime,
  messageType,
  latitude: 46.55,
  longitude: 7.91,
  modelId: 'SPOT3',
  batteryState: 'GOOD',
  altitude: 1700,
  messageContent: messageType === 'HELP' ? 'Need water at the ridge' : undefined,
});

const page = (messages: unknown[]) => ({
  response: {
    feedMessageResponse: {
      count: messages.length,
      feed: { id: 'HQFEED', name: 'HQ', status: 'ACTIVE', type: 'SHARED_PAGE' },
      totalCount: messages.length,
      messages: { message: messages },
    },
  },
});

describe.each(dbKinds)('race HQ alerts from SPOT (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  let messages: unknown[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(page(messages)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    t = await createTestApp(kind, { SPOT_API_URL: `http://127.0.0.1:${port}/feed`, SPOT_POLL_SECONDS: '1' });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server.close(r));
  });

  it('HELP raises an open help alert for the runner; HELP-CANCEL resolves it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const esn = `0-77${kind === 'pglite' ? '1' : '2'}0001`;
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Spot');
    const dev = await addDevice(t.app, { source: 'spot', hardwareId: esn });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    messages = [message(1, esn, now - 120, 'HELP')];
    const admin = await t.issuer.admin();
    expect(
      (await call(t, 'POST', '/api/admin/spot-feeds', { token: admin, body: { FeedId: 'HQFEED' } }))
        .statusCode,
    ).toBe(201);
    await t.app.events.publish({ type: 'race-updated', raceId });
    const token = await t.issuer.director('director-1');
    const alerts = async () =>
      (await call(t, 'GET', `/api/director/races/${raceId}/alerts`, { token })).json<Alert[]>();
    const [help] = await waitFor(alerts, (a) => a.length === 1);
    expect(help).toMatchObject({ Kind: 'help', State: 'open', RunnerId: runnerId, DeviceId: dev.id });
    expect(help.Message).toContain('Need water');

    messages = [message(2, esn, now - 30, 'HELP-CANCEL'), message(1, esn, now - 120, 'HELP')];
    const [done] = await waitFor(alerts, (a) => a[0]?.State === 'resolved');
    expect(done).toMatchObject({ AlertId: help.AlertId, ResolvedBy: null });
    expect(done.Note).toContain('HELP-CANCEL');
  });
});
