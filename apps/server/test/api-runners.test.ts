import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from './support/app';
import { call, createRace, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

describe.each(dbKinds)('runners API (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;
  let raceId: number;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
    raceId = await createRace(t, alice, { Name: 'Runner race' });
  });
  afterAll(async () => t?.close());

  const add = (body: Record<string, unknown>, token = alice, race = raceId) =>
    call(t, 'POST', `/api/director/runners/${race}`, { token, body });

  it('adds a runner: 201 with the object, Gender defaults to M, a numeric bib becomes a string', async () => {
    const res = await add({ FirstName: ' Ada ', LastName: 'Lovelace', BibNumber: 7, Age: 36 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      RunnerId: expect.any(Number),
      RaceId: raceId,
      FirstName: 'Ada',
      LastName: 'Lovelace',
      BibNumber: '7',
      Gender: 'M',
      Age: 36,
      DeviceId: null,
      DeviceName: null,
      EmergencyContact: null,
      Phone: null,
      // No DNS/DNF/DSQ set by people.
      Status: null,
      StatusReason: null,
      // Privacy: the live position is public unless the runner hides it.
      HidePosition: false,
    });
  });

  it.each([
    [{ LastName: 'X' }, /FirstName/],
    [{ FirstName: 'X', LastName: '' }, /LastName/],
    [{ FirstName: 'X', LastName: 'Y', Gender: 'X' }, /Gender/],
    [{ FirstName: 'X', LastName: 'Y', Age: 121 }, /Age/],
    [{ FirstName: 'X', LastName: 'Y', Age: -1 }, /Age/],
    [{ FirstName: 'X', LastName: 'Y', Age: 30.5 }, /Age/],
    [{ FirstName: 'X', LastName: 'Y', Age: '30' }, /Age/],
    [{ FirstName: 'X', LastName: 'Y', BibNumber: { a: 1 } }, /BibNumber/],
  ])('refuses an invalid runner %j with 400 and stores nothing', async (body, message) => {
    const before = (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json().length;
    const res = await add(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
    expect(res.json().message).toMatch(message);
    expect((await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json()).toHaveLength(
      before,
    );
  });

  it('keeps bib numbers unique within a race (409), but not across races', async () => {
    expect((await add({ FirstName: 'A', LastName: 'One', BibNumber: '100' })).statusCode).toBe(201);
    const dup = await add({ FirstName: 'B', LastName: 'Two', BibNumber: 100 });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ error: 'duplicate_bib', message: expect.stringMatching(/100/) });
    const other = await createRace(t, alice, { Name: 'Other race' });
    expect((await add({ FirstName: 'B', LastName: 'Two', BibNumber: '100' }, alice, other)).statusCode).toBe(
      201,
    );
    // runners without a bib do not collide
    expect((await add({ FirstName: 'C', LastName: 'NoBib' })).statusCode).toBe(201);
    expect((await add({ FirstName: 'D', LastName: 'NoBib', BibNumber: '' })).statusCode).toBe(201);
  });

  it('updates a runner from the full runner object (ids and DeviceId in the body are ignored)', async () => {
    const created = (
      await add({ FirstName: 'Grace', LastName: 'Hopper', BibNumber: '200', Gender: 'F' })
    ).json();
    const res = await call(t, 'PUT', `/api/director/runners/${raceId}/${created.RunnerId}`, {
      token: alice,
      body: { ...created, RunnerId: 999, RaceId: 999, DeviceId: 5, Age: 85, BibNumber: '201' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...created, Age: 85, BibNumber: '201' });
    // keeping its own bib is not a duplicate; taking another's is
    const same = await call(t, 'PUT', `/api/director/runners/${raceId}/${created.RunnerId}`, {
      token: alice,
      body: { ...created, BibNumber: '201' },
    });
    expect(same.statusCode).toBe(200);
    const taken = await call(t, 'PUT', `/api/director/runners/${raceId}/${created.RunnerId}`, {
      token: alice,
      body: { ...created, BibNumber: '100' },
    });
    expect(taken.statusCode).toBe(409);
    expect(
      (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice }))
        .json()
        .find((r: { RunnerId: number }) => r.RunnerId === created.RunnerId).BibNumber,
    ).toBe('201');
  });

  it('hides runners of another director’s race and of unapproved races publicly', async () => {
    expect((await call(t, 'GET', `/api/director/runners/${raceId}`, { token: bob })).statusCode).toBe(404);
    expect((await add({ FirstName: 'X', LastName: 'Y' }, bob)).statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/open/runners/${raceId}`)).statusCode).toBe(404);
  });

  it('shows public runners of an approved race without any device field', async () => {
    const id = await createRace(t, alice, { Name: 'Public runners' }, { approve: true, adminToken: admin });
    const r = (await add({ FirstName: 'Pub', LastName: 'Lic', BibNumber: '1' }, alice, id)).json();
    const dev = (
      await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'Tracker' } })
    ).json();
    await call(t, 'PUT', `/api/admin/devices/${dev.DeviceId}/assign-race/${id}`, { token: admin });
    const given = await call(
      t,
      'PUT',
      `/api/director/devices/${dev.DeviceId}/race/${id}/assign-runner/${r.RunnerId}`,
      {
        token: alice,
      },
    );
    expect(given.statusCode).toBe(200);
    const res = await call(t, 'GET', `/api/open/runners/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        RunnerId: r.RunnerId,
        RaceId: id,
        FirstName: 'Pub',
        LastName: 'Lic',
        BibNumber: '1',
        Gender: 'M',
        Age: null,
      },
    ]);
    expect(res.body).not.toContain('DeviceId');
    expect(res.body).not.toContain('DeviceName');
    expect(res.body).not.toContain('Tracker');
    expect(res.body).not.toContain(dev.TrackingKey);
    const director = (await call(t, 'GET', `/api/director/runners/${id}`, { token: alice })).json();
    expect(director[0].DeviceId).toBe(dev.DeviceId);
    // The director sees which tracker the runner carries by name, in the list and after an edit.
    expect(director[0].DeviceName).toBe('Tracker');
    const edited = await call(t, 'PUT', `/api/director/runners/${id}/${r.RunnerId}`, {
      token: alice,
      body: { ...director[0], Age: 41 },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ Age: 41, DeviceId: dev.DeviceId, DeviceName: 'Tracker' });
    expect(edited.body).not.toContain(dev.TrackingKey);
  });

  it('deletes a runner (404 for another director or a runner of another race)', async () => {
    const r = (await add({ FirstName: 'Gone', LastName: 'Soon' })).json();
    const other = await createRace(t, alice, { Name: 'Elsewhere' });
    expect(
      (await call(t, 'DELETE', `/api/director/runners/${raceId}/${r.RunnerId}`, { token: bob })).statusCode,
    ).toBe(404);
    expect(
      (await call(t, 'DELETE', `/api/director/runners/${other}/${r.RunnerId}`, { token: alice })).statusCode,
    ).toBe(404);
    const res = await call(t, 'DELETE', `/api/director/runners/${raceId}/${r.RunnerId}`, { token: alice });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ Deleted: true, RunnerId: r.RunnerId });
    const list = (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json();
    expect(list.some((x: { RunnerId: number }) => x.RunnerId === r.RunnerId)).toBe(false);
    expect(
      (
        await call(t, 'PUT', `/api/director/runners/${raceId}/${r.RunnerId}`, {
          token: alice,
          body: { FirstName: 'A', LastName: 'B' },
        })
      ).statusCode,
    ).toBe(404);
  });
});
