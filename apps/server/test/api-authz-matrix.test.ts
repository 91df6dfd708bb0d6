import { createECDH, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { asc } from 'drizzle-orm';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpoints,
  courses,
  deviceAssignments,
  devices,
  races,
  runners,
  runnerStatusLog,
} from '../src/db/schema';
import { checkinEntries, checkinLinks } from '../src/db/schema-race-ops';
import apiRoutes from '../src/rest-api';
import { createTestApp, type TestContext } from './support/app';
import { call, createRace, multipartFile, type CallOptions } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';
import { TEST_ADMIN_GROUP } from './support/issuer';

/**
 * Every endpoint × every kind of caller → expected status. Denied calls (4xx) must leave the database exactly as it
 * was. The three bad tokens are made for the owner *with* the admin group, so only the token's validity can deny.
 */
const PRINCIPALS = [
  'anonymous',
  'expired',
  'foreignKey',
  'wrongAudience',
  'other',
  'admin',
  'owner',
] as const;
type Principal = (typeof PRINCIPALS)[number];

type Expect = Partial<Record<Principal, number>>;
const BAD_TOKENS: Expect = { expired: 401, foreignKey: 401, wrongAudience: 401 };
/** Anyone (valid or no token). */
const open = (ok = 200): Expect => ({ ...BAD_TOKENS, anonymous: ok, other: ok, admin: ok, owner: ok });
/** Director call on the owner's race: strangers (admins included) see 404. */
const ownerOnly = (ok = 200): Expect => ({
  ...BAD_TOKENS,
  anonymous: 401,
  other: 404,
  admin: 404,
  owner: ok,
});
/** Race HQ: the race's director and admins; another director sees 404. */
const ownerOrAdmin = (ok = 200): Expect => ({
  ...BAD_TOKENS,
  anonymous: 401,
  other: 404,
  admin: ok,
  owner: ok,
});
/** Director call on the caller's own things: any signed-in user. */
const signedIn = (ok = 200): Expect => ({ ...BAD_TOKENS, anonymous: 401, other: ok, admin: ok, owner: ok });
const adminOnly = (ok = 200): Expect => ({
  ...BAD_TOKENS,
  anonymous: 401,
  other: 403,
  admin: ok,
  owner: 403,
});

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: () => string;
  body?: () => CallOptions;
  expect: Expect;
  /** The route as registered, when its parameter is not a numeric id (e.g. a check-in token). */
  route?: string;
  /**
   * A Server-Sent Events stream (it never ends, so app.inject cannot hold it): called over real HTTP, a 200 must be
   * `text/event-stream` with its first event, then the connection is aborted.
   */
  stream?: true;
}

