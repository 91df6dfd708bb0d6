import type { Alert } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSweepJob } from '../src/jobs/alert-sweep-job';
import { waitFor } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRunner } from './support/live-seed';

const MIN = 60_000;

describe.each(dbKinds)('race HQ sweep: no movement and off course (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('a runner stuck within 100 m while pinging → no-movement, cleared when moving on; off course → off-course', async () => {
    const now = Date.now();
    const race = await seedLiveRace(t.app.db, {
      runners: 2,
      clockStartMs: now - 90 * MIN,
      keyPrefix: `move-${kind}`,
    });
    const [stuck, lost] = race.runners;
    const token = await t.issuer.director('dir-live');
    const url = `/api/director/races/${race.raceId}/alert-settings`;
    const put = await call(t, 'PUT', url, { token, body: { NoMovementMinutes: 30, OffCourseFixes: 2 } });
    expect(put.statusCode).toBe(200);
    let clock = now - 4 * MIN;
    const job = new AlertSweepJob({
      db: t.app.db,
      live: t.app.live,
      alerts: t.app.alerts,
      log: t.app.log,
      everyMs: 15_000,
      now: () => clock,
    });
    const open = async () =>
      (await call(t, 'GET', `/api/director/races/${race.raceId}/alerts?state=open`, { token }))
        .json<Alert[]>()
        .map((a) => [a.RunnerId, a.Kind])
        .sort();
    const newestFix = (r: SeededRunner, at: number) =>
      waitFor(
        () => t.app.live.alertSubjects(race.raceId, clock),
        (s) => s.find((x) => x.runnerId === r.runnerId)?.input.fixes.at(-1)?.t === at,
      );

    // Stuck: a fix every minute, 35 min within 60 m of km 2 (the aid station is at km 5).
    const stuckFixes = [{ t: now - 45 * MIN, ...pointAlong(1700) }];
    for (let m = 40; m >= 5; m--) stuckFixes.push({ t: now - m * MIN, ...pointAlong(2000 + (m % 3) * 20) });
    await postFixes(t.app, race.raceId, stuck, stuckFixes);
    // Off course: on the line, then 4 fixes in a row 1 km east of it.
    const lostFixes = [{ t: now - 10 * MIN, ...pointAlong(3000) }];
    for (let m = 8; m >= 5; m--) lostFixes.push({ t: now - m * MIN, ...pointAlong(3000, 1000) });
    await postFixes(t.app, race.raceId, lost, lostFixes);
    await newestFix(stuck, now - 5 * MIN);
    await newestFix(lost, now - 5 * MIN);

    await job.runOnce();
    expect(await open()).toEqual(
      [
        [stuck.runnerId, 'no-movement'],
        [lost.runnerId, 'off-course'],
      ].sort(),
    );
    await job.runOnce(); // one alert per runner and kind
    expect(await open()).toHaveLength(2);

    // The stuck runner moves on: the next sweep resolves its no-movement by itself.
    await postFixes(t.app, race.raceId, stuck, [
      { t: now - 4 * MIN + 20_000, ...pointAlong(2150) },
      { t: now - 3 * MIN, ...pointAlong(2300) },
    ]);
    clock = now - 3 * MIN + 20_000;
    await newestFix(stuck, now - 3 * MIN);
    await job.runOnce();
    expect(await open()).toEqual([[lost.runnerId, 'off-course']]);
    const resolved = (
      await call(t, 'GET', `/api/director/races/${race.raceId}/alerts?state=resolved`, { token })
    ).json<Alert[]>();
    expect(resolved).toMatchObject([{ RunnerId: stuck.runnerId, Kind: 'no-movement', ResolvedBy: null }]);

    // An ongoing alert whose runner has not moved is rewritten (and sent to HQ screens) once a minute at most.
    const offCourseSeen = async () =>
      (await call(t, 'GET', `/api/director/races/${race.raceId}/alerts?state=open`, { token }))
        .json<Alert[]>()
        .find((a) => a.Kind === 'off-course')!.LastSeenAt;
    const refreshedAt = clock;
    expect(await offCourseSeen()).toBe(new Date(refreshedAt).toISOString());
    clock = refreshedAt + 30_000;
    await job.runOnce();
    expect(await offCourseSeen()).toBe(new Date(refreshedAt).toISOString());
    clock = refreshedAt + 70_000;
    await job.runOnce();
    expect(await offCourseSeen()).toBe(new Date(clock).toISOString());
  });
});
