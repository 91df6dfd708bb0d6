import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, addRace, addRunner, assign, deviceRow, positionsOf, waitFor } from './ingest-fixtures';
import { deviceAlerts } from '../src/db/schema';
import { eq } from 'drizzle-orm';

/** A stand-in for SPOT's public feed API on 127.0.0.1, answering in the documented shapes. */
function spotMessage(
  id: number,
  esn: string,
  unixTime: number,
  lat: number,
  extra: Record<string, unknown> = {},
) {
  return {
    '@clientUnixTime': '0',
    id,
    messengerId: esn,
    messengerName: `Bib ${esn}`,
    unixTime,
    messageType: 'UNLIMITED-TRACK',
    latitude: lat,
    longitude: 7.9112,
    modelId: 'SPOT3',
    showCustomMsg: 'Y',
    dateTime: new Date(unixTime * 1000).toISOString().replace('.000Z', '+0000'),
    batteryState: 'GOOD',
    hidden: 0,
    altitude: 1732,
    ...extra,
  };
}

function feedResponse(feedId: string, messages: unknown) {
  const count = Array.isArray(messages) ? messages.length : 1;
  return {
    response: {
      feedMessageResponse: {
        count,
        feed: {
          id: feedId,
          name: 'Trail Race',
          description: '',
          status: 'ACTIVE',
          usage: 0,
          daysRange: 7,
          detailedMessageShown: false,
          type: 'SHARED_PAGE',
        },
        totalCount: count,
        activityCount: 0,
        messages: { message: messages },
      },
    },
  };
}