describe.each(dbKinds)('authorization matrix (%s)', (kind) => {
  let t: TestContext;
  const tokens = {} as Record<Principal, string | undefined>;
  // fixture ids
  let A: number; // approved race of the owner
  let U: number; // unapproved race of the owner
  let r1: number; // runner without a device
  let r2: number; // runner to delete
  let d1: number; // device in race A, not held
  let d2: number; // free device
  let d3: number; // device to delete
  let dC: number; // a runner's own inReach waiting for proof of possession (its claim is approved)
  let courseId: number;
  let cpId: number; // a checkpoint of race A
  let rT: number; // a runner whose own tracker is attached and detached
  let checkinToken: string; // a check-in link's token (race A, checkpoint cpId)
  let linkId: number; // a check-in link to revoke
  let base: string | undefined; // the app over real HTTP, for the stream cases

  /** A stream case's call: the status and, for a refusal, its JSON body; a 200 is checked, then aborted. */
  const callStream = async (url: string, token: string | undefined) => {
    if (!base) {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    }
    const abort = new AbortController();
    const res = await fetch(`${base}${url}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: abort.signal,
    });
    try {
      if (res.status !== 200) {
        // A refused stream closes its connection (no idle connection per retrying client).
        expect(res.headers.get('connection')).toBe('close');
        return { statusCode: res.status, body: await res.text() };
      }
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      // The first event, the current alerts, comes before any change.
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('event: alerts\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text).toContain('event: alerts\n');
      return { statusCode: res.status, body: '' };
    } finally {
      abort.abort();
    }
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    tokens.anonymous = undefined;
    tokens.owner = await t.issuer.director('owner-1');
    tokens.other = await t.issuer.director('other-2');
    tokens.admin = await t.issuer.admin('admin-3');
    const ownerAsAdmin = { oid: 'owner-1', groups: [TEST_ADMIN_GROUP] };
    tokens.expired = await t.issuer.sign({ ...ownerAsAdmin, expiresIn: -300 });
    tokens.foreignKey = await t.issuer.sign({ ...ownerAsAdmin, foreignKey: true });
    tokens.wrongAudience = await t.issuer.sign({ ...ownerAsAdmin, aud: 'api://someone-else' });

    A = await createRace(
      t,
      tokens.owner,
      { Name: 'Approved A' },
      { approve: true, adminToken: tokens.admin },
    );
    U = await createRace(t, tokens.owner, { Name: 'Unapproved U' });
    const addRunner = async (FirstName: string) =>
      (
        await call(t, 'POST', `/api/director/runners/${A}`, {
          token: tokens.owner,
          body: { FirstName, LastName: 'R' },
        })
      ).json().RunnerId as number;
    r1 = await addRunner('One');
    r2 = await addRunner('Two');
    rT = await addRunner('Tracker');
    const { payload, headers } = multipartFile(gpxFixture('gpx10-track.gpx'));
    courseId = (
      await call(t, 'POST', `/api/director/course/${A}`, { token: tokens.owner, payload, headers })
    ).json().CourseId;
    const newDevice = async (Name: string) =>
      (await call(t, 'POST', '/api/admin/devices', { token: tokens.admin, body: { Name } })).json()
        .DeviceId as number;
    cpId = (await call(t, 'GET', `/api/director/races/${A}/checkpoints`, { token: tokens.owner })).json()[1]
      .CheckpointId;
    d1 = await newDevice('D1');
    d2 = await newDevice('D2');
    d3 = await newDevice('D3');
    await call(t, 'PUT', `/api/admin/devices/${d1}/assign-race/${A}`, { token: tokens.admin });
    dC = (
      await call(t, 'POST', `/api/director/runners/${await addRunner('Claim')}/tracker`, {
        token: tokens.owner,
        body: { Source: 'inreach', HardwareId: '300434060999002' },
      })
    ).json().DeviceId;
    await call(t, 'POST', `/api/director/runners/${A}`, {
      token: tokens.owner,
      body: { FirstName: 'Bib', LastName: 'Seven', BibNumber: '7' },
    });
    const newLink = async () =>
      (
        await call(t, 'POST', `/api/director/races/${A}/checkpoints/${cpId}/checkin-links`, {
          token: tokens.owner,
        })
      ).json();
    checkinToken = (await newLink()).Url.replace('/checkin/', '');
    linkId = (await newLink()).LinkId;
  });
  afterAll(async () => t?.close());

  async function snapshot(): Promise<string> {
    const db = t.database.db;
    return JSON.stringify([
      await db.select().from(races).orderBy(asc(races.id)),
      await db.select().from(runners).orderBy(asc(runners.id)),
      await db.select().from(courses).orderBy(asc(courses.id)),
      await db.select().from(devices).orderBy(asc(devices.id)),
      await db.select().from(deviceAssignments).orderBy(asc(deviceAssignments.id)),
      await db.select().from(checkpoints).orderBy(asc(checkpoints.id)),
      await db.select().from(runnerStatusLog).orderBy(asc(runnerStatusLog.id)),
      await db.select().from(checkinLinks).orderBy(asc(checkinLinks.id)),
      await db.select().from(checkinEntries).orderBy(asc(checkinEntries.id)),
    ]);
  }

  const gpxUpload = (): CallOptions => multipartFile(gpxFixture('route-only.gpx'));
  const json = (body: unknown) => (): CallOptions => ({ body });

  // In execution order: reads, then changes, destructive ones last (each allowed call must still be possible).
  const cases: Case[] = [
    { name: 'list races', method: 'GET', url: () => '/api/open/races', expect: open() },
    { name: 'not-started races', method: 'GET', url: () => '/api/open/races/not-started', expect: open() },
    { name: 'public race', method: 'GET', url: () => `/api/open/races/${A}`, expect: open() },
    {
      name: 'public unapproved race',
      method: 'GET',
      url: () => `/api/open/races/${U}`,
      expect: open(404),
    },
    { name: 'replay', method: 'GET', url: () => `/api/open/races/${A}/replay`, expect: open() },
    {
      name: 'replay, unapproved',
      method: 'GET',
      url: () => `/api/open/races/${U}/replay`,
      expect: open(404),
    },
    { name: 'race flow', method: 'GET', url: () => `/api/open/races/${A}/flow`, expect: open() },
    {
      name: 'race flow, unapproved',
      method: 'GET',
      url: () => `/api/open/races/${U}/flow`,
      expect: open(404),
    },
    { name: 'public runners', method: 'GET', url: () => `/api/open/runners/${A}`, expect: open() },
    { name: 'public course', method: 'GET', url: () => `/api/open/course/${A}`, expect: open() },
    // Web Push (push/): no account; the subscription's endpoint is its only credential.
    { name: 'push key', method: 'GET', url: () => '/api/open/push/key', expect: open() },
    {
      name: 'push subscribe (a browser of its own per call)',
      method: 'POST',
      url: () => '/api/open/push/subscriptions',
      body: () => {
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        const endpoint = `https://fcm.googleapis.com/fcm/send/matrix-${randomBytes(8).toString('hex')}`;
        const keys = { p256dh: ecdh.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') };
        return { body: { Subscription: { endpoint, keys }, RaceId: A, RunnerIds: [r1] } };
      },
      expect: open(201),
    },
    {
      name: 'push unsubscribe of an endpoint not known',
      method: 'DELETE',
      url: () => '/api/open/push/subscriptions',
      body: json({ Endpoint: 'https://fcm.googleapis.com/fcm/send/nobody' }),
      expect: open(404),
    },
    { name: 'course map page', method: 'GET', url: () => `/courses/${A}/map`, expect: open() },
    // Issue 15: the text view is as public as the race: anyone for an approved one, nobody (404) before approval.
    { name: 'race text view', method: 'GET', url: () => `/race/${A}/text`, expect: open() },
    { name: 'race text view, unapproved', method: 'GET', url: () => `/race/${U}/text`, expect: open(404) },
    {
      name: 'course GeoJSON',
      method: 'GET',
      url: () => `/api/open/course/${A}/course.geojson`,
      expect: open(),
    },
    { name: 'course GPX', method: 'GET', url: () => `/api/open/course/${A}/course.gpx`, expect: open() },
    { name: 'my races', method: 'GET', url: () => '/api/director/races', expect: signedIn() },
    { name: 'director race', method: 'GET', url: () => `/api/director/races/${A}`, expect: ownerOnly() },
    {
      name: 'create race',
      method: 'POST',
      url: () => '/api/director/races',
      body: json({ Name: 'Matrix race' }),
      expect: signedIn(201),
    },
    {
      name: 'update race',
      method: 'PUT',
      url: () => `/api/director/races/${A}`,
      body: json({ Name: 'Approved A (edited)' }),
      expect: ownerOnly(),
    },
    { name: 'director runners', method: 'GET', url: () => `/api/director/runners/${A}`, expect: ownerOnly() },
    {
      name: 'import runners (CSV)',
      method: 'POST',
      url: () => `/api/director/runners/${A}/import`,
      body: () => ({
        payload: 'bib,first name,last name\nM1,Matrix,Import\n',
        headers: { 'content-type': 'text/csv' },
      }),
      expect: ownerOrAdmin(),
    },
    {
      name: 'export runners (CSV)',
      method: 'GET',
      url: () => `/api/director/runners/${A}/export.csv`,
      expect: ownerOrAdmin(),
    },
    { name: 'results CSV', method: 'GET', url: () => `/api/open/races/${A}/results.csv`, expect: open() },
    {
      name: 'results CSV of an unapproved race',
      method: 'GET',
      url: () => `/api/open/races/${U}/results.csv`,
      expect: open(404),
    },
    {
      name: 'runner track GPX',
      method: 'GET',
      url: () => `/api/open/races/${A}/runners/${r1}/track.gpx`,
      expect: open(),
    },
    {
      name: 'add runner',
      method: 'POST',
      url: () => `/api/director/runners/${A}`,
      body: json({ FirstName: 'New', LastName: 'Runner' }),
      expect: ownerOnly(201),
    },
    {
      name: 'update runner',
      method: 'PUT',
      url: () => `/api/director/runners/${A}/${r1}`,
      body: json({ FirstName: 'One', LastName: 'Edited' }),
      expect: ownerOnly(),
    },
    {
      name: 'delete runner',
      method: 'DELETE',
      url: () => `/api/director/runners/${A}/${r2}`,
      expect: ownerOnly(),
    },
    {
      name: 'public checkpoints',
      method: 'GET',
      url: () => `/api/open/races/${A}/checkpoints`,
      expect: open(),
    },
    {
      name: 'director checkpoints',
      method: 'GET',
      url: () => `/api/director/races/${A}/checkpoints`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'set checkpoint cutoff',
      method: 'PUT',
      url: () => `/api/director/races/${A}/checkpoints/${cpId}`,
      body: json({ CutoffTime: '2026-06-01T12:00:00Z' }),
      expect: ownerOrAdmin(),
    },
    {
      name: 'set runner status',
      method: 'PUT',
      url: () => `/api/director/runners/${r1}/status`,
      body: json({ Status: 'DNF', Reason: 'Matrix' }),
      expect: ownerOrAdmin(),
    },
    {
      name: 'runner status log',
      method: 'GET',
      url: () => `/api/director/runners/${A}/status-log`,
      expect: ownerOrAdmin(),
    },
    {
      // The admin attaches first; the owner then finds the runner holding it (409, nothing written).
      name: 'attach runner tracker',
      method: 'POST',
      url: () => `/api/director/runners/${rT}/tracker`,
      body: json({ Source: 'inreach', HardwareId: '300434060999001' }),
      expect: { ...ownerOrAdmin(201), owner: 409 },
    },
    {
      name: 'runner tracker check',
      method: 'GET',
      url: () => `/api/director/runners/${rT}/tracker`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'detach runner tracker',
      method: 'DELETE',
      url: () => `/api/director/runners/${rT}/tracker`,
      expect: { ...ownerOrAdmin(), owner: 404 },
    },
    { name: 'director course', method: 'GET', url: () => `/api/director/course/${A}`, expect: ownerOnly() },
    {
      name: 'create check-in link',
      method: 'POST',
      url: () => `/api/director/races/${A}/checkpoints/${cpId}/checkin-links`,
      body: json({ Label: 'Matrix' }),
      expect: ownerOrAdmin(201),
    },
    {
      name: 'check-in links',
      method: 'GET',
      url: () => `/api/director/races/${A}/checkin-links`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'revoke check-in link',
      method: 'DELETE',
      url: () => `/api/director/races/${A}/checkin-links/${linkId}`,
      expect: ownerOrAdmin(),
    },
    // Registered by the live plugin (live/stream-ticket.ts), not apiRoutes: the director's live stream on the race page.
    {
      name: 'live stream ticket',
      method: 'POST',
      url: () => `/api/director/races/${A}/live-ticket`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'volunteer check-in page (the token is the credential)',
      method: 'GET',
      url: () => `/api/checkin/${checkinToken}`,
      route: 'GET /api/checkin/:n',
      expect: open(),
    },
    {
      name: 'volunteer check-in (a repeat gets the first answer)',
      method: 'POST',
      url: () => `/api/checkin/${checkinToken}`,
      route: 'POST /api/checkin/:n',
      body: json({
        EntryId: 'matrix-entry-0001',
        BibNumber: '7',
        Kind: 'in',
        Time: new Date(Date.now() - 60_000).toISOString(),
      }),
      expect: open(201),
    },
    {
      name: 'volunteer check-in page of an unknown link',
      method: 'GET',
      url: () => `/api/checkin/${'x'.repeat(32)}`,
      route: 'GET /api/checkin/:n',
      expect: open(401),
    },
    {
      name: 'upload course',
      method: 'POST',
      url: () => `/api/director/course/${A}`,
      body: gpxUpload,
      expect: ownerOnly(201),
    },
    {
      name: 'race alerts',
      method: 'GET',
      url: () => `/api/director/races/${A}/alerts?state=open`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'race alert log',
      method: 'GET',
      url: () => `/api/director/races/${A}/alerts/log`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'race alert settings',
      method: 'GET',
      url: () => `/api/director/races/${A}/alert-settings`,
      expect: ownerOrAdmin(),
    },
    {
      name: 'set race alert settings',
      method: 'PUT',
      url: () => `/api/director/races/${A}/alert-settings`,
      body: json({ NoMovementMinutes: 45 }),
      expect: ownerOrAdmin(),
    },
    {
      name: 'acknowledge an unknown alert',
      method: 'POST',
      url: () => '/api/director/alerts/2147483647/acknowledge',
      body: json({ Note: 'x' }),
      expect: { ...ownerOrAdmin(404) },
    },
    { name: 'all alerts', method: 'GET', url: () => '/api/admin/alerts', expect: adminOnly() },
    // Registered by the alerts plugin, not apiRoutes: the HQ streams (SSE, called over real HTTP).
    {
      name: 'race HQ alert stream',
      method: 'GET',
      url: () => `/api/director/races/${A}/alerts/stream`,
      stream: true,
      expect: ownerOrAdmin(),
    },
    {
      name: "admins' alert stream",
      method: 'GET',
      url: () => '/api/admin/alerts/stream',
      stream: true,
      expect: adminOnly(),
    },
    {
      name: 'available devices',
      method: 'GET',
      url: () => `/api/director/devices/race/${A}/available`,
      expect: ownerOnly(),
    },
    {
      name: 'assign device to runner',
      method: 'PUT',
      url: () => `/api/director/devices/${d1}/race/${A}/assign-runner/${r1}`,
      expect: ownerOnly(),
    },
    {
      name: 'unassign device from runner',
      method: 'PUT',
      url: () => `/api/director/devices/${d1}/race/${A}/unassign`,
      expect: ownerOnly(),
    },
    { name: 'list devices', method: 'GET', url: () => '/api/admin/devices', expect: adminOnly() },
    {
      name: 'create device',
      method: 'POST',
      url: () => '/api/admin/devices',
      body: json({ Name: 'Matrix device' }),
      expect: adminOnly(201),
    },
    {
      name: 'edit device',
      method: 'PUT',
      url: () => `/api/admin/devices/${d2}`,
      body: json({ Name: 'D2 renamed' }),
      expect: adminOnly(),
    },
    {
      name: 'rotate key',
      method: 'POST',
      url: () => `/api/admin/devices/${d2}/rotate-key`,
      expect: adminOnly(),
    },
    {
      name: 'approve own tracker claim',
      method: 'POST',
      url: () => `/api/admin/devices/${dC}/approve-claim`,
      expect: adminOnly(),
    },
    {
      name: 'assign device to race',
      method: 'PUT',
      url: () => `/api/admin/devices/${d2}/assign-race/${A}`,
      expect: adminOnly(),
    },
    {
      name: 'unassign device from race',
      method: 'PUT',
      url: () => `/api/admin/devices/${d2}/unassign`,
      expect: adminOnly(),
    },
    { name: 'delete device', method: 'DELETE', url: () => `/api/admin/devices/${d3}`, expect: adminOnly() },
    { name: 'race requests', method: 'GET', url: () => '/api/admin/requests', expect: adminOnly() },
    {
      name: 'race request detail',
      method: 'GET',
      url: () => `/api/admin/requests/${U}`,
      expect: adminOnly(),
    },
    {
      name: 'approve race',
      method: 'POST',
      url: () => `/api/admin/requests/approve/${U}`,
      expect: adminOnly(),
    },
    { name: 'start race', method: 'PUT', url: () => `/api/director/races/start/${A}`, expect: ownerOnly() },
    { name: 'end race', method: 'PUT', url: () => `/api/director/races/end/${A}`, expect: ownerOnly() },
    {
      name: 'delete course',
      method: 'DELETE',
      url: () => `/api/director/course/${A}/${courseId}`,
      expect: ownerOnly(),
    },
    { name: 'delete race', method: 'DELETE', url: () => `/api/director/races/${A}`, expect: ownerOnly() },
  ];

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const actual: Expect = {};
    const changedByDenied: Principal[] = [];
    for (const p of PRINCIPALS) {
      if (c.expect[p] === undefined) continue;
      if (c.name === 'delete course') {
        // the upload case replaced the course: delete the current one
        courseId = (await call(t, 'GET', `/api/director/course/${A}`, { token: tokens.owner })).json()
          .CourseId;
      }
      const before = await snapshot();
      const res = c.stream
        ? await callStream(c.url(), tokens[p])
        : await call(t, c.method, c.url(), { token: tokens[p], ...c.body?.() });
      actual[p] = res.statusCode;
      if (res.statusCode >= 400) {
        expect(JSON.parse(res.body)).toEqual({ error: expect.any(String), message: expect.any(String) });
        if ((await snapshot()) !== before) changedByDenied.push(p);
      }
      if (p !== 'admin' && !c.url().startsWith('/api/admin')) expect(res.body).not.toContain('TrackingKey');
    }
    expect(actual).toEqual(c.expect);
    expect(changedByDenied).toEqual([]);
  });

  it('covers every route of the API plugin', async () => {
    // Collect exactly the routes apiRoutes registers, on a bare instance (other features have their own tests).
    const bare = Fastify();
    bare.setValidatorCompiler(validatorCompiler);
    bare.setSerializerCompiler(serializerCompiler);
    const registered: string[] = [];
    bare.addHook('onRoute', (r) => {
      for (const m of [r.method].flat())
        if (m !== 'HEAD') registered.push(`${m} ${r.url.replace(/:[A-Za-z]+/g, ':n')}`);
    });
    bare.decorate('config', t.config);
    bare.decorate('db', t.database.db);
    await bare.register(apiRoutes);
    await bare.ready();
    await bare.close();
    const tested = new Set(cases.map((c) => c.route ?? `${c.method} ${c.url().replace(/\/\d+/g, '/:n')}`));
    expect(registered.length).toBeGreaterThanOrEqual(30);
    expect(registered.filter((r) => !tested.has(r))).toEqual([]);
  });
});
