import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courses, devices, races, runners, spotFeeds } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';

/**
 * The shared input rules (plugins/input-guard.ts, the id schema, the StartTime rule): NUL characters, lax ids and
 * dates JavaScript accepts but the database refuses or changes are a 400 with { error, message }, never a 500, and
 * nothing is written.
 */
describe.each(dbKinds)('input guard (%s)', (kind) => {
  let t: TestContext, alice: string, admin: string;
  let raceId: number, runnerId: number, deviceId: number;

  beforeAll(async () => {
    ({ t, alice, admin } = await startApiTest(kind));
    raceId = await createRace(t, alice, { Name: 'Guarded' });
    runnerId = (
      await call(t, 'POST', `/api/director/runners/${raceId}`, {
        token: alice,
        body: { FirstName: 'Ann', LastName: 'Lee' },
      })
    ).json().RunnerId;
    deviceId = (await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'T1' } })).json()
      .DeviceId;
  });
  afterAll(async () => t?.close());

  const snapshot = async () =>
    JSON.stringify([
      await t.database.db.select().from(races).orderBy(asc(races.id)),
      await t.database.db.select().from(runners).orderBy(asc(runners.id)),
      await t.database.db.select().from(devices).orderBy(asc(devices.id)),
      await t.database.db.select().from(courses).orderBy(asc(courses.id)),
      await t.database.db.select().from(spotFeeds).orderBy(asc(spotFeeds.id)),
    ]);

  const NUL = '\u0000';

  describe('a NUL character in any text → 400 invalid_text naming the field', () => {
    const cases: [string, string, () => string, Record<string, unknown>, string][] = [
      ['race Name', 'POST', () => '/api/director/races', { Name: `a${NUL}b` }, 'Name'],
      [
        'race Description',
        'POST',
        () => '/api/director/races',
        { Name: 'a', Description: NUL },
        'Description',
      ],
      [
        'race Location',
        'PUT',
        () => `/api/director/races/${raceId}`,
        { Name: 'a', Location: `x${NUL}` },
        'Location',
      ],
      [
        'race StartTime',
        'POST',
        () => '/api/director/races',
        { Name: 'a', StartTime: `2026${NUL}` },
        'StartTime',
      ],
      [
        'runner LastName',
        'PUT',
        () => `/api/director/runners/${raceId}/${runnerId}`,
        { FirstName: 'a', LastName: NUL },
        'LastName',
      ],
      ['device Name', 'POST', () => '/api/admin/devices', { Name: `T${NUL}` }, 'Name'],
      [
        'device HardwareId',
        'PUT',
        () => `/api/admin/devices/${deviceId}`,
        { Source: 'spot', HardwareId: `0-1${NUL}` },
        'HardwareId',
      ],
      [
        'SPOT FeedPassword',
        'POST',
        () => '/api/admin/spot-feeds',
        { FeedId: 'abc', FeedPassword: NUL },
        'FeedPassword',
      ],
      [
        'a nested value',
        'POST',
        () => '/api/director/races',
        { Name: 'a', Extra: { deep: [1, NUL] } },
        'Extra.deep[1]',
      ],
    ];

    it.each(cases)('%s', async (_label, method, url, body, field) => {
      const before = await snapshot();
      const token = url().startsWith('/api/admin') ? admin : alice;
      const res = await call(t, method as 'POST', url(), { token, body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining(field) });
      expect(await snapshot()).toBe(before);
    });

    it('in a form-encoded ingest body and a query string', async () => {
      const before = await snapshot();
      const form = await call(t, 'POST', '/api/ingest/osmand', {
        payload: `id=abc%00&lat=1&lon=2&timestamp=1700000000`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.statusCode).toBe(400);
      expect(form.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining('id') });
      const query = await call(t, 'GET', '/api/ingest/osmand?id=%00&lat=1&lon=2');
      expect(query.statusCode).toBe(400);
      expect(query.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining('id') });
      const key = await call(t, 'GET', `/api/open/course/${raceId}/course.gpx?key=a%00`);
      expect(key.statusCode).toBe(400);
      expect(key.json().error).toBe('invalid_text');
      expect(await snapshot()).toBe(before);
    });

    it('in a raw text body that a webhook parses as JSON itself', async () => {
      const res = await call(t, 'POST', '/api/ingest/owntracks', {
        payload: '{"_type":"location","lat":1,"lon":2,"tst":1700000000,"tid":"a\\u0000"}',
        headers: { 'content-type': 'text/plain', authorization: 'Basic dXNlcjprZXk=' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining('tid') });
    });

    it('in a multipart file name or text field', async () => {
      const before = await snapshot();
      const named = multipartFile(gpxFixture('gpx10-track.gpx'), { filename: `course${NUL}.gpx` });
      const r1 = await call(t, 'POST', `/api/director/course/${raceId}`, { token: alice, ...named });
      expect(r1.statusCode).toBe(400);
      expect(r1.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining('file name') });
      const boundary = 'rb-guard-test';
      const payload = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi${NUL}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.gpx"\r\n` +
          `Content-Type: application/gpx+xml\r\n\r\n${gpxFixture('gpx10-track.gpx')}\r\n--${boundary}--\r\n`,
      );
      const r2 = await call(t, 'POST', `/api/director/course/${raceId}`, {
        token: alice,
        payload,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(r2.statusCode).toBe(400);
      expect(r2.json()).toEqual({ error: 'invalid_text', message: expect.stringContaining('note') });
      expect(await snapshot()).toBe(before);
    });
  });

  describe('StartTime: a real ISO 8601 date-time with an offset, years 2000–2100', () => {
    it.each([
      '0000-01-01T00:00:00Z',
      '-271821-04-20T00:00:00Z',
      '+275760-09-13T00:00:00Z',
      '1',
      '2024-02-30T10:00:00Z',
      '2024-02-30',
      '2026-06-01T06:00:00',
      '2026-06-01 06:00:00Z',
      '1999-12-31T23:59:59Z',
      '2101-01-01T00:00:00Z',
      'Mon, 01 Jun 2026 06:00:00 GMT',
    ])('%s → 400, nothing stored', async (StartTime) => {
      const before = await snapshot();
      const create = await call(t, 'POST', '/api/director/races', {
        token: alice,
        body: { Name: 'x', StartTime },
      });
      expect(create.statusCode).toBe(400);
      expect(create.json()).toEqual({
        error: 'validation_error',
        message: expect.stringMatching(/^StartTime: must be an ISO 8601 date-time with an offset/),
      });
      const update = await call(t, 'PUT', `/api/director/races/${raceId}`, {
        token: alice,
        body: { Name: 'x', StartTime },
      });
      expect(update.statusCode).toBe(400);
      expect(await snapshot()).toBe(before);
    });

    it.each([
      ['2026-06-01T06:00:00.000Z', '2026-06-01T06:00:00.000Z'], // what the web form sends (toISOString)
      ['2026-06-01T08:00:00+02:00', '2026-06-01T06:00:00.000Z'],
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
      ['2100-12-31T23:59:59Z', '2100-12-31T23:59:59.000Z'],
    ])('%s is stored as %s', async (StartTime, stored) => {
      const res = await call(t, 'POST', '/api/director/races', {
        token: alice,
        body: { Name: 'ok', StartTime },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().StartTime).toBe(stored);
    });
  });

  describe('ids: a decimal integer in the column range, otherwise 400 invalid_id', () => {
    const lax = [
      '0x1',
      '1e0',
      '0b1',
      '0o1',
      '%201',
      '1%0A',
      '+1',
      '01',
      '1.0',
      '-1',
      '0',
      '2147483648',
      '99999999999999999999',
    ];

    it.each(lax)('GET /api/open/races/%s → 400', async (bad) => {
      const res = await call(t, 'GET', `/api/open/races/${bad}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'invalid_id',
        message: expect.stringContaining('id must be a decimal id'),
      });
    });

    it('DELETE /api/director/races/0x… does not delete the race with that hexadecimal id', async () => {
      const target = await createRace(t, alice, { Name: 'Keep me' });
      const before = await snapshot();
      const res = await call(t, 'DELETE', `/api/director/races/0x${target.toString(16)}`, { token: alice });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_id');
      expect(await snapshot()).toBe(before);
      expect((await call(t, 'GET', `/api/director/races/${target}`, { token: alice })).json().Name).toBe(
        'Keep me',
      );
    });

    it.each([
      ['DELETE', '/api/admin/spot-feeds/2147483648'],
      ['DELETE', '/api/admin/spot-feeds/1e0'],
      ['GET', '/api/open/races/0x1/leaderboard'],
      ['GET', '/api/open/races/2147483648/positions'],
      ['PUT', '/api/admin/devices/1%20/assign-race/1'],
      ['DELETE', '/api/director/course/1/0b1'],
    ])('%s %s → 400 invalid_id, nothing changed', async (method, url) => {
      const before = await snapshot();
      const res = await call(t, method as 'GET', url, {
        token: url.startsWith('/api/admin') ? admin : alice,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_id', message: expect.any(String) });
      expect(await snapshot()).toBe(before);
    });

    it('the largest id is a valid id (404 when there is no such race), the decimal id itself works', async () => {
      const max = await call(t, 'GET', '/api/open/races/2147483647');
      expect(max.statusCode).toBe(404);
      const own = await call(t, 'GET', `/api/director/races/${raceId}`, { token: alice });
      expect(own.statusCode).toBe(200);
      expect(own.json().RaceId).toBe(raceId);
    });
  });
});
