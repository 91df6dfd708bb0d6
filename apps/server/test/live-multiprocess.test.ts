import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { createTestApp, type TestContext } from './support/app';
import { TEST_ADMIN_GROUP, TEST_AUDIENCE, TEST_SCOPE } from './support/issuer';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';
import { startServerProcess, type ServerProcess } from './support/server-process';
import { connectSse } from './support/sse-client';

/**
 * Two server processes on one PostgreSQL: process A is this test's app, process B a separate `node` running
 * apps/server/src/server.ts. A viewer streams from B; a real OsmAnd ping goes into A; the viewer receives it.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('live race across two server processes (PostgreSQL)', () => {
  let a: TestContext;
  let b: ServerProcess;
  let race: SeededRace;
  let aUrl: string;

  beforeAll(async () => {
    a = await createTestApp('postgres');
    race = await seedLiveRace(a.app.db, { runners: 2, clockStartMs: Date.now() - 30 * 60_000 });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    aUrl = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
    b = await startServerProcess({
      DATABASE_URL: a.database.url!,
      OIDC_ISSUER: a.issuer.url,
      OIDC_AUDIENCE: TEST_AUDIENCE,
      OIDC_CLIENT_ID: 'racebeacon-test-client',
      OIDC_API_SCOPE: TEST_SCOPE,
      ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
    });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  it('a viewer on process B receives a ping posted to process A', async () => {
    const sse = await connectSse(`${b.url}/api/open/races/${race.raceId}/live`);
    expect(sse.status).toBe(200);
    const snap = JSON.parse((await sse.next((e) => e.event === 'snapshot')).data);
    expect(snap.Rows.every((r: LeaderboardRow) => r.Status === 'not-started')).toBe(true);

    const runner = race.runners[1];
    const t = Date.now() - 2000;
    const at = pointAlong(1500);
    const res = await fetch(
      osmandUrl(aUrl, runner, { t: Math.floor(t / 1000) * 1000, ...at, batteryPercent: 64 }),
    );
    expect(res.status).toBe(200);

    const upd = await sse.next((e) => e.event === 'update', 15_000);
    const data = JSON.parse(upd.data);
    expect(data.Fixes).toHaveLength(1);
    expect(data.Fixes[0][0]).toBe(runner.runnerId);
    expect(data.Fixes[0][2]).toBeCloseTo(at.lat, 6);
    const row = data.Rows.find((r: LeaderboardRow) => r.RunnerId === runner.runnerId);
    expect(row).toMatchObject({ Rank: 1, Status: 'racing', BatteryState: '64%' });
    expect(row.DistanceKm).toBeCloseTo(1.5, 1);

    // Process B's leaderboard read agrees.
    const lb = (await (
      await fetch(`${b.url}/api/open/races/${race.raceId}/leaderboard`)
    ).json()) as LeaderboardRow[];
    expect(lb[0]).toMatchObject({ RunnerId: runner.runnerId, Rank: 1 });
    sse.close();
  });
});
