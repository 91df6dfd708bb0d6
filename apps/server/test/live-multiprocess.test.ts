import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { createTestApp, type TestContext } from './support/app';
import { TEST_ADMIN_GROUP, TEST_AUDIENCE, TEST_SCOPE } from './support/issuer';
import { osmandUrl, pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';
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
  it('a runner hidden on process A: process B never sends the public a fix that arrives after the 200', async () => {
    const sse = await connectSse(`${b.url}/api/open/races/${race.raceId}/live`);
    try {
      await sse.next((e) => e.event === 'snapshot');
      const runner = race.runners[0];
      const token = await a.issuer.director('dir-live');
      const put = await fetch(`${aUrl}/api/director/runners/${race.raceId}/${runner.runnerId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          FirstName: `Runner${runner.bib}`,
          LastName: `Test${runner.bib}`,
          BibNumber: runner.bib,
          HidePosition: true,
        }),
      });
      expect(put.status, await put.text()).toBe(200);
      const mark = sse.events.length;
      const at = pointAlong(1200);
      const fixT = Math.floor((Date.now() - 1000) / 1000) * 1000;
      // Stored and announced at once (as ingestion does, without its HTTP and group-commit time).
      await postFixes(a.app, race.raceId, runner, [{ t: fixT, ...at }]);
      // B applies the change first: the first message to carry the runner's progress has the row without position
      // (in the old order, B's live update with the fix went out before its rebuild).
      const moved = (e: { data: string }) => {
        const rows = (JSON.parse(e.data).Rows ?? []) as LeaderboardRow[];
        return rows.find((r) => r.RunnerId === runner.runnerId && r.DistanceKm != null && r.DistanceKm > 1);
      };
      const first = await sse.next(
        (e) => (e.event === 'snapshot' || e.event === 'update') && !!moved(e),
        15_000,
      );
      expect([moved(first)!.Latitude, moved(first)!.Longitude]).toEqual([null, null]);
      // Nothing sent to the public after the answer carries the fix (a trail point is [runner, fix time, lat, lon]).
      const sent = sse.events
        .slice(mark)
        .map((e) => e.data)
        .join('');
      expect(sent).not.toContain(String(fixT));
    } finally {
      sse.close();
    }
  });
});
