import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { checkpoints } from '../src/db/schema-race-ops';
import { createTestApp, type TestContext } from './support/app';
import { TEST_ADMIN_GROUP, TEST_AUDIENCE, TEST_SCOPE } from './support/issuer';
import { pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';
import { startServerProcess, type ServerProcess } from './support/server-process';
import { connectSse } from './support/sse-client';

/**
 * Two server processes on one PostgreSQL: a check-in posted to process A reaches a viewer of process B (the
 * `checkin` event over LISTEN/NOTIFY), placing a runner who never sent a GPS fix at the checkpoint.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('check-ins across two server processes (PostgreSQL)', () => {
  let a: TestContext;
  let b: ServerProcess;
  let race: SeededRace;
  let aUrl: string;
  let token: string;

  beforeAll(async () => {
    a = await createTestApp('postgres');
    race = await seedLiveRace(a.app.db, { runners: 2, clockStartMs: Date.now() - 60 * 60_000 });
    const [aid] = await a.app.db
      .insert(checkpoints)
      .values({
        raceId: race.raceId,
        seq: 1,
        kind: 'waypoint',
        name: 'Aid 1',
        distanceM: 5000,
        ...pointAlong(5000),
      })
      .returning({ id: checkpoints.id });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    aUrl = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
    const created = await fetch(
      `${aUrl}/api/director/races/${race.raceId}/checkpoints/${aid.id}/checkin-links`,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${await a.issuer.director('dir-live')}` },
      },
    );
    expect(created.status).toBe(201);
    token = ((await created.json()) as { Url: string }).Url.replace('/checkin/', '');
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

  it('a viewer on process B sees a runner checked in on process A', async () => {
    const sse = await connectSse(`${b.url}/api/open/races/${race.raceId}/live`);
    expect(sse.status).toBe(200);
    const snap = JSON.parse((await sse.next((e) => e.event === 'snapshot')).data);
    expect(snap.Rows.every((r: LeaderboardRow) => r.Status === 'not-started')).toBe(true);

    const runner = race.runners[1];
    const res = await fetch(`${aUrl}/api/checkin/${token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        EntryId: randomUUID(),
        BibNumber: runner.bib,
        Kind: 'in',
        Time: new Date(Date.now() - 60_000).toISOString(),
      }),
    });
    expect(res.status).toBe(201);

    const upd = await sse.next((e) => e.event === 'update', 15_000);
    const data = JSON.parse(upd.data);
    const row = data.Rows.find((r: LeaderboardRow) => r.RunnerId === runner.runnerId);
    expect(row).toMatchObject({ Rank: 1 });
    expect(row.DistanceKm).toBeCloseTo(5, 1);
    sse.close();
  });
});