describe.each(dbKinds)('SPOT feed poller (%s)', (kind) => {
  let t: TestContext;
  let server: http.Server;
  const requests: string[] = [];
  const feeds = new Map<string, () => { status: number; body: unknown }>();
  let admin: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      const m = /^\/feed\/([^/]+)\/message\.json/.exec(req.url ?? '');
      const handler = m ? feeds.get(m[1]) : undefined;
      const out = handler ? handler() : { status: 404, body: { error: 'no such feed' } };
      res.statusCode = out.status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    t = await createTestApp(kind, { SPOT_API_URL: `http://127.0.0.1:${port}/feed`, SPOT_POLL_SECONDS: '1' });
    admin = await t.issuer.admin();
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server.close(r));
  });

  const addFeed = (body: Record<string, unknown>, token: string | null = admin) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/spot-feeds',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: body,
    });

  it('feeds are admin-only: anonymous 401, director 403', async () => {
    expect((await addFeed({ FeedId: 'abc' }, null)).statusCode).toBe(401);
    expect((await addFeed({ FeedId: 'abc' }, await t.issuer.director('d1'))).statusCode).toBe(403);
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/spot-feeds' });
    expect(list.statusCode).toBe(401);
    const bad = await addFeed({ FeedId: '' });
    expect(bad.statusCode).toBe(400);
  });

  it('does not poll while no race uses SPOT devices; polls within seconds once one is live', async () => {
    const now = Math.floor(Date.now() / 1000);
    feeds.set('FEEDMULTI', () => ({
      status: 200,
      body: feedResponse('FEEDMULTI', [
        spotMessage(1987654390, '0-2468013', now - 300, 46.562, {
          messageType: 'OK',
          batteryState: 'LOW',
          messageContent: 'All good',
        }),
        spotMessage(1987654321, '0-2468013', now - 600, 46.5581),
        spotMessage(1987654322, '0-9999999', now - 500, 46.1), // a messenger we do not know
      ]),
    }));
    const res = await addFeed({ FeedId: 'FEEDMULTI', FeedPassword: 's3cret' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ FeedId: 'FEEDMULTI', HasPassword: true, LastPolledAt: null });
    expect(JSON.stringify(res.json())).not.toContain('s3cret');
    await new Promise((r) => setTimeout(r, 1500));
    expect(requests.filter((u) => u.includes('FEEDMULTI'))).toHaveLength(0);

    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app, { source: 'spot', hardwareId: '0-2468013' });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    await t.app.events.publish({ type: 'race-updated', raceId });

    const rows = await waitFor(
      () => positionsOf(t.app, dev.id),
      (r) => r.length === 2,
    );
    expect(rows.map((r) => [r.fixTime.getTime() / 1000, r.lat, r.runnerId])).toEqual([
      [now - 600, 46.5581, runnerId],
      [now - 300, 46.562, runnerId],
    ]);
    const polled = requests.find((u) => u.includes('FEEDMULTI'))!;
    expect(new URL(polled, 'http://x').searchParams.get('feedPassword')).toBe('s3cret');
    const d = await deviceRow(t.app, dev.id);
    expect(d.batteryState).toBe('LOW');
    expect(d.lastPingTime?.getTime()).toBe((now - 300) * 1000);
    // polled again every SPOT_POLL_SECONDS, and the repeated messages are not stored twice
    await waitFor(
      () => requests.filter((u) => u.includes('FEEDMULTI')).length,
      (n) => n >= 2,
    );
    expect(await positionsOf(t.app, dev.id)).toHaveLength(2);
  });

  it('handles a lone message returned as an object, and an SOS as an alert', async () => {
    const now = Math.floor(Date.now() / 1000);
    const dev = await addDevice(t.app, { source: 'spot', hardwareId: '0-1111111' });
    feeds.set('FEEDSINGLE', () => ({
      status: 200,
      body: feedResponse('FEEDSINGLE', spotMessage(55, '0-1111111', now - 120, 45.5, { messageType: 'SOS' })),
    }));
    expect((await addFeed({ FeedId: 'FEEDSINGLE' })).statusCode).toBe(201);
    const rows = await waitFor(
      () => positionsOf(t.app, dev.id),
      (r) => r.length === 1,
    );
    expect(rows[0].lat).toBe(45.5);
    const alerts = await waitFor(
      () => t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, dev.id)),
      (a) => a.length === 1,
    );
    expect(alerts[0].kind).toBe('sos');
  });

  it('treats E-0195 as an empty feed, records other failures as the feed error and keeps polling others', async () => {
    feeds.set('FEEDEMPTY', () => ({
      status: 200,
      body: {
        response: {
          errors: {
            error: {
              code: 'E-0195',
              text: 'No Messages to display',
              description: 'No displayable messages found found for feed: FEEDEMPTY',
            },
          },
        },
      },
    }));
    feeds.set('FEEDBROKEN', () => ({ status: 503, body: { oops: true } }));
    const empty = (await addFeed({ FeedId: 'FEEDEMPTY' })).json();
    const broken = (await addFeed({ FeedId: 'FEEDBROKEN' })).json();
    const list = await waitFor(
      async () =>
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/admin/spot-feeds',
            headers: { authorization: `Bearer ${admin}` },
          })
        ).json() as {
          Id: number;
          LastPolledAt: string | null;
          LastError: string | null;
        }[],
      (l) =>
        l.filter((f) => [empty.Id, broken.Id].includes(f.Id) && f.LastPolledAt).length === 2 &&
        !!l.find((f) => f.Id === broken.Id)?.LastError,
    );
    expect(list.find((f) => f.Id === empty.Id)?.LastError).toBeNull();
    expect(list.find((f) => f.Id === broken.Id)?.LastError).toMatch(/503/);
  });

  it('deletes a feed (204, then 404) and refuses a duplicate (409)', async () => {
    feeds.set('FEEDDEL', () => ({ status: 200, body: feedResponse('FEEDDEL', []) }));
    const created = (await addFeed({ FeedId: 'FEEDDEL' })).json();
    expect((await addFeed({ FeedId: 'FEEDDEL' })).statusCode).toBe(409);
    const del = () =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/admin/spot-feeds/${created.Id}`,
        headers: { authorization: `Bearer ${admin}` },
      });
    expect((await del()).statusCode).toBe(204);
    expect((await del()).statusCode).toBe(404);
  });
});
