import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { positions } from '../src/db/schema';
import { STREAM_TICKET_TTL_MS, StreamTickets, withoutTicket } from '../src/live/stream-ticket';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import {
  startTestIssuer,
  TEST_ADMIN_GROUP,
  TEST_AUDIENCE,
  TEST_SCOPE,
  type TestIssuer,
} from './support/issuer';
import { pointAlong, seedLiveRace, type SeededRace, type SeededRunner } from './support/live-seed';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres';
import { startServerProcess } from './support/server-process';
import { connectSse, type SseConnection } from './support/sse-client';

/**
 * Stream tickets (live/stream-ticket.ts): the race's director and admins open the live stream of a race with a
 * public delay or hidden runners live with EventSource (no bearer token), while the public reads it delayed and
 * masked. Anyone else gets 404 for a ticket; a bad, expired or other race's ticket is a 401 on the stream.
 */

const MIN = 60_000;

/** Stores fixes and publishes them as ingestion does. */
async function store(
  app: FastifyInstance,
  raceId: number,
  runner: SeededRunner,
  fixes: { t: number; km: number }[],
): Promise<void> {
  const rows = await app.db
    .insert(positions)
    .values(
      fixes.map((f) => ({
        deviceId: runner.deviceId,
        raceId,
        runnerId: runner.runnerId,
        fixTime: new Date(f.t),
        receivedAt: new Date(f.t + 1000),
        ...pointAlong(f.km * 1000),
        source: 'osmand',
      })),
    )
    .returning({ id: positions.id, fixTime: positions.fixTime, receivedAt: positions.receivedAt });
  for (const [k, row] of rows.entries()) {
    await app.events.publish({
      type: 'position',
      raceId,
      runnerId: runner.runnerId,
      deviceId: runner.deviceId,
      positionId: row.id,
      fixTime: row.fixTime.toISOString(),
      receivedAt: row.receivedAt.toISOString(),
      ...pointAlong(fixes[k].km * 1000),
      altitude: null,
      speed: null,
      batteryPercent: null,
      batteryState: null,
      source: 'osmand',
    });
  }
}

