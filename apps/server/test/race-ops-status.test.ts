import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners, runnerStatusLog } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe.each(dbKinds)('runner status DNS/DNF/DSQ (%s)', (kind) => {
  let t: TestContext, bob: string, admin: string, owner: string;
  let race: SeededRace;

  beforeAll(async () => {
    ({ t, bob, admin } = await startApiTest(kind));
    owner = await t.issuer.director('dir-live');
    race = await seedLiveRace(t.database.db, { runners: 4, keyPrefix: `st-${kind}-` });
    // Runner 1 reached 3 km, runner 2 6 km, runner 3 1 km; runner 4 never started.
    const at = (runner: number, metres: number[]) =>
      postFixes(
        t.app,
        race.raceId,
        race.runners[runner],
        metres.map((m, k) => ({ t: race.clockStartMs + (k + 1) * 60_000 * (m / 1000), ...pointAlong(m) })),
      );
    await at(0, [1000, 2000, 3000]);
    await at(1, [2000, 4000, 6000]);
    await at(2, [500, 1000]);
    await until(async () => {
      const rows = (await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard`)).json();
      return rows.filter((r: { Status: string }) => r.Status !== 'not-started').length === 3;
    }, 'three runners on the leaderboard');
  });
  afterAll(async () => t?.close());

  /** `token` null: anonymous. */
  const put = (runnerId: number, body: unknown, token: string | null = owner) =>
    call(t, 'PUT', `/api/director/runners/${runnerId}/status`, { token: token ?? undefined, body });

  it('sets DNF with the distance reached and the time, and logs who and why', async () => {
    const r1 = race.runners[0].runnerId;
    const res = await put(r1, { Status: 'DNF', Reason: 'Knee' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      RunnerId: r1,
      RaceId: race.raceId,
      Status: 'DNF',
      Reason: 'Knee',
      StatusBy: expect.any(String),
    });
    expect(body.DistanceKm).toBeCloseTo(3, 1);
    expect(Math.abs(Date.parse(body.StatusTime) - Date.now())).toBeLessThan(60_000);
    const [row] = await t.database.db.select().from(runners).where(eq(runners.id, r1));
    expect(row).toMatchObject({ status: 'DNF', statusReason: 'Knee' });
    expect(row.statusDistanceM).toBeCloseTo(3000, -2);

    // Cleared (wrongly entered), then DSQ by an admin.
    expect((await put(r1, { Status: null, Reason: 'Wrong runner' })).json()).toMatchObject({
      Status: null,
      Reason: null,
      DistanceKm: null,
    });
    expect((await put(r1, { Status: 'DSQ', Reason: 'Cut the course' }, admin)).statusCode).toBe(200);
    const log = await call(t, 'GET', `/api/director/runners/${race.raceId}/status-log`, { token: owner });
    expect(log.statusCode).toBe(200);
    expect(
      log
        .json()
        .map((e: { Status: string | null; Reason: string | null; RunnerId: number }) => [
          e.RunnerId,
          e.Status,
          e.Reason,
        ]),
    ).toEqual([
      [r1, 'DNF', 'Knee'],
      [r1, null, 'Wrong runner'],
      [r1, 'DSQ', 'Cut the course'],
    ]);
    const entries = log.json();
    expect(entries[0].DistanceKm).toBeCloseTo(3, 1);
    expect(entries[0]).toMatchObject({ BibNumber: '1', FirstName: 'Runner1', By: expect.any(String) });
    expect(entries[2].By).not.toBe(entries[0].By);
    expect(
      (await call(t, 'GET', `/api/director/runners/${race.raceId}/status-log`, { token: admin })).statusCode,
    ).toBe(200);
  });

  it('denies anonymous (401) and other directors (404), without writing', async () => {
    const r2 = race.runners[1].runnerId;
    const before = await t.database.db.select().from(runnerStatusLog);
    expect((await put(r2, { Status: 'DNF', Reason: null }, null)).statusCode).toBe(401);
    expect((await put(r2, { Status: 'DNF', Reason: null }, bob)).statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/director/runners/${race.raceId}/status-log`)).statusCode).toBe(401);
    expect(
      (await call(t, 'GET', `/api/director/runners/${race.raceId}/status-log`, { token: bob })).statusCode,
    ).toBe(404);
    expect(await t.database.db.select().from(runnerStatusLog)).toEqual(before);
    const [row] = await t.database.db.select().from(runners).where(eq(runners.id, r2));
    expect(row.status).toBeNull();
  });

  it('answers bad input with 400 naming the field, and an unknown runner with 404', async () => {
    const r2 = race.runners[1].runnerId;
    const before = await t.database.db.select().from(runnerStatusLog);
    for (const body of [
      {},
      { Status: 'dnf' },
      { Status: 'OUT' },
      { Status: 'DNF', Reason: 'x'.repeat(501) },
      [],
    ]) {
      const res = await put(r2, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    expect((await put(r2, { Status: 'DNF' })).statusCode).toBe(200);
    expect((await put(2_000_000_000, { Status: 'DNF' })).json()).toMatchObject({ error: 'runner_not_found' });
    expect((await put(r2, { Status: 'DNF' }, bob)).statusCode).toBe(404);
    const after = await t.database.db.select().from(runnerStatusLog);
    expect(after.length).toBe(before.length + 1);
  });
});
