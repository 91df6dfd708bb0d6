import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import { threadId as testThreadId } from 'node:worker_threads';
import { courseStats, parseGpx } from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courses } from '../src/db/schema';
import { MAX_GPX_BYTES } from '../src/courses/director-routes';
import type { GpxParseMessage } from '../src/courses/gpx-off-thread';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

/** A legal GPX near the 20 MB cap: `points` track points with elevation (about 57 bytes each). */
function bigGpx(points: number): string {
  const parts = [
    '<?xml version="1.0"?><gpx version="1.1" creator="test"><metadata><name>Big</name></metadata>',
  ];
  parts.push('<wpt lat="46.00000" lon="6.60000"><name>Start</name></wpt><trk><trkseg>');
  for (let i = 0; i < points; i++) {
    const lat = (46 + i * 0.00001).toFixed(5);
    const lon = (6.6 + Math.sin(i / 500) * 0.01).toFixed(5);
    const ele = Math.round(400 + Math.sin(i / 300) * 50);
    parts.push(`<trkpt lat="${lat}" lon="${lon}"><ele>${ele}</ele></trkpt>`);
  }
  parts.push('</trkseg></trk></gpx>');
  return parts.join('');
}

/** Large GPX uploads: refused on the Content-Length header when too big; parsed off the main thread when legal. */
describe.each(dbKinds)('course upload limits (%s)', (kind) => {
  let t: TestContext, alice: string;

  beforeAll(async () => {
    ({ t, alice } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  const storedCourses = (raceId: number) =>
    t.database.db.select().from(courses).where(eq(courses.raceId, raceId));

  it('a Content-Length of 200 MB is answered 413 before the body is sent, and the connection is closed', async () => {
    const raceId = await createRace(t, alice, { Name: 'Huge upload' });
    const address = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
    const declared = 200 * 1024 * 1024;
    const result = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = http.request({
          host: address.hostname,
          port: address.port,
          method: 'POST',
          path: `/api/director/course/${raceId}`,
          headers: {
            authorization: `Bearer ${alice}`,
            'content-type': 'multipart/form-data; boundary=xyz',
            'content-length': String(declared),
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          // The server ends the connection after the answer, so the rest of the body is never read.
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
          );
        });
        req.on('error', reject);
        // Only the first bytes of the declared 200 MB: the answer must not wait for the rest.
        req.write('--xyz\r\nContent-Disposition: form-data; name="file"; filename="huge.gpx"\r\n\r\n<gpx');
      },
    );
    expect(result.status).toBe(413);
    expect(result.connection).toBe('close');
    expect(JSON.parse(result.body)).toEqual({
      error: 'file_too_large',
      message: expect.stringMatching(/200\.0 MB.*20 MB/),
    });
    expect(await storedCourses(raceId)).toHaveLength(0);
  });

  it('a legal 19 MB GPX of 352,000 points is parsed in a worker thread while the event loop keeps turning', async () => {
    const POINTS = 352_000;
    const xml = bigGpx(POINTS);
    const size = Buffer.byteLength(xml);
    expect(size).toBeGreaterThan(19 * 1000 * 1000);
    expect(size).toBeLessThan(MAX_GPX_BYTES);
    const expected = courseStats(parseGpx(xml).points);
    const raceId = await createRace(t, alice, { Name: 'Big course' });

    const messages: GpxParseMessage[] = [];
    // Event-loop turns of this (the server's) thread between the parse's start and its result.
    let turns = 0;
    let counting = false;
    const tick = () => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    const onMessage = (m: unknown) => {
      const msg = m as GpxParseMessage;
      messages.push(msg);
      if (msg.phase === 'start') {
        counting = true;
        setImmediate(tick);
      } else counting = false;
    };
    subscribe('racebeacon:gpx-parse', onMessage);
    try {
      const { payload, headers } = multipartFile(xml, { filename: 'big.gpx' });
      const res = await call(t, 'POST', `/api/director/course/${raceId}`, { token: alice, payload, headers });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        RaceId: raceId,
        Name: 'Big',
        PointCount: POINTS,
        LengthM: Math.round(expected.lengthM * 10) / 10,
        ClimbM: Math.round(expected.climbM * 10) / 10,
        HasElevation: true,
        Waypoints: [{ Name: 'Start', Latitude: 46, Longitude: 6.6, DistanceM: 0 }],
      });
    } finally {
      unsubscribe('racebeacon:gpx-parse', onMessage);
    }

    // Structural: the parse ran in another thread, and this thread's loop ran meanwhile (it was not blocked).
    expect(messages).toEqual([
      { phase: 'start', bytes: size },
      { phase: 'end', threadId: expect.any(Number), pointCount: POINTS },
    ]);
    const end = messages[1] as Extract<GpxParseMessage, { phase: 'end' }>;
    expect(end.threadId).not.toBe(testThreadId);
    expect(turns).toBeGreaterThan(0);

    const [row] = await storedCourses(raceId);
    expect(row.pointCount).toBe(POINTS);
    expect(row.geometry.points).toHaveLength(POINTS);
    expect(row.geometry.points[0]).toEqual([6.6, 46, 400]);
    expect(row.geometry.waypoints).toEqual([{ name: 'Start', lat: 46, lon: 6.6, distanceM: 0 }]);
  });

  it('a broken large file is a 400 invalid_gpx from the worker, and nothing is stored', async () => {
    const raceId = await createRace(t, alice, { Name: 'Broken big course' });
    const xml = bigGpx(20_000).replace('</trkseg>', '</trk>');
    const { payload, headers } = multipartFile(xml);
    const res = await call(t, 'POST', `/api/director/course/${raceId}`, { token: alice, payload, headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_gpx',
      message: expect.stringMatching(/not well-formed XML/),
    });
    expect(await storedCourses(raceId)).toHaveLength(0);
  });
});
