import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, races, runners } from '../src/db/schema';
import { createTestApp, type TestContext } from './support/app';
import { call, createRace } from './support/api';
import { dbKinds } from './support/databases';

/** Malformed and hostile bodies: always a 4xx with { error, message }, never a 500, and nothing written. */
describe.each(dbKinds)('bad input (%s)', (kind) => {
  let t: TestContext;
  let alice: string;
  let admin: string;
  let raceId: number;
  let runnerId: number;

  beforeAll(async () => {
    t = await createTestApp(kind);
    alice = await t.issuer.director('alice');
    admin = await t.issuer.admin();
    raceId = await createRace(t, alice, { Name: 'Original' });
    runnerId = (
      await call(t, 'POST', `/api/director/runners/${raceId}`, {
        token: alice,
        body: { FirstName: 'Orig', LastName: 'Inal', BibNumber: '1' },
      })
    ).json().RunnerId;
  });
  afterAll(async () => t?.close());

  const snapshot = async () =>
    JSON.stringify([
      await t.database.db.select().from(races).orderBy(asc(races.id)),
      await t.database.db.select().from(runners).orderBy(asc(runners.id)),
      await t.database.db.select().from(devices).orderBy(asc(devices.id)),
    ]);

  const huge = 'x'.repeat(100_000);
  const cases: [string, string, () => string, unknown, number][] = [
    ['malformed JSON (create race)', 'POST', () => '/api/director/races', '{"Name": "x",', 400],
    [
      'malformed JSON (update runner)',
      'PUT',
      () => `/api/director/runners/${raceId}/${runnerId}`,
      '{FirstName:1}',
      400,
    ],
    ['a JSON array instead of an object', 'POST', () => '/api/director/races', '[1,2,3]', 400],
    ['a JSON string instead of an object', 'POST', () => '/api/director/races', '"Name"', 400],
    ['null body', 'POST', () => '/api/director/races', 'null', 400],
    ['Name as a number', 'POST', () => '/api/director/races', JSON.stringify({ Name: 12 }), 400],
    [
      'StartTime not a date',
      'POST',
      () => '/api/director/races',
      JSON.stringify({ Name: 'a', StartTime: 'soon' }),
      400,
    ],
    [
      'StartTime as a number',
      'POST',
      () => '/api/director/races',
      JSON.stringify({ Name: 'a', StartTime: 5 }),
      400,
    ],
    ['a huge Name', 'POST', () => '/api/director/races', JSON.stringify({ Name: huge }), 400],
    [
      'a huge Description',
      'PUT',
      () => `/api/director/races/${raceId}`,
      JSON.stringify({ Name: 'a', Description: huge }),
      400,
    ],
    [
      'a huge runner name',
      'PUT',
      () => `/api/director/runners/${raceId}/${runnerId}`,
      JSON.stringify({ FirstName: huge, LastName: 'x' }),
      400,
    ],
    [
      'a huge bib',
      'POST',
      () => `/api/director/runners/${raceId}`,
      JSON.stringify({ FirstName: 'a', LastName: 'b', BibNumber: huge }),
      400,
    ],
    [
      'Age as a string',
      'PUT',
      () => `/api/director/runners/${raceId}/${runnerId}`,
      JSON.stringify({ FirstName: 'a', LastName: 'b', Age: 'old' }),
      400,
    ],
    ['a huge device name', 'POST', () => '/api/admin/devices', JSON.stringify({ Name: huge }), 400],
    [
      'a device name as an object',
      'POST',
      () => '/api/admin/devices',
      JSON.stringify({ Name: { $ne: 1 } }),
      400,
    ],
    [
      'a body over the 2 MB limit',
      'POST',
      () => '/api/director/races',
      JSON.stringify({ Name: 'a', Description: 'y'.repeat(3 * 1024 * 1024) }),
      413,
    ],
    [
      'prototype pollution attempt',
      'POST',
      () => '/api/director/runners/' + raceId,
      '{"FirstName":"a","LastName":"b","__proto__":{"Gender":"X"},"constructor":{"prototype":{"x":1}}}',
      201,
    ],
  ];

  it.each(cases)('%s → %i', async (_label, method, url, payload, status) => {
    const before = await snapshot();
    const token = url().startsWith('/api/admin') ? admin : alice;
    const res = await call(t, method as 'POST', url(), {
      token,
      payload: payload as string,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(status);
    if (status >= 400) {
      expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
      expect(res.json().message.length).toBeLessThan(2000);
      expect(await snapshot()).toBe(before);
    } else {
      expect(res.json().Gender).toBe('M');
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    }
  });

  it.each([
    ['application/xml', 415],
    ['text/plain', 400],
  ])('a %s body is a %i JSON error and stores nothing', async (type, status) => {
    const before = await snapshot();
    const res = await call(t, 'POST', '/api/director/races', {
      token: alice,
      payload: '<Name>x</Name>',
      headers: { 'content-type': type },
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
    expect(await snapshot()).toBe(before);
  });

  it('an empty JSON body on an action call is accepted as "no body"', async () => {
    const res = await call(t, 'PUT', `/api/director/races/start/${raceId}`, {
      token: alice,
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    // not approved: a 409 from the rule, not a 400 from the parser
    expect(res.statusCode).toBe(409);
  });

  it.each([
    ['DELETE', '/api/director/runners/1/abc'],
    ['DELETE', '/api/director/course/1/-5'],
    ['PUT', '/api/director/devices/x/race/1/assign-runner/1'],
    ['PUT', '/api/admin/devices/1.5/assign-race/1'],
    ['POST', '/api/admin/requests/approve/2147483648'],
  ])('%s %s with a bad id → 400 JSON', async (method, url) => {
    const before = await snapshot();
    const token = url.startsWith('/api/admin') ? admin : alice;
    const res = await call(t, method as 'GET', url, { token });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_id', message: expect.any(String) });
    expect(await snapshot()).toBe(before);
  });

  it.each([
    ['PUT', '/api/director/runners/RACE/999999', { FirstName: 'a', LastName: 'b' }],
    ['DELETE', '/api/director/runners/RACE/999999', undefined],
    ['DELETE', '/api/director/course/RACE/999999', undefined],
    ['PUT', '/api/director/devices/999999/race/RACE/unassign', undefined],
    ['PUT', '/api/admin/devices/999999/unassign', undefined],
    ['DELETE', '/api/admin/devices/999999', undefined],
    ['POST', '/api/admin/devices/999999/rotate-key', undefined],
  ])('%s %s with an unknown id → 404 JSON', async (method, url, body) => {
    const u = url.replace('RACE', String(raceId));
    const token = u.startsWith('/api/admin') ? admin : alice;
    const res = await call(t, method as 'GET', u, { token, body });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
  });

  it('an unknown API path is a 404 JSON', async () => {
    const res = await call(t, 'GET', '/api/open/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('not_found');
  });
});
