import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { races, runners } from '../src/db/schema';
import { checkinEntries, checkpoints } from '../src/db/schema-race-ops';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';

const MIN = 60_000;

/**
 * What a check-in may change (issue 24.6): a volunteer's DNF never downgrades a status a person set (DSQ, DNS, a
 * director's DNF keeps its reason) or a finish (checked in at the finish, or past it by GPS); after End Race a link
 * changes nothing (409 race_ended; a repeat of an entry stored before still gets its first answer); a check-in dated
 * 2000-01-01 for a race with no start time is refused (400 checkin_time). Each refusal is a 4xx with a message the
 * volunteer's outbox shows and does not retry.
 */
describe.each(dbKinds)('check-in rules (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let director: string;
  let aid: string;
  let finish: string;
  const now = Date.now();

  /** Start, Aid 1 (5 km) and Finish (10 km) of a race, and a link at Aid 1 and at the finish. */
  async function linksOf(raceId: number) {
    const cps = await t.app.db
      .insert(checkpoints)
      .values([
        { raceId, seq: 0, kind: 'start', name: 'Start', distanceM: 0, ...pointAlong(0) },
        { raceId, seq: 1, kind: 'waypoint', name: 'Aid 1', distanceM: 5000, ...pointAlong(5000) },
        { raceId, seq: 2, kind: 'finish', name: 'Finish', distanceM: 10000, ...pointAlong(10000) },
      ])
      .returning({ id: checkpoints.id });
    const link = async (id: number) => {
      const res = await call(t, 'POST', `/api/director/races/${raceId}/checkpoints/${id}/checkin-links`, {
        token: director,
        body: {},
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ Url: string }>().Url.replace('/checkin/', '');
    };
    return { aid: await link(cps[1].id), finish: await link(cps[2].id) };
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    director = await t.issuer.director('dir-live');
    race = await seedLiveRace(t.app.db, { runners: 6, clockStartMs: now - 60 * MIN, expectedIntervalS: 600 });
    ({ aid, finish } = await linksOf(race.raceId));
  });
  afterAll(async () => t?.close());

  const post = (token: string, body: Record<string, unknown>) =>
    call(t, 'POST', `/api/checkin/${token}`, {
      body: { EntryId: randomUUID(), Kind: 'in', Time: new Date(now - 5 * MIN).toISOString(), ...body },
    });
  const runnerRow = async (i: number) =>
    (await t.app.db.select().from(runners).where(eq(runners.id, race.runners[i].runnerId)))[0];
  const setStatus = async (i: number, Status: string, Reason: string) => {
    const res = await call(t, 'PUT', `/api/director/runners/${race.runners[i].runnerId}/status`, {
      token: director,
      body: { Status, Reason },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('a DNF never overwrites a DSQ or DNS a director set; a director’s DNF keeps its reason', async () => {
    await setStatus(0, 'DSQ', 'cut the course');
    await setStatus(1, 'DNS', 'did not show up');
    await setStatus(2, 'DNF', 'injured, picked up by car');
    for (const [i, status, word] of [
      [0, 'DSQ', 'disqualified'],
      [1, 'DNS', 'not started'],
    ] as const) {
      const res = await post(aid, { BibNumber: String(i + 1), Kind: 'dnf' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({ error: 'status_kept', message: expect.stringContaining(word) });
      expect(res.json().message).toContain(`Bib ${i + 1}`);
      expect(await runnerRow(i)).toMatchObject({ status, statusBy: expect.not.stringContaining('check-in') });
    }
    const dnf = await post(aid, { BibNumber: '3', Kind: 'dnf' });
    expect(dnf.statusCode, dnf.body).toBe(201);
    expect(dnf.json()).toMatchObject({ Status: 'DNF' });
    expect(await runnerRow(2)).toMatchObject({ status: 'DNF', statusReason: 'injured, picked up by car' });
    // A passing of a DSQ runner is recorded; the DSQ stays.
    const passing = await post(aid, { BibNumber: '1', Kind: 'in' });
    expect(passing.statusCode, passing.body).toBe(201);
    expect(passing.json()).toMatchObject({ Status: 'DSQ' });
    expect((await runnerRow(0)).status).toBe('DSQ');
  });

  it('a DNF never overwrites a finish: checked in at the finish, or past it by GPS', async () => {
    expect((await post(finish, { BibNumber: '4', Kind: 'in' })).statusCode).toBe(201);
    const late = await post(aid, { BibNumber: '4', Kind: 'dnf' });
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json()).toEqual({ error: 'status_kept', message: expect.stringContaining('finished') });
    expect((await runnerRow(3)).status).toBeNull();

    // Runner 5 crossed the finish line on GPS.
    await postFixes(
      t.app,
      race.raceId,
      race.runners[4],
      [0, 2500, 5000, 7500, 10000].map((d, k) => ({ t: now - (50 - k * 10) * MIN, ...pointAlong(d) })),
    );
    const gps = await post(aid, { BibNumber: '5', Kind: 'dnf' });
    expect(gps.statusCode, gps.body).toBe(409);
    expect(gps.json().error).toBe('status_kept');
    expect((await runnerRow(4)).status).toBeNull();
    // Runner 6 did not finish: the volunteer's DNF stands.
    expect((await post(aid, { BibNumber: '6', Kind: 'dnf' })).statusCode).toBe(201);
    expect((await runnerRow(5)).status).toBe('DNF');
  });

  it('after End Race a link changes nothing (409 race_ended); an entry stored before still gets its first answer', async () => {
    const ended = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: now - 60 * MIN });
    const links = await linksOf(ended.raceId);
    const first = {
      EntryId: randomUUID(),
      BibNumber: '1',
      Kind: 'in',
      Time: new Date(now - 5 * MIN).toISOString(),
    };
    const stored = await call(t, 'POST', `/api/checkin/${links.aid}`, { body: first });
    expect(stored.statusCode, stored.body).toBe(201);
    const end = await call(t, 'PUT', `/api/director/races/end/${ended.raceId}`, { token: director });
    expect(end.statusCode, end.body).toBe(200);

    for (const body of [
      { BibNumber: '2', Kind: 'dnf' },
      { BibNumber: '2', Kind: 'in', Time: new Date(now - 30 * MIN).toISOString() },
    ]) {
      const res = await post(links.aid, body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({ error: 'race_ended', message: expect.stringContaining('ended') });
    }
    const repeat = await call(t, 'POST', `/api/checkin/${links.aid}`, { body: first });
    expect(repeat.statusCode).toBe(201);
    expect(repeat.json()).toEqual(stored.json());
    const rows = await t.app.db.select().from(checkinEntries).where(eq(checkinEntries.raceId, ended.raceId));
    expect(rows).toHaveLength(1);
    expect(
      (await t.app.db.select().from(runners).where(eq(runners.id, ended.runners[1].runnerId)))[0].status,
    ).toBe(null);
  });

  it('a race with no start time: 2000-01-01 is refused (400 checkin_time), an hour ago is kept', async () => {
    const open = await seedLiveRace(t.app.db, { runners: 1, clockStartMs: now });
    await t.app.db
      .update(races)
      .set({ startTime: null, clockStartedAt: null, hasStarted: false })
      .where(eq(races.id, open.raceId));
    const links = await linksOf(open.raceId);
    const old = await post(links.aid, { BibNumber: '1', Time: '2000-01-01T00:00:00.000Z' });
    expect(old.statusCode, old.body).toBe(400);
    expect(old.json()).toEqual({ error: 'checkin_time', message: expect.stringContaining('clock') });
    const recent = await post(links.aid, { BibNumber: '1', Time: new Date(now - 60 * MIN).toISOString() });
    expect(recent.statusCode, recent.body).toBe(201);
    expect(
      await t.app.db.select().from(checkinEntries).where(eq(checkinEntries.raceId, open.raceId)),
    ).toHaveLength(1);
  });
});
