import { createHash, randomUUID } from 'node:crypto';
import type { CheckinAnswer, LeaderboardRow } from '@racebeacon/domain';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/db/schema';
import { checkinEntries, checkinLinks, checkpoints, runnerStatusLog } from '../src/db/schema-race-ops';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;

/**
 * Aid-station check-ins through the API: links (create, list, revoke → 401), the volunteer's page, entries that are
 * idempotent by EntryId (sequential and concurrent repeats), unknown bibs, bad times, a check-in as a fix of the live
 * race (a runner with no GPS fix moves on the leaderboard, loaded or rebuilt), and a DNF at the checkpoint.
 */
describe.each(dbKinds)('aid-station check-ins (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let owner: string;
  let other: string;
  let aidId: number;
  let finishId: number;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 4, clockStartMs: now - 60 * MIN, expectedIntervalS: 600 });
    owner = await t.issuer.director('dir-live');
    other = await t.issuer.director('someone-else');
    const cps = await t.app.db
      .insert(checkpoints)
      .values([
        { raceId: race.raceId, seq: 0, kind: 'start', name: 'Start', distanceM: 0, ...pointAlong(0) },
        {
          raceId: race.raceId,
          seq: 1,
          kind: 'waypoint',
          name: 'Aid 1',
          distanceM: 5000,
          ...pointAlong(5000),
        },
        {
          raceId: race.raceId,
          seq: 2,
          kind: 'finish',
          name: 'Finish',
          distanceM: 10000,
          ...pointAlong(10000),
        },
      ])
      .returning({ id: checkpoints.id });
    aidId = cps[1].id;
    finishId = cps[2].id;
    // Runners 1 and 2 have GPS fixes up to 2 km; runners 3 and 4 none (their trackers are dead).
    for (const [i, d] of [
      [0, 2000],
      [1, 1800],
    ] as const)
      await postFixes(t.app, race.raceId, race.runners[i], [
        { t: now - 30 * MIN, ...pointAlong(d / 2) },
        { t: now - 5 * MIN, ...pointAlong(d) },
      ]);
  });
  afterAll(async () => t?.close());

  const createLink = async (checkpointId = aidId, token = owner) =>
    call(t, 'POST', `/api/director/races/${race.raceId}/checkpoints/${checkpointId}/checkin-links`, {
      token,
      body: { Label: 'Aid 1 table' },
    });
  const tokenOf = (url: string) => url.replace('/checkin/', '');
  const entry = (over: Record<string, unknown> = {}) => ({
    EntryId: randomUUID(),
    BibNumber: '3',
    Kind: 'in',
    Time: new Date(now - 10 * MIN).toISOString(),
    ...over,
  });
  const post = (token: string, body: unknown) => call(t, 'POST', `/api/checkin/${token}`, { body });
  const leaderboard = async () =>
    (await call(t, 'GET', `/api/open/races/${race.raceId}/leaderboard`)).json<LeaderboardRow[]>();

  it('creates a link whose token is shown once and stored only as a hash', async () => {
    const res = await createLink();
    expect(res.statusCode).toBe(201);
    const link = res.json();
    expect(link).toMatchObject({
      RaceId: race.raceId,
      CheckpointId: aidId,
      CheckpointName: 'Aid 1',
      Label: 'Aid 1 table',
      RevokedAt: null,
      Entries: 0,
    });
    expect(link.Url).toMatch(/^\/checkin\/[A-Za-z0-9_-]{32}$/);
    const [row] = await t.app.db.select().from(checkinLinks).where(eq(checkinLinks.id, link.LinkId));
    expect(row.tokenHash).toBe(createHash('sha256').update(tokenOf(link.Url)).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(tokenOf(link.Url));
    const list = await call(t, 'GET', `/api/director/races/${race.raceId}/checkin-links`, { token: owner });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((l: { LinkId: number }) => l.LinkId)).toContain(link.LinkId);
    expect(list.body).not.toContain(tokenOf(link.Url));
  });

  it('refuses a checkpoint of another race, and another director', async () => {
    expect((await createLink(2_000_000)).statusCode).toBe(404);
    const res = await createLink(aidId, other);
    expect(res.statusCode).toBe(404);
  });

  it('gives the volunteer page its race, checkpoint and runners by bib', async () => {
    const token = tokenOf((await createLink()).json().Url);
    const res = await call(t, 'GET', `/api/checkin/${token}`);
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ RaceName: 'Live Test Race', CheckpointName: 'Aid 1', DistanceKm: 5 });
    expect(page.Runners.map((r: { BibNumber: string }) => r.BibNumber)).toEqual(['1', '2', '3', '4']);
    expect(page.Runners[2]).toMatchObject({ FirstName: 'Runner3', LastName: 'Test3', Status: null });
  });

  it('answers 401 for an unknown or malformed token', async () => {
    for (const token of ['A'.repeat(32), 'short', 'B'.repeat(33)])
      for (const res of [await call(t, 'GET', `/api/checkin/${token}`), await post(token, entry())]) {
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toBe('checkin_link_invalid');
      }
  });

  it('places a runner with no GPS fix at the checkpoint when the live race is built from the database', async () => {
    const token = tokenOf((await createLink()).json().Url);
    // Nobody has read the race yet: the live state is built from the database, check-ins included.
    const res = await post(token, entry({ BibNumber: '3' }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      RunnerId: race.runners[2].runnerId,
      Kind: 'in',
      CheckpointName: 'Aid 1',
    });
    const rows = await leaderboard();
    const r3 = rows.find((r) => r.BibNumber === '3')!;
    expect(r3.Rank).toBe(1);
    expect(r3.DistanceKm).toBeCloseTo(5, 1);
    expect(r3.LastPingTime).toBe(new Date(now - 10 * MIN).toISOString());
  });

  it('moves a runner with no GPS fix on the loaded leaderboard (the check-in event)', async () => {
    const token = tokenOf((await createLink()).json().Url);
    const before = (await leaderboard()).find((r) => r.BibNumber === '4')!;
    expect(before.Rank).toBeNull();
    const res = await post(token, entry({ BibNumber: '4', Time: new Date(now - 8 * MIN).toISOString() }));
    expect(res.statusCode).toBe(201);
    const rows = await leaderboard();
    const r4 = rows.find((r) => r.BibNumber === '4')!;
    expect(r4.DistanceKm).toBeCloseTo(5, 1);
    // Runner 3 checked in earlier at the same place: 4 is second, both ahead of the GPS runners at 2 km.
    expect(rows.slice(0, 4).map((r) => r.BibNumber)).toEqual(['3', '4', '1', '2']);
  });

  it('makes the check-in time the split at its checkpoint, over the GPS estimate', async () => {
    const token = tokenOf((await createLink()).json().Url);
    // Runner 1's GPS passes Aid 1 (5 km) between fixes at 4 and 6 km: an estimated split about now − 2 min.
    await postFixes(t.app, race.raceId, race.runners[0], [
      { t: now - 3 * MIN, ...pointAlong(4000) },
      { t: now - MIN, ...pointAlong(6000) },
    ]);
    const checkedIn = new Date(now - 150_000).toISOString();
    expect((await post(token, entry({ BibNumber: '1', Time: checkedIn }))).statusCode).toBe(201);
    const splits = (await call(t, 'GET', `/api/open/races/${race.raceId}/splits`)).json<
      { BibNumber: string; Splits: { CheckpointId: number; PassingTime: string; Source: string }[] }[]
    >();
    const at = (bib: string) =>
      splits.find((r) => r.BibNumber === bib)!.Splits.find((x) => x.CheckpointId === aidId);
    expect(at('1')).toMatchObject({ PassingTime: checkedIn, Source: 'check-in' });
    // Runner 3 never sent a GPS fix: the check-in alone is the split.
    expect(at('3')).toMatchObject({
      PassingTime: new Date(now - 10 * MIN).toISOString(),
      Source: 'check-in',
    });
  });

  it('answers a repeat with the first answer, and stores one row for 10 concurrent identical posts', async () => {
    const token = tokenOf((await createLink()).json().Url);
    const body = entry({ BibNumber: '1', Kind: 'out', Time: new Date(now - 2 * MIN).toISOString() });
    const first = await post(token, body);
    expect(first.statusCode).toBe(201);
    const again = await post(token, body);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());

    const concurrent = entry({ BibNumber: '2', Time: new Date(now - 3 * MIN).toISOString() });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(token, concurrent)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(201));
    const bodies = answers.map((a) => a.json<CheckinAnswer>());
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    const stored = await t.app.db
      .select()
      .from(checkinEntries)
      .where(and(eq(checkinEntries.raceId, race.raceId), eq(checkinEntries.entryId, concurrent.EntryId)));
    expect(stored).toHaveLength(1);
    expect(stored[0].answer).toEqual(bodies[0]);
  });

  it('refuses an EntryId reused for another entry (409), an unknown bib (404), bad times and bodies (400)', async () => {
    const token = tokenOf((await createLink()).json().Url);
    const body = entry({ BibNumber: '1' });
    expect((await post(token, body)).statusCode).toBe(201);
    const reused = await post(token, { ...body, BibNumber: '2' });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error).toBe('entry_id_reused');

    const unknown = await post(token, entry({ BibNumber: '999' }));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: 'bib_not_found',
      message: 'No runner wears bib 999 in this race. Check the number and try again.',
    });

    const future = await post(token, entry({ Time: new Date(now + 60 * MIN).toISOString() }));
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toMatch(/future/);
    const early = await post(token, entry({ Time: new Date(now - 120 * MIN).toISOString() }));
    expect(early.statusCode).toBe(400);
    expect(early.json().message).toMatch(/before the race/);
    for (const bad of [
      {},
      entry({ Kind: 'through' }),
      entry({ EntryId: 'x' }),
      entry({ Time: 'yesterday' }),
      entry({ BibNumber: '' }),
    ]) {
      const res = await post(token, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
    const rows = await t.app.db.select().from(checkinEntries).where(eq(checkinEntries.entryId, body.EntryId));
    expect(rows.map((r) => r.bibNumber)).toEqual(['1']);
  });

  it('sets a DNF with reason "at {checkpoint}" and the checkpoint’s distance, logged once', async () => {
    const token = tokenOf((await createLink(finishId)).json().Url);
    const dnfAid = tokenOf((await createLink()).json().Url);
    const body = entry({ BibNumber: '2', Kind: 'dnf', Time: new Date(now - MIN).toISOString() });
    const res = await post(dnfAid, body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Kind: 'dnf', Status: 'DNF', CheckpointName: 'Aid 1' });
    expect((await post(dnfAid, body)).json()).toEqual(res.json());
    const [r2] = await t.app.db.select().from(runners).where(eq(runners.id, race.runners[1].runnerId));
    expect(r2).toMatchObject({ status: 'DNF', statusReason: 'at Aid 1' });
    const log = await t.app.db
      .select()
      .from(runnerStatusLog)
      .where(eq(runnerStatusLog.runnerId, race.runners[1].runnerId));
    expect(log.map((l) => [l.status, l.reason])).toEqual([['DNF', 'at Aid 1']]);
    // The volunteer page shows the status; later entries still go through and report it.
    const page = (await call(t, 'GET', `/api/checkin/${token}`)).json();
    expect(page.Runners.find((r: { BibNumber: string }) => r.BibNumber === '2').Status).toBe('DNF');
    const later = await post(token, entry({ BibNumber: '2', Time: new Date(now).toISOString() }));
    expect(later.json().Status).toBe('DNF');
  });

  it('revokes a link: page and posts answer 401, the list shows when; other directors cannot', async () => {
    const created = (await createLink()).json();
    const token = tokenOf(created.Url);
    const body = entry({ BibNumber: '1', Time: new Date(now - 4 * MIN).toISOString() });
    expect((await post(token, body)).statusCode).toBe(201);
    const url = `/api/director/races/${race.raceId}/checkin-links/${created.LinkId}`;
    expect((await call(t, 'DELETE', url, { token: other })).statusCode).toBe(404);
    const revoked = await call(t, 'DELETE', url, { token: owner });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      LinkId: created.LinkId,
      Entries: 1,
      RevokedAt: expect.any(String),
    });
    expect((await call(t, 'GET', `/api/checkin/${token}`)).statusCode).toBe(401);
    expect((await post(token, body)).statusCode).toBe(401);
    // Revoking again keeps the first time.
    const again = await call(t, 'DELETE', url, { token: owner });
    expect(again.json().RevokedAt).toBe(revoked.json().RevokedAt);
    expect(
      (await call(t, 'DELETE', `/api/director/races/${race.raceId}/checkin-links/2000000`, { token: owner }))
        .statusCode,
    ).toBe(404);
  });
});
