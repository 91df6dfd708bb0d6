import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';
import { startServerProcess, type ServerProcess } from './support/server-process';
import { connectSse, type SseConnection } from './support/sse-client';

/**
 * Graceful stop of a real server process (SIGTERM) with live viewers (issue 14): an update still being coalesced
 * (the compact stream sends at most one message per 15 s) goes out before the stream ends, then a short `retry:`
 * hint as the last thing sent, so the viewer reconnects at once (elsewhere, behind a balancer) and resumes with its
 * Last-Event-ID from the newest event; the process exits 0 within 10 s.
 *
 * PostgreSQL (TEST_DATABASE_URL): the test seeds the race in the database the server process reads.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('graceful stop with live viewers (server process)', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let race: SeededRace;
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    race = await seedLiveRace(database.db, { runners: 2, clockStartMs: Date.now() - 30 * 60_000 });
    server = await startServerProcess({ DATABASE_URL: database.url! });
  }, 90_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await server?.stop();
    await database?.close();
  });

  it('SIGTERM: the pending compact update, then a short retry hint, then the end; exit 0 within 10 s', async () => {
    const base = `${server!.url}/api/open/races/${race.raceId}/live`;
    const compact = await connectSse(`${base}?v=5`);
    const first = await connectSse(base);
    streams.push(compact, first);
    expect([compact.status, first.status]).toEqual([200, 200]);
    await compact.next((e) => e.event === 'snap');
    await first.next((e) => e.event === 'snapshot');

    const runner = race.runners[0];
    const ping = async (distanceM: number, ageMs: number) => {
      const t = Math.floor((Date.now() - ageMs) / 1000) * 1000;
      const res = await fetch(osmandUrl(server!.url, runner, { t, ...pointAlong(distanceM) }));
      expect(res.status).toBe(200);
    };
    // The first change after a quiet spell goes at once on both streams.
    await ping(1000, 5000);
    await first.next((e) => e.event === 'update', 15_000);
    await compact.next((e) => e.event === 'delta', 15_000);
    // The second, within the compact stream's 15 s, waits for its batch: the first stream has it, the compact not.
    await ping(1500, 2000);
    const update = JSON.parse((await first.next((e) => e.event === 'update', 15_000)).data) as {
      Fixes: [number, number, number, number][];
    };
    expect(update.Fixes.map((f) => f[0])).toEqual([runner.runnerId]);
    expect(compact.events.filter((e) => e.event === 'delta')).toHaveLength(1);

    const child = server!.child;
    const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
      const started = Date.now();
      child.once('exit', (code) => resolve({ code, ms: Date.now() - started }));
    });
    child.kill('SIGTERM');
    await Promise.all([compact.ended, first.ended]);
    const { code, ms } = await exited;
    expect(code, server!.output()).toBe(0);
    expect(ms).toBeLessThan(10_000);

    // Compact viewer: the pending delta (the next in sequence, with an id to resume from), then the short hint last.
    const after = compact.events.slice(compact.events.findIndex((e) => e.event === 'delta') + 1);
    expect(after.map((e) => e.retry ?? e.event)).toEqual(['delta', expect.any(Number)]);
    const [delta, hint] = after;
    expect(delta.id).toBeTruthy();
    const ids = compact.events.filter((e) => e.id).map((e) => e.id!.split('.')[1]);
    expect(ids.map(Number)).toEqual([0, 1, 2]); // snap at 0, then deltas 1 and 2
    expect(JSON.stringify(JSON.parse(delta.data))).toContain(String(runner.runnerId));
    expect(hint.retry).toBeGreaterThanOrEqual(250);
    expect(hint.retry).toBeLessThan(2000);
    // First stream: nothing was pending there; it ends with the short hint too.
    expect(first.events.at(-1)!.retry).toBeGreaterThanOrEqual(250);
    expect(first.events.at(-1)!.retry).toBeLessThan(2000);
  }, 60_000);
});