describe.each(dbKinds)('live stream tickets (%s)', (kind) => {
  let t: TestContext;
  let base: string;
  let race: SeededRace;
  let other: SeededRace;
  let owner: string;
  let stranger: string;
  let admin: string;
  const now = Date.now();
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    // seedLiveRace's races belong to the director 'dir-live'.
    owner = await t.issuer.director('dir-live');
    stranger = await t.issuer.director('someone-else');
    admin = await t.issuer.admin();
    race = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: now - 60 * MIN });
    other = await seedLiveRace(t.app.db, { runners: 1, clockStartMs: now - 60 * MIN, keyPrefix: 'other' });
    const [r1, r2] = race.runners;
    await store(t.app, race.raceId, r1, [
      { t: now - 30 * MIN, km: 2 },
      { t: now - 1 * MIN, km: 5 },
    ]);
    await store(t.app, race.raceId, r2, [{ t: now - 20 * MIN, km: 3 }]);
    // A 10-minute public delay, and runner 2 hides their position.
    const put = await call(t, 'PUT', `/api/director/races/${race.raceId}`, {
      token: owner,
      body: { Name: 'Live Test Race', PublicDelayMin: 10 },
    });
    expect(put.statusCode, put.body).toBe(200);
    const hide = await call(t, 'PUT', `/api/director/runners/${race.raceId}/${r2.runnerId}`, {
      token: owner,
      body: {
        FirstName: `Runner${r2.bib}`,
        LastName: `Test${r2.bib}`,
        BibNumber: r2.bib,
        HidePosition: true,
      },
    });
    expect(hide.statusCode, hide.body).toBe(200);
    // Until the live state was rebuilt with them (expect.poll is for tests only).
    for (let i = 0; ; i++) {
      const p = (await t.app.live.state(race.raceId)).privacy;
      if (p.publicDelayMin === 10 && p.hiddenRunnerIds.has(r2.runnerId)) break;
      if (i > 200) throw new Error('the race was not rebuilt with its privacy settings');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  const ticketUrl = (raceId: number | string) => `/api/director/races/${raceId}/live-ticket`;
  const ticketFor = async (token: string, raceId = race.raceId) => {
    const res = await call(t, 'POST', ticketUrl(raceId), { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ Ticket: string; ExpiresAt: string }>();
  };
  const open = async (query: string, raceId = race.raceId) => {
    const sse = await connectSse(`${base}/api/open/races/${raceId}/live${query}`);
    streams.push(sse);
    return sse;
  };
  const rowIn = (data: string, r: SeededRunner) =>
    (JSON.parse(data) as { Rows: LeaderboardRow[] }).Rows.find((x) => x.RunnerId === r.runnerId)!;

  it('the director gets a ticket valid 60 s; its stream is live while the public’s is delayed and masked', async () => {
    const [r1, r2] = race.runners;
    const before = Date.now();
    const { Ticket, ExpiresAt } = await ticketFor(owner);
    expect(Ticket).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(ExpiresAt)).toBeGreaterThanOrEqual(before + STREAM_TICKET_TTL_MS - 1000);
    expect(Date.parse(ExpiresAt)).toBeLessThanOrEqual(Date.now() + STREAM_TICKET_TTL_MS);

    const pub = await open('');
    const mine = await open(`?ticket=${encodeURIComponent(Ticket)}`);
    expect([pub.status, mine.status]).toEqual([200, 200]);
    const pubSnap = await pub.next((e) => e.event === 'snapshot');
    const liveSnap = await mine.next((e) => e.event === 'snapshot');
    // The public: runner 1 as 10 minutes ago (km 2), runner 2 without a position.
    expect(rowIn(pubSnap.data, r1).DistanceKm).toBeCloseTo(2, 1);
    expect(pubSnap.data).not.toContain(String(now - 1 * MIN));
    expect(rowIn(pubSnap.data, r2).Latitude).toBeNull();
    // The director: live (km 5, the fix a minute old) and runner 2's position.
    expect(rowIn(liveSnap.data, r1).DistanceKm).toBeCloseTo(5, 1);
    expect(liveSnap.data).toContain(String(now - 1 * MIN));
    expect(rowIn(liveSnap.data, r2).Latitude).toBeCloseTo(pointAlong(3000).lat, 5);

    // A new fix of the hidden runner: the director's stream has it at once, the public's never.
    const newest = Date.now() - 500;
    await store(t.app, race.raceId, r2, [{ t: newest, km: 3.5 }]);
    const upd = await mine.next(
      (e) => e.event === 'update' && JSON.parse(e.data).Fixes.some((f: number[]) => f[1] === newest),
      15_000,
    );
    expect(JSON.parse(upd.data).Fixes.find((f: number[]) => f[1] === newest)).toEqual([
      r2.runnerId,
      newest,
      pointAlong(3500).lat,
      pointAlong(3500).lon,
    ]);
    const ticks = t.app.publicView.ticks;
    await expect.poll(() => t.app.publicView.ticks, { timeout: 15_000 }).toBeGreaterThanOrEqual(ticks + 2);
    expect(pub.events.map((e) => e.data).join('')).not.toContain(String(newest));
    // …and the public view's messages never reach the director's stream.
    expect(mine.events.filter((e) => e.event === 'snapshot')).toHaveLength(1);
    pub.close();
    mine.close();
  });

  it('a settings change (the race rebuilt): the director’s stream gets a new live snapshot, the public a public one', async () => {
    const [, r2] = race.runners;
    const { Ticket } = await ticketFor(owner);
    const pub = await open('');
    const mine = await open(`?ticket=${encodeURIComponent(Ticket)}`);
    await pub.next((e) => e.event === 'snapshot');
    await mine.next((e) => e.event === 'snapshot');
    const setTrails = async (TrailsPublic: boolean) => {
      const res = await call(t, 'PUT', `/api/director/races/${race.raceId}`, {
        token: owner,
        body: { Name: 'Live Test Race', TrailsPublic },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await setTrails(false);
    try {
      const live = await mine.next((e) => e.event === 'snapshot', 15_000);
      const trails = (JSON.parse(live.data) as { Trails: { RunnerId: number; Trail: unknown[] }[] }).Trails;
      expect(trails.find((x) => x.RunnerId === r2.runnerId)!.Trail.length).toBeGreaterThan(0);
      expect(rowIn(live.data, r2).Latitude).not.toBeNull();
      const masked = await pub.next((e) => e.event === 'snapshot', 15_000);
      const pubTrails = (JSON.parse(masked.data) as { Trails: { Trail: unknown[] }[] }).Trails;
      expect(pubTrails.every((x) => x.Trail.length === 0)).toBe(true);
      expect(rowIn(masked.data, r2).Latitude).toBeNull();
    } finally {
      await setTrails(true);
      pub.close();
      mine.close();
    }
  });

  it('the compact stream (?v=5) with a ticket is the live compact stream; without, the public view', async () => {
    const { Ticket } = await ticketFor(owner);
    const pub = await open('?v=5');
    const mine = await open(`?v=5&ticket=${encodeURIComponent(Ticket)}`);
    // A private race's public viewers get the public view's `snapshot`; the director the live `snap`.
    expect((await pub.next((e) => e.event === 'snapshot' || e.event === 'snap')).event).toBe('snapshot');
    const snap = await mine.next((e) => e.event === 'snapshot' || e.event === 'snap');
    expect(snap.event).toBe('snap');
    pub.close();
    mine.close();
  });

  it('an admin gets a ticket; another director 404, no token 401, a bad race id 400, an unknown race 404', async () => {
    const { Ticket } = await ticketFor(admin);
    const sse = await open(`?ticket=${encodeURIComponent(Ticket)}`);
    expect(
      rowIn((await sse.next((e) => e.event === 'snapshot')).data, race.runners[0]).DistanceKm,
    ).toBeCloseTo(5, 1);
    sse.close();
    for (const [token, url, status] of [
      [stranger, ticketUrl(race.raceId), 404],
      [undefined, ticketUrl(race.raceId), 401],
      [owner, ticketUrl('abc'), 400],
      [owner, ticketUrl(0), 400],
      [owner, ticketUrl('1e0'), 400],
      [owner, ticketUrl(2_147_483_647), 404],
    ] as const) {
      const res = await call(t, 'POST', url, { token });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
  });

  it('refuses with 401 JSON: an expired ticket, another race’s, a forged or garbled one (no public fallback)', async () => {
    // Another process of the cluster (its own StreamTickets, the same database): its clock 61 s behind.
    const late = await new StreamTickets(t.app.db, () => Date.now() - STREAM_TICKET_TTL_MS - 1000).issue(
      { id: 'dir-live', isAdmin: false },
      race.raceId,
    );
    const forOther = (await ticketFor(owner, other.raceId)).Ticket;
    const good = (await ticketFor(owner)).Ticket;
    const [body, sig] = good.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), u: 'someone-else' }),
    ).toString('base64url');
    for (const [ticket, code] of [
      [late.Ticket, 'ticket_expired'],
      [forOther, 'invalid_ticket'],
      [`${forged}.${sig}`, 'invalid_ticket'],
      [`${body}.${sig.slice(0, -2)}AA`, 'invalid_ticket'],
      ['not-a-ticket', 'invalid_ticket'],
      ['', 'invalid_ticket'],
    ]) {
      for (const v of ['', '&v=5']) {
        const res = await call(
          t,
          'GET',
          `/api/open/races/${race.raceId}/live?ticket=${encodeURIComponent(ticket)}${v}`,
        );
        expect(res.statusCode, ticket).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({ error: code, message: expect.any(String) });
      }
    }
    expect(t.app.live.streamCount()).toBe(0);
    // Another race's ticket works on its own race, and a ticket made by another process works here.
    const onOther = await open(`?ticket=${encodeURIComponent(forOther)}`, other.raceId);
    expect(onOther.status).toBe(200);
    onOther.close();
    const elsewhere = await new StreamTickets(t.app.db).issue(
      { id: 'dir-live', isAdmin: false },
      race.raceId,
    );
    const sse = await open(`?ticket=${encodeURIComponent(elsewhere.Ticket)}`);
    expect(
      rowIn((await sse.next((e) => e.event === 'snapshot')).data, race.runners[0]).DistanceKm,
    ).toBeCloseTo(5, 1);
    sse.close();
  });

  it('a ticket opens one stream only: a second use, here or on another process, is 401 ticket_used (issue 24.11)', async () => {
    const { Ticket } = await ticketFor(owner);
    const first = await open(`?ticket=${encodeURIComponent(Ticket)}&v=5`);
    expect(first.status).toBe(200);
    // Again while the first stream is open, and after it closed (EventSource's own reconnect re-uses the URL).
    for (const when of ['open', 'closed']) {
      if (when === 'closed') first.close();
      const again = await call(
        t,
        'GET',
        `/api/open/races/${race.raceId}/live?ticket=${encodeURIComponent(Ticket)}`,
      );
      expect(again.statusCode, when).toBe(401);
      expect(again.json()).toEqual({ error: 'ticket_used', message: expect.any(String) });
    }
    // Another process (its own StreamTickets, the same database) refuses it too.
    await expect(new StreamTickets(t.app.db).verify(Ticket, race.raceId)).rejects.toMatchObject({
      statusCode: 401,
      code: 'ticket_used',
    });
    // A fresh ticket opens the next stream.
    expect((await open(`?ticket=${encodeURIComponent((await ticketFor(owner)).Ticket)}`)).status).toBe(200);
  });

  it('a ticket longer than any real one is bad input (400); the log never shows a ticket', async () => {
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/live?ticket=${'a'.repeat(1001)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'validation_error', message: expect.stringContaining('ticket') });
    expect(withoutTicket(`/api/open/races/1/live?v=5&ticket=abc.def&lastEventId=x`)).toBe(
      '/api/open/races/1/live?v=5&ticket=[redacted]&lastEventId=x',
    );
    expect(withoutTicket(`/api/open/races/1/live?TICKET=abc`)).toBe(
      '/api/open/races/1/live?TICKET=[redacted]',
    );
  });

  // A second server process needs a database it can reach (PGlite is in this process only).
  if (kind === 'postgres')
    it('a ticket issued by one process opens the live stream on another; neither logs it', async () => {
      const b = await startServerProcess({ DATABASE_URL: t.database.url!, LOG_LEVEL: 'info' });
      try {
        const { Ticket } = await ticketFor(owner);
        const sse = await connectSse(
          `${b.url}/api/open/races/${race.raceId}/live?v=1&ticket=${encodeURIComponent(Ticket)}`,
        );
        streams.push(sse);
        expect(sse.status).toBe(200);
        const snap = await sse.next((e) => e.event === 'snapshot', 20_000);
        expect(rowIn(snap.data, race.runners[0]).DistanceKm).toBeCloseTo(5, 1);
        expect(rowIn(snap.data, race.runners[1]).Latitude).not.toBeNull();
        sse.close();
        const bad = await fetch(
          `${b.url}/api/open/races/${race.raceId}/live?ticket=${Ticket.slice(0, -4)}AAAA`,
        );
        expect(bad.status).toBe(401);
        await expect(bad.json()).resolves.toEqual({ error: 'invalid_ticket', message: expect.any(String) });
        // The request log has the stream's requests, their tickets redacted.
        expect(b.output()).toContain('ticket=[redacted]');
        expect(b.output()).not.toContain(Ticket.split('.')[1]);
        expect(b.output()).not.toContain(Ticket.slice(0, -4));
      } finally {
        await b.stop();
      }
    }, 90_000);

  it('is in the OpenAPI document: the ticket route and the stream’s ticket parameter', async () => {
    const doc = (await call(t, 'GET', '/api/docs/json')).json();
    const route = doc.paths['/api/director/races/{raceId}/live-ticket'].post;
    expect(route.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(route.responses['200'].content['application/json'].schema.properties).sort()).toEqual([
      'ExpiresAt',
      'Ticket',
    ]);
    const live = doc.paths['/api/open/races/{id}/live'].get;
    expect(live.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toContain(
      'query:ticket',
    );
  });
});

