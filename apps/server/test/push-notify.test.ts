import type { LeaderboardRow, PushPayload, RunnerSplits } from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { pushSubscriptions, races, settings } from '../src/db/schema';
import { PushNotifyJob } from '../src/jobs/push-notify-job';
import { endpointAllowed, parsePushEndpointHosts } from '../src/push/endpoints';
import { raceTime } from '../src/push/notices';
import { VAPID_SETTING } from '../src/push/vapid';
import { waitFor } from './ingest-fixtures';
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
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';
import { startTestPushService, type TestBrowser, type TestPushService } from './support/push-service';

const MIN = 60_000;

/**
 * Web Push to followers, end to end on the server: a browser's subscription (keys made here as a browser makes
 * them) pointed at a local push service; the real notifier job, after a real checkpoint passing (GPS fixes through
 * the live race), a DNF set by the director, a finish and an hour of silence, sends VAPID-signed aes128gcm messages
 * that the push service checks and this test decrypts with the subscription's keys. Each is sent once; a push
 * service's 410 deletes the subscription; a race's public delay delays the message.
 */
describe.each(dbKinds)('Web Push notifications (%s)', (kind) => {
  let t: TestContext;
  let push: TestPushService;
  let race: SeededRace;
  let director: string;
  let clock = 0; // minutes added to the notifier's clock
  let job: PushNotifyJob;
  let b1: TestBrowser, b2: TestBrowser;
  const [A, B, C] = [0, 1, 2];
  const now0 = Date.now();

  const leaderboard = async (raceId = race.raceId) =>
    (await call(t, 'GET', `/api/open/races/${raceId}/leaderboard`)).json<LeaderboardRow[]>();
  const subscribe = (browser: TestBrowser, raceId: number, runnerIds: number[], extra: object = {}) =>
    call(t, 'POST', '/api/open/push/subscriptions', {
      body: { Subscription: browser.subscription, RaceId: raceId, RunnerIds: runnerIds, ...extra },
    });
  const messages = (b: TestBrowser) => b.messages() as PushPayload[];

  beforeAll(async () => {
    push = await startTestPushService();
    t = await createTestApp(kind, { PUSH_ENDPOINT_HOSTS: push.origin, PUSH_NOTIFY_SECONDS: '0' });
    director = await t.issuer.director('dir-live');
    race = await seedLiveRace(t.database.db, {
      runners: 3,
      clockStartMs: now0 - 90 * MIN,
      keyPrefix: `push-${kind}`,
    });
    const start = race.clockStartMs;
    // Before anybody follows: A at 3 km, B at 3 km (last heard 2 min ago), C at 2 km.
    await postFixes(t.app, race.raceId, race.runners[A], [
      { t: start + 10 * MIN, ...pointAlong(1000) },
      { t: now0 - 50 * MIN, ...pointAlong(3000) },
    ]);
    await postFixes(t.app, race.raceId, race.runners[B], [
      { t: start + 10 * MIN, ...pointAlong(1000) },
      { t: now0 - 2 * MIN, ...pointAlong(3000) },
    ]);
    await postFixes(t.app, race.raceId, race.runners[C], [
      { t: start + 10 * MIN, ...pointAlong(1000) },
      { t: now0 - 5 * MIN, ...pointAlong(2000) },
    ]);
    await waitFor(leaderboard, (rows) => rows.every((r) => r.Status !== 'not-started'));
    job = new PushNotifyJob({
      db: t.app.db,
      live: t.app.live,
      log: t.app.log,
      subject: t.config.pushSubject,
      everyMs: 60_000,
      now: () => Date.now() + clock * MIN,
    });
    b1 = push.newBrowser();
    b2 = push.newBrowser();
  });
  afterAll(async () => {
    await t?.close();
    await push?.close();
  });

  it('gives the VAPID public key, made once and kept in the database', async () => {
    const res = await call(t, 'GET', '/api/open/push/key');
    expect(res.statusCode).toBe(200);
    const key = res.json<{ PublicKey: string }>().PublicKey;
    expect(Buffer.from(key, 'base64url')).toHaveLength(65);
    expect((await call(t, 'GET', '/api/open/push/key')).json()).toEqual({ PublicKey: key });
    const [row] = await t.app.db.select().from(settings).where(eq(settings.key, VAPID_SETTING));
    expect((row.value as { publicKey: string }).publicKey).toBe(key);
  });

  it('subscribes a browser per endpoint and race; what the public already saw is not sent', async () => {
    const ids = race.runners.map((r) => r.runnerId);
    const res = await subscribe(b1, race.raceId, [ids[C], ids[A], ids[B], ids[A]]);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      RaceId: race.raceId,
      RunnerIds: [...ids].sort((a, b) => a - b),
      Kinds: ['checkpoint', 'finished', 'dnf', 'no-news'],
      Locale: 'en',
    });
    expect((await subscribe(b2, race.raceId, [ids[B]])).statusCode).toBe(201);
    // Posting again replaces what that browser follows (200).
    const again = await subscribe(b2, race.raceId, [ids[A]]);
    expect(again.statusCode).toBe(200);
    expect(again.json().RunnerIds).toEqual([ids[A]]);
    const rows = await t.app.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.raceId, race.raceId));
    expect(rows.map((r) => [r.endpoint, r.p256dh, r.auth]).sort()).toEqual(
      [
        [b1.endpoint, b1.keys.p256dh, b1.keys.auth],
        [b2.endpoint, b2.keys.p256dh, b2.keys.auth],
      ].sort(),
    );
    await job.runOnce();
    expect(push.received).toHaveLength(0);
  });

  it('tells of a checkpoint passing once, encrypted for each browser and signed with the VAPID key', async () => {
    // A runs on past Aid 1 (5 km): 6 km 30 min before now.
    await postFixes(t.app, race.raceId, race.runners[A], [{ t: now0 - 30 * MIN, ...pointAlong(6000) }]);
    await waitFor(
      leaderboard,
      (rows) => rows.find((r) => r.RunnerId === race.runners[A].runnerId)?.LastCheckpoint === 'Aid 1',
    );
    await job.runOnce();
    await push.waitFor(b1.id, 1);
    await push.waitFor(b2.id, 1);
    const splits = (await call(t, 'GET', `/api/open/races/${race.raceId}/splits`)).json<RunnerSplits[]>();
    const passing = splits.find((s) => s.RunnerId === race.runners[A].runnerId)!.Splits[1];
    const time = raceTime(Date.parse(passing.PassingTime) - race.clockStartMs);
    const expected = {
      kind: 'checkpoint',
      title: 'Runner1 Test1 (bib 1)',
      body: `Runner1 Test1 (bib 1) passed Aid 1 at km 5.0, ${time} into the race.`,
      url: `/race/${race.raceId}/runner/1`,
      tag: `runner-${race.raceId}-${race.runners[A].runnerId}`,
      raceId: race.raceId,
      runnerId: race.runners[A].runnerId,
    };
    expect(messages(b1)).toEqual([expected]);
    expect(messages(b2)).toEqual([expected]);
    // Each browser's message is encrypted for that browser only.
    const toB1 = push.received.find((r) => r.id === b1.id)!;
    expect(() => b2.decrypt(toB1.body)).toThrow();
    const key = (await call(t, 'GET', '/api/open/push/key')).json<{ PublicKey: string }>().PublicKey;
    expect(toB1.vapid).toMatchObject({
      publicKey: key,
      subject: 'mailto:contact@racebeacon.example',
      audience: push.origin,
    });
    expect(toB1.headers.topic).toBe(`r${race.runners[A].runnerId}`);
    // Sent once: the next passes send nothing more, and write nothing.
    const stamps = async () =>
      (await t.app.db.select().from(pushSubscriptions).orderBy(pushSubscriptions.id)).map((r) => [
        r.lastSentAt?.toISOString(),
        r.sentState,
      ]);
    const before = await stamps();
    await job.runOnce();
    await job.runOnce();
    expect(push.received).toHaveLength(2);
    expect(await stamps()).toEqual(before);
  });

  it('tells of a DNF recorded by the director', async () => {
    const res = await call(t, 'PUT', `/api/director/runners/${race.runners[C].runnerId}/status`, {
      token: director,
      body: { Status: 'DNF', Reason: 'Knee' },
    });
    expect(res.statusCode).toBe(200);
    await job.runOnce();
    const [, dnf] = await push.waitFor(b1.id, 2);
    expect(JSON.parse(b1.decrypt(dnf.body))).toMatchObject({
      kind: 'dnf',
      title: 'Runner3 Test3 (bib 3)',
      body: 'Runner3 Test3 (bib 3) did not finish (DNF), recorded at km 2.0.',
    });
    expect(messages(b2)).toHaveLength(1); // b2 follows only A
  });

  it('tells of the finish; a push service answering 410 Gone gets its subscription deleted', async () => {
    push.gone(b2.id);
    await postFixes(t.app, race.raceId, race.runners[A], [{ t: now0 - 3 * MIN, ...pointAlong(10_000) }]);
    const rows = await waitFor(
      leaderboard,
      (r) => r.find((x) => x.RunnerId === race.runners[A].runnerId)?.Status === 'finished',
    );
    const finish = rows.find((x) => x.RunnerId === race.runners[A].runnerId)!.FinishTime!;
    await job.runOnce();
    const got = await push.waitFor(b1.id, 3);
    expect(JSON.parse(b1.decrypt(got[2].body))).toMatchObject({
      kind: 'finished',
      body: `Runner1 Test1 (bib 1) finished in ${raceTime(Date.parse(finish) - race.clockStartMs)}.`,
    });
    const left = await t.app.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.raceId, race.raceId));
    expect(left.map((r) => r.endpoint)).toEqual([b1.endpoint]);
    expect(messages(b2)).toHaveLength(1);
  });

  it('tells of an hour without news, with the honest context, once per silence', async () => {
    // B was last heard 2 min before the start of the test: silent for an hour at +58 min.
    clock = 50;
    await job.runOnce();
    expect(messages(b1)).toHaveLength(3);
    clock = 61;
    await job.runOnce();
    const got = await push.waitFor(b1.id, 4);
    const msg = JSON.parse(b1.decrypt(got[3].body)) as PushPayload;
    expect(msg).toMatchObject({ kind: 'no-news', title: 'No news of Runner2 Test2 (bib 2) for 1 hour' });
    expect(msg.body).toContain('Last heard at km 3.0');
    expect(msg.body).toContain('Satellite trackers are often silent in deep valleys');
    expect(got[3].headers.ttl).toBe('3600');
    // The finished runner A and the DNF runner C are not "silent".
    clock = 120;
    await job.runOnce();
    expect(messages(b1)).toHaveLength(4);
    clock = 0;
  });

  it('sends news only when the public sees it: a race with a public delay', async () => {
    const delayed = await seedLiveRace(t.database.db, {
      runners: 1,
      clockStartMs: now0 - 60 * MIN,
      keyPrefix: `push-delay-${kind}`,
    });
    await t.app.db.update(races).set({ publicDelayMin: 30 }).where(eq(races.id, delayed.raceId));
    const [r] = delayed.runners;
    await postFixes(t.app, delayed.raceId, r, [
      { t: Date.now() - 40 * MIN, ...pointAlong(2000) },
      { t: Date.now() - 20 * MIN, ...pointAlong(4000) },
    ]);
    // The live state (the public leaderboard of this race is itself 30 min late).
    await waitFor(
      () => t.app.live.leaderboard(delayed.raceId, {}),
      (rows) => rows[0].Status !== 'not-started',
    );
    const b3 = push.newBrowser();
    const french = await subscribe(b3, delayed.raceId, [r.runnerId], { Kinds: ['checkpoint'], Locale: 'fr' });
    expect(french.statusCode).toBe(201);
    expect(french.json()).toMatchObject({ Kinds: ['checkpoint'], Locale: 'fr' });
    // Passes Aid 1 about 10 min ago by the fix times, all received now: the passing is public 30 min after its
    // arrival (the delay counts from when the server received it, not from the device's clock), not in 20 min.
    await postFixes(t.app, delayed.raceId, r, [{ t: Date.now(), ...pointAlong(6000) }]);
    await waitFor(
      async () => (await t.app.live.splits(delayed.raceId))[0].Splits.length,
      (n) => n === 2,
    );
    clock = 15;
    await job.runOnce();
    expect(messages(b3)).toHaveLength(0);
    clock = 25;
    await job.runOnce();
    expect(messages(b3)).toHaveLength(0);
    clock = 31;
    await job.runOnce();
    await push.waitFor(b3.id, 1);
    expect(messages(b3)).toMatchObject([
      { kind: 'checkpoint', body: expect.stringContaining('a franchi Aid 1 au km 5,0') },
    ]);
    clock = 0;
  });
  it('deletes the subscriptions of a race whose clock stopped more than 6 h (+ its public delay) ago', async () => {
    const ended = await seedLiveRace(t.database.db, { runners: 1, keyPrefix: `push-ended-${kind}` });
    const b4 = push.newBrowser();
    const follow = () => subscribe(b4, ended.raceId, [ended.runners[0].runnerId]);
    expect((await follow()).statusCode).toBe(201);
    const count = async () =>
      (await t.app.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.raceId, ended.raceId)))
        .length;
    await t.app.db
      .update(races)
      .set({ clockStoppedAt: new Date(Date.now() - 5 * 60 * MIN), publicDelayMin: 30 })
      .where(eq(races.id, ended.raceId));
    await job.runOnce();
    expect(await count()).toBe(1); // 5 h + 30 min: late news may still come
    clock = 100; // 6 h 40 min after the end
    await job.runOnce();
    clock = 0;
    expect(await count()).toBe(0);
    expect(messages(b4)).toEqual([]);
  });
});

