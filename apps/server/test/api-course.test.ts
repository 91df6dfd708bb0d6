import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courses } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, pathOf, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';

describe.each(dbKinds)('course API (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  const upload = (
    raceId: number,
    gpx: string | Buffer,
    token = alice,
    opts: Parameters<typeof multipartFile>[1] = {},
  ) => {
    const { payload, headers } = multipartFile(gpx, opts);
    return call(t, 'POST', `/api/director/course/${raceId}`, { token, payload, headers });
  };
  const storedCourses = (raceId: number) =>
    t.database.db.select().from(courses).where(eq(courses.raceId, raceId));

  it('stores an uploaded GPX 1.1 course with geometry, length and climb', async () => {
    const raceId = await createRace(t, alice, { Name: 'Lakeside' });
    const res = await upload(raceId, gpxFixture('gpx11-two-segments.gpx'), alice, {
      filename: 'lakeside.gpx',
    });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      RaceId: raceId,
      Name: 'Lakeside Trail 10K',
      PointCount: 5,
      HasElevation: true,
      ClimbM: 30,
      DescentM: 0,
      Waypoints: [
        { Name: 'Start & Finish', Latitude: 46.5, Longitude: 6.6, DistanceM: 0 },
        { Name: 'Aid station 1', Latitude: 46.509, Longitude: 6.6, DistanceM: expect.closeTo(1000.8, -1) },
      ],
    });
    expect(c.LengthM).toBeGreaterThan(1300);
    expect(c.LengthM).toBeLessThan(1315);
    const [row] = await storedCourses(raceId);
    expect(row.id).toBe(c.CourseId);
    expect(row.fileName).toBe('lakeside.gpx');
    expect(row.geometry.points[0]).toEqual([6.6, 46.5, 372]);
    expect(row.geometry.points).toHaveLength(5);
    expect(row.geometry.waypoints).toHaveLength(2);
    const read = await call(t, 'GET', `/api/director/course/${raceId}`, { token: alice });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(c);
  });

  it('unapproved race: links work with their key for the owner, bare links are 404 publicly', async () => {
    const raceId = await createRace(t, alice, { Name: 'Secret course' });
    const c = (await upload(raceId, gpxFixture('gpx10-track.gpx'))).json();
    expect(c.MapUrl).toMatch(new RegExp(`^http://localhost:3000/courses/${raceId}/map\\?key=`));
    expect((await call(t, 'GET', `/api/open/course/${raceId}`)).statusCode).toBe(404);

    const map = await call(t, 'GET', pathOf(c.MapUrl));
    expect(map.statusCode).toBe(200);
    expect(map.headers['content-type']).toMatch(/text\/html/);
    expect(map.body).toContain('<svg');
    expect(map.body).toContain('<polyline class="course"');
    expect(map.body).toContain('Hill Repeats');
    expect(map.body).toContain('0.44 km');
    expect(map.body).toContain('100 m climb');
    expect(map.body).not.toMatch(/<script/i);
    expect(map.body).toContain('<html lang="en">');

    // In the reader's language: ?lang= first, else Accept-Language (numbers by Intl for it), else English.
    const fr = await call(t, 'GET', `${pathOf(c.MapUrl)}&lang=fr`, { headers: { 'accept-language': 'de' } });
    expect(fr.body).toContain('<html lang="fr">');
    expect(fr.body).toContain('0,44 km · 100 m de montée');
    expect(fr.body).toContain('Télécharger le GPX');
    const de = await call(t, 'GET', pathOf(c.MapUrl), { headers: { 'accept-language': 'nl, de-DE;q=0.8' } });
    expect(de.body).toContain('<html lang="de">');
    expect(de.body).toContain('100 m Aufstieg');
    expect(de.headers.vary).toMatch(/accept-language/i);
    const other = await call(t, 'GET', `${pathOf(c.MapUrl)}&lang=xx`, {
      headers: { 'accept-language': 'ja' },
    });
    expect(other.body).toContain('<html lang="en">');
    expect((await call(t, 'GET', `${pathOf(c.MapUrl)}&lang=${'x'.repeat(36)}`)).statusCode).toBe(400);

    const bare = pathOf(c.MapUrl).split('?')[0];
    expect((await call(t, 'GET', bare)).statusCode).toBe(404);
    expect((await call(t, 'GET', `${bare}?key=wrong`)).statusCode).toBe(404);
    expect((await call(t, 'GET', pathOf(c.GeoJsonUrl).split('?')[0])).statusCode).toBe(404);

    const gj = await call(t, 'GET', pathOf(c.GeoJsonUrl));
    expect(gj.statusCode).toBe(200);
    expect(gj.headers['content-type']).toMatch(/application\/geo\+json/);
    expect(gj.json().features[0].geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [7, 45, 100],
        [7, 45.001, 150],
        [7, 45.002, 200],
        [7, 45.001, 150],
        [7, 45, 100],
      ],
    });
    const gpx = await call(t, 'GET', pathOf(c.GpxUrl));
    expect(gpx.statusCode).toBe(200);
    expect(gpx.headers['content-disposition']).toMatch(/attachment/);
    expect(gpx.body).toContain('<gpx version="1.1"');
    expect(gpx.body.match(/<trkpt /g)).toHaveLength(5);
  });

  it('approved race: the course and its links are public', async () => {
    const raceId = await createRace(
      t,
      alice,
      { Name: 'Public course' },
      { approve: true, adminToken: admin },
    );
    await upload(raceId, gpxFixture('route-only.gpx'));
    const res = await call(t, 'GET', `/api/open/course/${raceId}`);
    expect(res.statusCode).toBe(200);
    const c = res.json();
    expect(c).toMatchObject({ RaceId: raceId, Name: 'City Loop Route', PointCount: 4 });
    expect(c.MapUrl).toBe(`http://localhost:3000/courses/${raceId}/map`);
    expect(c.GeoJsonUrl).toBe(`http://localhost:3000/api/open/course/${raceId}/course.geojson`);
    expect(c.GpxUrl).toBe(`http://localhost:3000/api/open/course/${raceId}/course.gpx`);
    const map = await call(t, 'GET', pathOf(c.MapUrl));
    expect(map.statusCode).toBe(200);
    expect(map.body).toContain('City Loop Route');
    expect(map.headers['content-security-policy']).toContain("default-src 'none'");
    expect((await call(t, 'GET', pathOf(c.GpxUrl))).statusCode).toBe(200);
  });

  it('a new upload replaces the old course', async () => {
    const raceId = await createRace(t, alice, { Name: 'Replace' });
    const first = (await upload(raceId, gpxFixture('gpx10-track.gpx'))).json();
    const second = (await upload(raceId, gpxFixture('no-elevation.gpx'))).json();
    expect(second.CourseId).not.toBe(first.CourseId);
    expect(second).toMatchObject({
      Name: 'Flat Without Elevation',
      HasElevation: false,
      ClimbM: 0,
      PointCount: 4,
    });
    const rows = await storedCourses(raceId);
    expect(rows.map((r) => r.id)).toEqual([second.CourseId]);
    // the old link key died with the old course
    expect((await call(t, 'GET', pathOf(first.MapUrl))).statusCode).toBe(404);
    expect((await call(t, 'GET', pathOf(second.MapUrl))).statusCode).toBe(200);
  });

  it('gives a waypoint far from the course no distance', async () => {
    const raceId = await createRace(t, alice, { Name: 'Far waypoint' });
    const gpx = `<gpx version="1.1"><wpt lat="10" lon="10"><name>Parking</name></wpt><trk><trkseg>
      <trkpt lat="46" lon="7"/><trkpt lat="46.001" lon="7"/></trkseg></trk></gpx>`;
    const res = await upload(raceId, gpx);
    expect(res.statusCode).toBe(201);
    expect(res.json().Waypoints).toEqual([{ Name: 'Parking', Latitude: 10, Longitude: 10, DistanceM: null }]);
  });

  it('names a course after the file when the GPX has no name', async () => {
    const raceId = await createRace(t, alice, { Name: 'Nameless' });
    const res = await upload(raceId, gpxFixture('partial-elevation.gpx'), alice, { filename: 'my-loop.GPX' });
    expect(res.json()).toMatchObject({ Name: 'my-loop', ClimbM: 20 });
  });

  it('deletes a course (404 for a wrong course id or another director)', async () => {
    const raceId = await createRace(t, alice, { Name: 'Delete course' });
    const c = (await upload(raceId, gpxFixture('gpx10-track.gpx'))).json();
    expect(
      (await call(t, 'DELETE', `/api/director/course/${raceId}/${c.CourseId + 1000}`, { token: alice }))
        .statusCode,
    ).toBe(404);
    expect(
      (await call(t, 'DELETE', `/api/director/course/${raceId}/${c.CourseId}`, { token: bob })).statusCode,
    ).toBe(404);
    expect(await storedCourses(raceId)).toHaveLength(1);
    const res = await call(t, 'DELETE', `/api/director/course/${raceId}/${c.CourseId}`, { token: alice });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ Deleted: true, CourseId: c.CourseId });
    expect(await storedCourses(raceId)).toHaveLength(0);
    // No course any more: a normal state, 204 No Content (issue 15), not an error.
    const read = await call(t, 'GET', `/api/director/course/${raceId}`, { token: alice });
    expect(read.statusCode).toBe(204);
    expect(read.body).toBe('');
  });

  it('another director cannot read or upload, and nothing is stored', async () => {
    const raceId = await createRace(t, alice, { Name: 'Mine' });
    expect((await upload(raceId, gpxFixture('gpx10-track.gpx'), bob)).statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/director/course/${raceId}`, { token: bob })).statusCode).toBe(404);
    expect(await storedCourses(raceId)).toHaveLength(0);
  });

  it('deleting a race deletes its course', async () => {
    const raceId = await createRace(t, alice, { Name: 'Race with course' });
    await upload(raceId, gpxFixture('gpx10-track.gpx'));
    expect((await call(t, 'DELETE', `/api/director/races/${raceId}`, { token: alice })).statusCode).toBe(200);
    expect(await storedCourses(raceId)).toHaveLength(0);
  });

  it('over real HTTP: a browser-style FormData upload works, a 25 MB one is refused with 413 JSON', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const raceId = await createRace(t, alice, { Name: 'Over HTTP' });
    const send = (content: string | Uint8Array<ArrayBuffer>) => {
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'application/gpx+xml' }), 'course.gpx');
      return fetch(`${address}/api/director/course/${raceId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice}` },
        body: form,
      });
    };
    const ok = await send(gpxFixture('gpx11-two-segments.gpx'));
    expect(ok.status).toBe(201);
    const course = await ok.json();
    expect(course.PointCount).toBe(5);
    const big = await send(new Uint8Array(25 * 1024 * 1024).fill(0x20));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'file_too_large' });
    expect((await storedCourses(raceId)).map((r) => r.id)).toEqual([course.CourseId]);
    const docs = await fetch(`${address}/api/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });

  describe('bad uploads: a clear 4xx JSON and nothing stored', () => {
    let raceId: number;
    let keptCourseId: number;
    beforeAll(async () => {
      raceId = await createRace(t, alice, { Name: 'Bad uploads' });
      keptCourseId = (await upload(raceId, gpxFixture('gpx10-track.gpx'))).json().CourseId;
    });
    const unchanged = async () => {
      const rows = await storedCourses(raceId);
      expect(rows.map((r) => r.id)).toEqual([keptCourseId]);
    };

    it.each([
      ['xxe.gpx', /DOCTYPE/],
      ['billion-laughs.gpx', /DOCTYPE/],
      ['no-points.gpx', /no track or route points/],
      ['not-xml.gpx', /not well-formed XML/],
    ])('%s → 400', async (name, message) => {
      const res = await upload(raceId, gpxFixture(name));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_gpx', message: expect.stringMatching(message) });
      expect(res.body).not.toContain('root:');
      await unchanged();
    });

    it('a binary file → 400', async () => {
      const res = await upload(raceId, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255, 254]), alice, {
        filename: 'photo.png',
        contentType: 'image/png',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_gpx');
      await unchanged();
    });

    it('a 25 MB upload → 413', async () => {
      const big = Buffer.alloc(25 * 1024 * 1024, 0x20);
      const res = await upload(raceId, big);
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({ error: 'file_too_large', message: expect.stringMatching(/20 MB/) });
      await unchanged();
    });

    it('no file field → 400', async () => {
      const res = await upload(raceId, gpxFixture('gpx10-track.gpx'), alice, { field: 'upload' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'file_missing', message: expect.stringMatching(/GPX file/) });
      await unchanged();
    });

    it('a JSON body instead of multipart → 415', async () => {
      const res = await call(t, 'POST', `/api/director/course/${raceId}`, {
        token: alice,
        body: { file: 'x' },
      });
      expect(res.statusCode).toBe(415);
      expect(res.json().error).toBe('unsupported_media_type');
      await unchanged();
    });

    it('anonymous → 401', async () => {
      const { payload, headers } = multipartFile(gpxFixture('gpx11-two-segments.gpx'));
      const res = await call(t, 'POST', `/api/director/course/${raceId}`, { payload, headers });
      expect(res.statusCode).toBe(401);
      await unchanged();
    });
  });
});