describe('stream tickets with the database away (private cluster)', () => {
  let cluster: PrivatePostgres;
  let issuer: TestIssuer;
  let app: FastifyInstance;
  let race: SeededRace;

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    issuer = await startTestIssuer();
    const config = loadConfig({
      OIDC_ISSUER: issuer.url,
      OIDC_AUDIENCE: TEST_AUDIENCE,
      OIDC_CLIENT_ID: 'racebeacon-test-client',
      OIDC_API_SCOPE: TEST_SCOPE,
      ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
      DATABASE_URL: cluster.url(),
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      ALERT_SWEEP_SECONDS: '0',
      PUSH_NOTIFY_SECONDS: '0',
    });
    app = await buildApp({ config, logger: false });
    await app.ready();
    race = await seedLiveRace(app.db, { runners: 1, keyPrefix: 'ticket-outage' });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await issuer?.close();
    await cluster?.destroy();
  });

  it('503 with Retry-After while it is down (key and race unreadable), a ticket again once it is back', async () => {
    const token = await issuer.director('dir-live');
    const ask = () =>
      app.inject({
        method: 'POST',
        url: `/api/director/races/${race.raceId}/live-ticket`,
        headers: { authorization: `Bearer ${token}` },
      });
    await cluster.stop();
    const res = await ask();
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toEqual(expect.any(String));
    expect(res.json()).toEqual({ error: 'database_unavailable', message: expect.any(String) });
    await cluster.start();
    const end = Date.now() + 30_000;
    let again = await ask();
    while (again.statusCode !== 200 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      again = await ask();
    }
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().Ticket).toEqual(expect.any(String));
  }, 90_000);
});