describe.each(dbKinds)('push subscriptions: bad input, who may unsubscribe, rate limit (%s)', (kind) => {
  let t: TestContext;
  let push: TestPushService;
  let race: SeededRace;
  let other: SeededRace;
  let b: TestBrowser;
  let n = 0;
  /** Each request from its own address, so the rate limit is only met where the test wants it. */
  const send = (method: 'POST' | 'DELETE', body: unknown, ip = `10.1.0.${++n % 250}`) =>
    t.app.inject({
      method,
      url: '/api/open/push/subscriptions',
      payload: body as object,
      remoteAddress: ip,
    });
  const count = async () => (await t.app.db.select().from(pushSubscriptions)).length;

  beforeAll(async () => {
    push = await startTestPushService();
    t = await createTestApp(kind, { PUSH_ENDPOINT_HOSTS: push.origin, PUSH_NOTIFY_SECONDS: '0' });
    race = await seedLiveRace(t.database.db, { runners: 2, keyPrefix: `pushin-${kind}` });
    other = await seedLiveRace(t.database.db, { runners: 1, keyPrefix: `pushin2-${kind}` });
    b = push.newBrowser();
  });
  afterAll(async () => {
    await t?.close();
    await push?.close();
  });

  it('answers 400 naming the problem, and stores nothing', async () => {
    const ok = { Subscription: b.subscription, RaceId: race.raceId, RunnerIds: [race.runners[0].runnerId] };
    const sub = (s: object) => ({ ...ok, Subscription: { ...b.subscription, ...s } });
    const keys = (k: object) => sub({ keys: { ...b.keys, ...k } });
    const cases: [string, unknown, string][] = [
      ['no body', undefined, ''],
      ['no Subscription', { RaceId: race.raceId, RunnerIds: [1] }, 'Subscription'],
      ['endpoint not a URL', sub({ endpoint: 'push-me' }), 'endpoint'],
      [
        'endpoint of a push service not allowed',
        sub({ endpoint: 'https://evil.example/push/1' }),
        'PUSH_ENDPOINT_HOSTS',
      ],
      ['an internal address', sub({ endpoint: 'http://127.0.0.1:1/push/1' }), 'PUSH_ENDPOINT_HOSTS'],
      ['p256dh too short', keys({ p256dh: b.keys.p256dh.slice(0, 40) }), 'p256dh'],
      ['p256dh not on the curve', keys({ p256dh: Buffer.alloc(65, 4).toString('base64url') }), 'p256dh'],
      ['auth too long', keys({ auth: Buffer.alloc(32, 1).toString('base64url') }), 'auth'],
      ['RunnerIds empty', { ...ok, RunnerIds: [] }, 'RunnerIds'],
      ['RunnerIds over 50', { ...ok, RunnerIds: Array.from({ length: 51 }, (_, i) => i + 1) }, 'RunnerIds'],
      ['RunnerIds not ids', { ...ok, RunnerIds: ['1'] }, 'RunnerIds'],
      ['a runner of another race', { ...ok, RunnerIds: [other.runners[0].runnerId] }, 'RunnerIds'],
      ['an unknown kind', { ...ok, Kinds: ['gossip'] }, 'Kinds'],
      ['an unknown language', { ...ok, Locale: 'tlh' }, 'Locale'],
      ['RaceId missing', { ...ok, RaceId: undefined }, 'RaceId'],
    ];
    for (const [name, body, names] of cases) {
      const res = await send('POST', body);
      expect(res.statusCode, name).toBe(400);
      const err = res.json<{ error: string; message: string }>();
      expect(err.error, name).toEqual(expect.any(String));
      expect(err.message, name).toContain(names);
    }
    expect(await count()).toBe(0);
    // A race that does not exist or is not public: 404.
    expect((await send('POST', { ...ok, RaceId: 2147483647 })).statusCode).toBe(404);
    const hidden = await seedLiveRace(t.database.db, {
      runners: 1,
      approved: false,
      keyPrefix: `pushin3-${kind}`,
    });
    const res = await send('POST', { ...ok, RaceId: hidden.raceId, RunnerIds: [hidden.runners[0].runnerId] });
    expect(res.statusCode).toBe(404);
    expect(await count()).toBe(0);
    // DELETE: a bad body.
    expect((await send('DELETE', { Endpoint: 'x' })).statusCode).toBe(400);
    expect((await send('DELETE', {})).statusCode).toBe(400);
  });

  it('deletes only with the endpoint: nobody can unsubscribe another browser', async () => {
    const c = push.newBrowser();
    for (const who of [b, c])
      expect(
        (
          await send('POST', {
            Subscription: who.subscription,
            RaceId: race.raceId,
            RunnerIds: [race.runners[1].runnerId],
          })
        ).statusCode,
      ).toBe(201);
    expect(
      (
        await send('POST', {
          Subscription: b.subscription,
          RaceId: other.raceId,
          RunnerIds: [other.runners[0].runnerId],
        })
      ).statusCode,
    ).toBe(201);
    // Guessing: another id at the same push service, or the endpoint with a different case.
    for (const Endpoint of [
      `${push.origin}/push/someone-else`,
      b.endpoint.toUpperCase().replace('HTTP', 'http'),
    ]) {
      const res = await send('DELETE', { Endpoint });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('subscription_not_found');
    }
    expect(await count()).toBe(3);
    // One race of this endpoint, then the rest.
    expect((await send('DELETE', { Endpoint: b.endpoint, RaceId: other.raceId })).statusCode).toBe(204);
    expect(await count()).toBe(2);
    expect((await send('DELETE', { Endpoint: b.endpoint })).statusCode).toBe(204);
    const left = await t.app.db.select().from(pushSubscriptions);
    expect(left.map((r) => r.endpoint)).toEqual([c.endpoint]);
    expect((await send('DELETE', { Endpoint: b.endpoint })).statusCode).toBe(404);
  });

  it('limits subscription changes per address (429 with Retry-After), malformed ones included', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 22; i++)
      codes.push((await send('DELETE', { Endpoint: 'nope' }, '10.9.9.9')).statusCode);
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(codes.slice(20)).toEqual([429, 429]);
    const res = await send(
      'POST',
      { Subscription: b.subscription, RaceId: race.raceId, RunnerIds: [1] },
      '10.9.9.9',
    );
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('6');
    expect(res.json().error).toBe('rate_limited');
    // Another address is not affected.
    expect((await send('DELETE', { Endpoint: 'nope' }, '10.9.9.10')).statusCode).toBe(400);
  });

  it('counts an IPv6 client by its /64, like every per-client limit (issue 24.7)', async () => {
    // 22 changes from 22 addresses of one /64: the /64's allowance (20) is spent, as the stream caps count it.
    const codes: number[] = [];
    for (let i = 1; i <= 22; i++)
      codes.push((await send('DELETE', { Endpoint: 'nope' }, `2001:db8:77:1::${i.toString(16)}`)).statusCode);
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(codes.slice(20)).toEqual([429, 429]);
    expect((await send('DELETE', { Endpoint: 'nope' }, '2001:db8:77:1:ffff::9')).statusCode).toBe(429);
    // Another /64 is another client.
    expect((await send('DELETE', { Endpoint: 'nope' }, '2001:db8:77:2::1')).statusCode).toBe(400);
  });
});

