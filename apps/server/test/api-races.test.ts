import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, pathOf, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';

describe.each(dbKinds)('races API (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  it('creates an unapproved race owned by the caller, ignoring Approved/HasStarted/HasFinished/DirectorId', async () => {
    const res = await call(t, 'POST', '/api/director/races', {
      token: alice,
      body: {
        Name: '  Spring Marathon ',
        Description: '42 km',
        Location: 'Lausanne',
        StartTime: '2030-04-12T08:00:00+02:00',
        Approved: true,
        HasStarted: true,
        HasFinished: true,
        DirectorId: 'mallory',
      },
    });
    expect(res.statusCode).toBe(201);
    const race = res.json();
    expect(race).toMatchObject({
      Name: 'Spring Marathon',
      Description: '42 km',
      Location: 'Lausanne',
      StartTime: '2030-04-12T06:00:00.000Z',
      HasStarted: false,
      HasFinished: false,
      Approved: false,
      DirectorId: 'alice',
    });
    expect(Number.isInteger(race.RaceId)).toBe(true);
  });

  it('defaults optional fields', async () => {
    const res = await call(t, 'POST', '/api/director/races', { token: alice, body: { Name: 'Bare' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Description: '', Location: '', StartTime: null });
  });

  it('lists only the caller’s races and reads one of them', async () => {
    const bobs = await createRace(t, bob, { Name: 'Bob race' });
    const mine = await call(t, 'GET', '/api/director/races', { token: alice });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().map((r: { DirectorId: string }) => r.DirectorId)).toEqual(
      expect.arrayContaining(['alice']),
    );
    expect(mine.json().some((r: { RaceId: number }) => r.RaceId === bobs)).toBe(false);
    expect((await call(t, 'GET', `/api/director/races/${bobs}`, { token: bob })).json().Name).toBe(
      'Bob race',
    );
    const other = await call(t, 'GET', `/api/director/races/${bobs}`, { token: alice });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ error: 'not_found' });
  });

  it('updates with a full body and returns the updated race; another director gets 404 and nothing changes', async () => {
    const id = await createRace(t, alice, { Name: 'Old', Location: 'Here' });
    const res = await call(t, 'PUT', `/api/director/races/${id}`, {
      token: alice,
      body: {
        Name: 'New',
        Description: 'D',
        Location: 'There',
        StartTime: null,
        Approved: true,
        DirectorId: 'bob',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      RaceId: id,
      Name: 'New',
      Location: 'There',
      Approved: false,
      DirectorId: 'alice',
    });
    const denied = await call(t, 'PUT', `/api/director/races/${id}`, {
      token: bob,
      body: { Name: 'Hijacked' },
    });
    expect(denied.statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/director/races/${id}`, { token: alice })).json().Name).toBe('New');
  });

  it('refuses a race without a name', async () => {
    const res = await call(t, 'POST', '/api/director/races', { token: alice, body: { Name: '   ' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
    expect(res.json().message).toMatch(/Name/);
  });

  it('shows only approved races publicly; approval by an admin is idempotent', async () => {
    const id = await createRace(t, alice, { Name: 'Pending public' });
    expect((await call(t, 'GET', `/api/open/races/${id}`)).statusCode).toBe(404);
    expect(
      (await call(t, 'GET', '/api/open/races')).json().some((r: { RaceId: number }) => r.RaceId === id),
    ).toBe(false);
    const pending = await call(t, 'GET', '/api/admin/requests', { token: admin });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().some((r: { RaceId: number }) => r.RaceId === id)).toBe(true);
    for (let i = 0; i < 2; i++) {
      const ok = await call(t, 'POST', `/api/admin/requests/approve/${id}`, { token: admin });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ RaceId: id, Approved: true });
    }
    expect(
      (await call(t, 'GET', '/api/admin/requests', { token: admin }))
        .json()
        .some((r: { RaceId: number }) => r.RaceId === id),
    ).toBe(false);
    const one = await call(t, 'GET', `/api/open/races/${id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ RaceId: id, Approved: true, Name: 'Pending public' });
    expect(
      (await call(t, 'GET', '/api/open/races')).json().some((r: { RaceId: number }) => r.RaceId === id),
    ).toBe(true);
    expect((await call(t, 'POST', '/api/admin/requests/approve/999999', { token: admin })).statusCode).toBe(
      404,
    );
  });

  it('an admin reads one request with its runner count and course, with map links that work before approval', async () => {
    const id = await createRace(t, alice, { Name: 'Request detail', Location: 'Sion' });
    const bare = await call(t, 'GET', `/api/admin/requests/${id}`, { token: admin });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toMatchObject({
      RaceId: id,
      Name: 'Request detail',
      Location: 'Sion',
      Approved: false,
    });
    expect(bare.json().RunnerCount).toBe(0);
    expect(bare.json().Course).toBeNull();

    for (const [first, bib] of [
      ['Ann', '1'],
      ['Ben', '2'],
    ])
      await call(t, 'POST', `/api/director/runners/${id}`, {
        token: alice,
        body: { FirstName: first, LastName: 'Runner', BibNumber: bib },
      });
    const { payload, headers } = multipartFile(gpxFixture('gpx11-two-segments.gpx'));
    const up = await call(t, 'POST', `/api/director/course/${id}`, { token: alice, payload, headers });
    expect(up.statusCode).toBe(201);

    const full = (await call(t, 'GET', `/api/admin/requests/${id}`, { token: admin })).json();
    expect(full.RunnerCount).toBe(2);
    expect(full.Course).toMatchObject({
      CourseId: up.json().CourseId,
      RaceId: id,
      LengthM: up.json().LengthM,
      ClimbM: up.json().ClimbM,
      PointCount: up.json().PointCount,
    });
    // Unapproved: the map link carries the key, so the admin can look at the course before approving.
    expect(full.Course.MapUrl).toContain('?key=');
    expect((await call(t, 'GET', pathOf(full.Course.MapUrl))).statusCode).toBe(200);
    expect(JSON.stringify(full)).not.toContain('TrackingKey');

    await call(t, 'POST', `/api/admin/requests/approve/${id}`, { token: admin });
    const approved = (await call(t, 'GET', `/api/admin/requests/${id}`, { token: admin })).json();
    expect(approved.Approved).toBe(true);
    expect(approved.Course.MapUrl).not.toContain('?key=');

    expect((await call(t, 'GET', '/api/admin/requests/999999', { token: admin })).statusCode).toBe(404);
    expect((await call(t, 'GET', '/api/admin/requests/abc', { token: admin })).statusCode).toBe(400);
    expect((await call(t, 'GET', `/api/admin/requests/${id}`, { token: alice })).statusCode).toBe(403);
    expect((await call(t, 'GET', `/api/admin/requests/${id}`)).statusCode).toBe(401);
  });

  it('start: only approved and not started; the race clock uses a past StartTime, else now', async () => {
    const past = '2020-01-01T09:00:00.000Z';
    const unapproved = await createRace(t, alice, { Name: 'Not yet approved' });
    const r1 = await call(t, 'PUT', `/api/director/races/start/${unapproved}`, { token: alice });
    expect(r1.statusCode).toBe(409);
    expect(r1.json().message).toMatch(/not approved/);

    const id = await createRace(
      t,
      alice,
      { Name: 'Started late', StartTime: past },
      { approve: true, adminToken: admin },
    );
    expect((await call(t, 'PUT', `/api/director/races/end/${id}`, { token: alice })).statusCode).toBe(409);
    expect((await call(t, 'PUT', `/api/director/races/start/${id}`, { token: bob })).statusCode).toBe(404);
    const started = await call(t, 'PUT', `/api/director/races/start/${id}`, {
      token: alice,
      headers: { 'content-type': 'application/json' },
    });
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({ HasStarted: true, HasFinished: false, ClockStartedAt: past });
    const again = await call(t, 'PUT', `/api/director/races/start/${id}`, { token: alice });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/already been started/);

    const before = Date.now();
    const future = await createRace(
      t,
      alice,
      { Name: 'Starts early', StartTime: '2099-01-01T00:00:00Z' },
      { approve: true, adminToken: admin },
    );
    const s2 = await call(t, 'PUT', `/api/director/races/start/${future}`, { token: alice });
    const clock = Date.parse(s2.json().ClockStartedAt);
    expect(clock).toBeGreaterThanOrEqual(before - 1000);
    expect(clock).toBeLessThanOrEqual(Date.now() + 1000);

    const ended = await call(t, 'PUT', `/api/director/races/end/${id}`, { token: alice });
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toMatchObject({ HasStarted: true, HasFinished: true });
    expect(Date.parse(ended.json().ClockStoppedAt)).toBeGreaterThanOrEqual(before - 1000);
    const endAgain = await call(t, 'PUT', `/api/director/races/end/${id}`, { token: alice });
    expect(endAgain.statusCode).toBe(409);
    expect(endAgain.json().message).toMatch(/already ended/);
  });

  it('lists not-started races publicly (the static path is not taken for an id)', async () => {
    const waiting = await createRace(t, alice, { Name: 'Waiting' }, { approve: true, adminToken: admin });
    const running = await createRace(t, alice, { Name: 'Running' }, { approve: true, adminToken: admin });
    await call(t, 'PUT', `/api/director/races/start/${running}`, { token: alice });
    const res = await call(t, 'GET', '/api/open/races/not-started');
    expect(res.statusCode).toBe(200);
    const ids = res.json().map((r: { RaceId: number }) => r.RaceId);
    expect(ids).toContain(waiting);
    expect(ids).not.toContain(running);
    expect(
      res.json().every((r: { HasStarted: boolean; Approved: boolean }) => !r.HasStarted && r.Approved),
    ).toBe(true);
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999', '1e400'])(
    'answers a bad id %s with 400 JSON, never 500',
    async (bad) => {
      for (const url of [
        `/api/open/races/${bad}`,
        `/api/director/races/${bad}`,
        `/api/open/runners/${bad}`,
      ]) {
        const res = await call(t, 'GET', url, { token: alice });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toHaveProperty('error');
        expect(res.json()).toHaveProperty('message');
      }
    },
  );

  it('answers an unknown id with 404 JSON', async () => {
    const res = await call(t, 'GET', '/api/open/races/2147483647');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: expect.stringMatching(/not found/) });
  });

  it('deletes a race as its director only', async () => {
    const id = await createRace(t, alice, { Name: 'To delete' });
    expect((await call(t, 'DELETE', `/api/director/races/${id}`, { token: bob })).statusCode).toBe(404);
    const res = await call(t, 'DELETE', `/api/director/races/${id}`, { token: alice });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ Deleted: true, RaceId: id });
    expect((await call(t, 'GET', `/api/director/races/${id}`, { token: alice })).statusCode).toBe(404);
    expect((await call(t, 'DELETE', `/api/director/races/${id}`, { token: alice })).statusCode).toBe(404);
  });

  it('needs a signed-in user for director calls and an admin for admin calls', async () => {
    expect((await call(t, 'GET', '/api/director/races')).statusCode).toBe(401);
    expect((await call(t, 'GET', '/api/admin/requests')).statusCode).toBe(401);
    expect((await call(t, 'GET', '/api/admin/requests', { token: alice })).statusCode).toBe(403);
  });

  it('serves the OpenAPI document and its UI at /api/docs', async () => {
    const doc = await call(t, 'GET', '/api/docs/json');
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/open/races',
        '/api/open/races/not-started',
        '/api/open/races/{id}',
        '/api/director/races/start/{id}',
        '/api/director/course/{raceId}',
        '/api/admin/devices/{deviceId}/assign-race/{raceId}',
        '/api/admin/requests/approve/{raceId}',
      ]),
    );
    const post = doc.json().paths['/api/director/races'].post;
    expect(Object.keys(post.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['Name', 'Description', 'Location', 'StartTime']),
    );
    const ui = await call(t, 'GET', '/api/docs');
    expect([200, 302]).toContain(ui.statusCode);
  });
});
