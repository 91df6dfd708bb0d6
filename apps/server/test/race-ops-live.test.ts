import type { Alert, LeaderboardRow, RunnerSplits } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSweepJob } from '../src/jobs/alert-sweep-job';
import { waitFor } from './ingest-fixtures';
import { call, startApiTest } from './support/api';
import type { TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;

/**
 * The live side of race operations: splits interpolated from the matched fixes (overridden by a check-in), the last
 * checkpoint passed and the cutoff risk on the public leaderboard, DNF ranking, and the HQ's cutoff-risk alert
 * raised once.
 */
describe.each(dbKinds)('splits, cutoffs and DNF on the live race (%s)', (kind) => {
  let t: TestContext, admin: string, owner: string;
  let race: SeededRace;
  let now: number;
  let aid: number; // checkpoint "Aid 1" at 5 km

  const leaderboard = async () =>
    (await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard`)).json<LeaderboardRow[]>();

  beforeAll(async () => {
    ({ t, admin } = await startApiTest(kind));
    owner = await t.issuer.director('dir-live');
    now = Date.now();
    race = await seedLiveRace(t.database.db, {
      runners: 3,
      clockStartMs: now - 60 * MIN,
      keyPrefix: `ops-${kind}-`,
    });
    const start = race.clockStartMs;
    const [fast, slow, quitter] = race.runners;
    // Fast: 3 km at 18 min, 6 km at 36 min, 9 km at 54 min (passes Aid 1 at 5 km at 30 min by interpolation).
    await postFixes(t.app, race.raceId, fast, [
      { t: start + 6 * MIN, ...pointAlong(1000) },
      { t: start + 18 * MIN, ...pointAlong(3000) },
      { t: start + 36 * MIN, ...pointAlong(6000) },
      { t: now - MIN, ...pointAlong(9000) },
    ]);
    // Slow: 10 min/km, last seen at 2 km.
    await postFixes(t.app, race.raceId, slow, [
      { t: start + 10 * MIN, ...pointAlong(1000) },
      { t: start + 20 * MIN, ...pointAlong(2000) },
    ]);
    // Quitter: 4 km, then gives up.
    await postFixes(t.app, race.raceId, quitter, [
      { t: start + 5 * MIN, ...pointAlong(1000) },
      { t: start + 25 * MIN, ...pointAlong(4000) },
    ]);
    await waitFor(leaderboard, (rows) => rows.every((r) => r.Status !== 'not-started'));
    const cps = (await call(t, 'GET', `/api/open/races/${race.raceId}/checkpoints`)).json();
    aid = cps.find((c: { Name: string }) => c.Name === 'Aid 1').CheckpointId;
  });
  afterAll(async () => t?.close());

  it('answers each runner’s splits, interpolated between the fixes around the checkpoint', async () => {
    const res = await call(t, 'GET', `/api/open/races/${race.raceId}/splits`);
    expect(res.statusCode).toBe(200);
    const splits = res.json<RunnerSplits[]>();
    const of = (k: number) => splits.find((s) => s.RunnerId === race.runners[k].runnerId)!;
    const start = new Date(race.clockStartMs).toISOString();
    expect(of(0).BibNumber).toBe(race.runners[0].bib);
    expect(of(0).Splits).toHaveLength(2);
    expect(of(0).Splits[0]).toEqual({
      CheckpointId: expect.any(Number),
      PassingTime: start,
      Source: 'gps',
      Estimated: false,
    });
    expect(of(0).Splits[1]).toMatchObject({ CheckpointId: aid, Source: 'gps', Estimated: true });
    const passedMin = (Date.parse(of(0).Splits[1].PassingTime) - race.clockStartMs) / MIN;
    expect(passedMin).toBeGreaterThan(29.5);
    expect(passedMin).toBeLessThan(30.5);
    expect(of(1).Splits.map((s) => s.PassingTime)).toEqual([start]);
    expect((await call(t, 'GET', '/api/open/races/2147483647/splits')).statusCode).toBe(404);
  });

  it('shows the last checkpoint passed and the cutoff risk, and ranks a DNF by the distance reached', async () => {
    // Cutoff at Aid 1: 45 min after the start. Slow (2 km at 20 min, 10 min/km) cannot make it; fast passed it.
    const put = await call(t, 'PUT', `/api/director/races/${race.raceId}/checkpoints/${aid}`, {
      token: owner,
      body: { CutoffTime: new Date(race.clockStartMs + 45 * MIN).toISOString() },
    });
    expect(put.statusCode).toBe(200);
    const dnf = await call(t, 'PUT', `/api/director/runners/${race.runners[2].runnerId}/status`, {
      token: admin,
      body: { Status: 'DNF', Reason: 'Stomach' },
    });
    expect(dnf.statusCode).toBe(200);
    expect(dnf.json().DistanceKm).toBeCloseTo(4, 1);
    const rows = await waitFor(leaderboard, (r) =>
      r.some((x) => x.Status === 'dnf' && x.CutoffRisk === false),
    );
    expect(rows.map((r) => [r.RunnerId, r.Rank, r.Status, r.LastCheckpoint, r.CutoffRisk])).toEqual([
      [race.runners[0].runnerId, 1, 'racing', 'Aid 1', false],
      [race.runners[1].runnerId, 2, 'stale', 'Start', true],
      [race.runners[2].runnerId, null, 'dnf', 'Start', false],
    ]);
    expect(rows[2].DistanceKm).toBeCloseTo(4, 1);
    const aidTime = Date.parse(rows[0].LastCheckpointTime!);
    expect(Math.abs(aidTime - (race.clockStartMs + 30 * MIN))).toBeLessThan(30_000);
  });

  it('raises the cutoff-risk alert once, even after HQ resolves it; no lost-signal for the DNF runner', async () => {
    const job = new AlertSweepJob({
      db: t.app.db,
      live: t.app.live,
      alerts: t.app.alerts,
      log: t.app.log,
      everyMs: 15_000,
      now: () => now,
    });
    const alerts = async () =>
      (await call(t, 'GET', `/api/director/races/${race.raceId}/alerts`, { token: owner })).json<Alert[]>();
    await job.runOnce();
    const first = await alerts();
    const risk = first.filter((a) => a.Kind === 'cutoff-risk');
    expect(risk.map((a) => [a.RunnerId, a.State])).toEqual([[race.runners[1].runnerId, 'open']]);
    expect(risk[0].Message).toContain('Aid 1');
    // The quitter is silent for 35 min, but a DNF is out of the race: nothing about them.
    expect(first.filter((a) => a.RunnerId === race.runners[2].runnerId)).toEqual([]);
    const resolve = await call(t, 'POST', `/api/director/alerts/${risk[0].AlertId}/resolve`, {
      token: owner,
      body: { Note: 'Told the sweeper' },
    });
    expect(resolve.statusCode).toBe(200);
    await job.runOnce();
    await job.runOnce();
    const after = (await alerts()).filter((a) => a.Kind === 'cutoff-risk');
    expect(after.map((a) => [a.RunnerId, a.State])).toEqual([[race.runners[1].runnerId, 'resolved']]);
  });

  it('a check-in at the checkpoint overrides the GPS split', async () => {
    const cp = (await call(t, 'GET', `/api/open/races/${race.raceId}/checkpoints`)).json();
    const aidCp = cp.find((c: { CheckpointId: number }) => c.CheckpointId === aid);
    const at = race.clockStartMs + 31 * MIN;
    await t.app.events.publish({
      type: 'checkin',
      raceId: race.raceId,
      runnerId: race.runners[0].runnerId,
      checkpointId: aid,
      kind: 'in',
      time: new Date(at).toISOString(),
      lat: pointAlong(aidCp.DistanceKm * 1000).lat,
      lon: pointAlong(0).lon,
    });
    const splits = await waitFor(
      async () => (await call(t, 'GET', `/api/open/races/${race.raceId}/splits`)).json<RunnerSplits[]>(),
      (s) => s.some((r) => r.Splits.some((x) => x.Source === 'check-in')),
    );
    const fast = splits.find((s) => s.RunnerId === race.runners[0].runnerId)!;
    expect(fast.Splits[1]).toEqual({
      CheckpointId: aid,
      PassingTime: new Date(at).toISOString(),
      Source: 'check-in',
      Estimated: false,
    });
  });
});