describe('push subscriptions with the database away', () => {
  let cluster: PrivatePostgres;
  let issuer: TestIssuer;
  let app: FastifyInstance;
  let push: TestPushService;
  let race: SeededRace;

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    issuer = await startTestIssuer();
    push = await startTestPushService();
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
      PUSH_ENDPOINT_HOSTS: push.origin,
    });
    app = await buildApp({ config, logger: false });
    await app.ready();
    race = await seedLiveRace(app.db, { runners: 1, keyPrefix: 'push-outage' });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await issuer?.close();
    await push?.close();
    await cluster?.destroy();
  });

  it('answers 503 with Retry-After (the key not made yet, subscribe, unsubscribe), and works again after', async () => {
    const b = push.newBrowser();
    const body = { Subscription: b.subscription, RaceId: race.raceId, RunnerIds: [race.runners[0].runnerId] };
    await cluster.stop();
    const answers = [
      await app.inject({ method: 'GET', url: '/api/open/push/key' }),
      await app.inject({ method: 'POST', url: '/api/open/push/subscriptions', payload: body }),
      await app.inject({
        method: 'DELETE',
        url: '/api/open/push/subscriptions',
        payload: { Endpoint: b.endpoint },
      }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toEqual(expect.any(String));
      expect(res.json().error).toEqual(expect.any(String));
    }
    await cluster.start();
    const key = await waitFor(
      () => app.inject({ method: 'GET', url: '/api/open/push/key' }),
      (r) => r.statusCode === 200,
      30_000,
    );
    expect(key.json().PublicKey).toEqual(expect.any(String));
    const sub = await app.inject({ method: 'POST', url: '/api/open/push/subscriptions', payload: body });
    expect(sub.statusCode).toBe(201);
  });
});

describe('push configuration', () => {
  it('sends only to the listed push services: https hosts and their subdomains, or exact origins', () => {
    const rules = parsePushEndpointHosts(undefined);
    expect(endpointAllowed(rules, 'https://fcm.googleapis.com/fcm/send/abc')).toBe(true);
    expect(endpointAllowed(rules, 'https://updates.push.services.mozilla.com/wpush/v2/x')).toBe(true);
    expect(endpointAllowed(rules, 'https://wns2-par02p.notify.windows.com/w/?token=x')).toBe(true);
    expect(endpointAllowed(rules, 'http://fcm.googleapis.com/fcm/send/abc')).toBe(false);
    expect(endpointAllowed(rules, 'https://fcm.googleapis.com:8443/x')).toBe(false);
    expect(endpointAllowed(rules, 'https://evilfcm.googleapis.com.example/x')).toBe(false);
    expect(endpointAllowed(rules, 'https://user:pw@fcm.googleapis.com/x')).toBe(false);
    expect(endpointAllowed(rules, 'https://169.254.169.254/latest')).toBe(false);
    const own = parsePushEndpointHosts('push.example.org, http://127.0.0.1:8123');
    expect(endpointAllowed(own, 'https://eu.push.example.org/s/1')).toBe(true);
    expect(endpointAllowed(own, 'http://127.0.0.1:8123/push/1')).toBe(true);
    expect(endpointAllowed(own, 'http://127.0.0.1:8124/push/1')).toBe(false);
    expect(endpointAllowed(own, 'https://fcm.googleapis.com/fcm/send/abc')).toBe(false);
  });

  it('stops at boot naming a bad PUSH_SUBJECT, PUSH_ENDPOINT_HOSTS or PUSH_NOTIFY_SECONDS', () => {
    expect(() => loadConfig({ PUSH_SUBJECT: 'me@example.org' })).toThrow(/PUSH_SUBJECT: must be a mailto:/);
    expect(() => loadConfig({ PUSH_ENDPOINT_HOSTS: 'ftp://x.example' })).toThrow(/PUSH_ENDPOINT_HOSTS/);
    expect(() => loadConfig({ PUSH_ENDPOINT_HOSTS: 'https://x.example/path' })).toThrow(
      /PUSH_ENDPOINT_HOSTS/,
    );
    expect(() => loadConfig({ PUSH_ENDPOINT_HOSTS: 'not a host!' })).toThrow(/PUSH_ENDPOINT_HOSTS/);
    expect(() => loadConfig({ PUSH_NOTIFY_SECONDS: '0.5' })).toThrow(/PUSH_NOTIFY_SECONDS/);
    expect(loadConfig({}).pushSubject).toBe('mailto:contact@racebeacon.example');
    expect(loadConfig({ PUSH_SUBJECT: 'https://race.example.org' }).pushSubject).toBe(
      'https://race.example.org',
    );
  });
});
