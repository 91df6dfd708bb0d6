import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAssignments, runners } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

/**
 * Simultaneous requests racing for the same rule (real parallel connections on PostgreSQL): exactly one wins,
 * the others get the rule's 409, never a 500, and the database holds exactly the winner's change.
 */
describe.each(dbKinds)('concurrent requests (%s)', (kind) => {
  let t: TestContext, alice: string, admin: string;
  beforeAll(async () => {
    ({ t, alice, admin } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  const statuses = (res: { statusCode: number }[]) => res.map((r) => r.statusCode).sort();

  it('one bib number, eight simultaneous runners: one 201, seven 409', async () => {
    const raceId = await createRace(t, alice, { Name: 'Bib rush' });
    const res = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(t, 'POST', `/api/director/runners/${raceId}`, {
          token: alice,
          body: { FirstName: `R${i}`, LastName: 'X', BibNumber: '42' },
        }),
      ),
    );
    expect(statuses(res)).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of res.filter((x) => x.statusCode === 409)) expect(r.json().error).toBe('duplicate_bib');
    expect(await t.database.db.select().from(runners).where(eq(runners.raceId, raceId))).toHaveLength(1);
  });

  it('start pressed five times at once: one 200, four 409, one clock', async () => {
    const raceId = await createRace(t, alice, { Name: 'Start rush' }, { approve: true, adminToken: admin });
    const res = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(t, 'PUT', `/api/director/races/start/${raceId}`, { token: alice }),
      ),
    );
    expect(statuses(res)).toEqual([200, 409, 409, 409, 409]);
    const winner = res.find((r) => r.statusCode === 200)!.json();
    const now = (await call(t, 'GET', `/api/director/races/${raceId}`, { token: alice })).json();
    expect(now.ClockStartedAt).toBe(winner.ClockStartedAt);
  });

  it('one device to four runners at once: one hand-over, one open history row', async () => {
    const raceId = await createRace(t, alice, { Name: 'Device rush' });
    const runnerIds: number[] = [];
    for (let i = 0; i < 4; i++) {
      runnerIds.push(
        (
          await call(t, 'POST', `/api/director/runners/${raceId}`, {
            token: alice,
            body: { FirstName: `R${i}`, LastName: 'Y' },
          })
        ).json().RunnerId,
      );
    }
    const deviceId = (
      await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'Only one' } })
    ).json().DeviceId;
    await call(t, 'PUT', `/api/admin/devices/${deviceId}/assign-race/${raceId}`, { token: admin });
    const res = await Promise.all(
      runnerIds.map((r) =>
        call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/assign-runner/${r}`, {
          token: alice,
        }),
      ),
    );
    expect(statuses(res)).toEqual([200, 409, 409, 409]);
    const rows = await t.database.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.deviceId, deviceId));
    expect(rows).toHaveLength(1);
    expect(rows[0].runnerId).toBe(res.find((r) => r.statusCode === 200)!.json().AssignedRunnerId);
  });

  it('two devices to one runner at once: one wins, the runner holds one device', async () => {
    const raceId = await createRace(t, alice, { Name: 'Runner rush' });
    const runnerId = (
      await call(t, 'POST', `/api/director/runners/${raceId}`, {
        token: alice,
        body: { FirstName: 'Solo', LastName: 'Z' },
      })
    ).json().RunnerId;
    const ids: number[] = [];
    for (const Name of ['A', 'B', 'C']) {
      const id = (await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name } })).json()
        .DeviceId;
      await call(t, 'PUT', `/api/admin/devices/${id}/assign-race/${raceId}`, { token: admin });
      ids.push(id);
    }
    const res = await Promise.all(
      ids.map((d) =>
        call(t, 'PUT', `/api/director/devices/${d}/race/${raceId}/assign-runner/${runnerId}`, {
          token: alice,
        }),
      ),
    );
    expect(statuses(res)).toEqual([200, 409, 409]);
    for (const r of res.filter((x) => x.statusCode === 409)) expect(r.json().error).toBe('runner_has_device');
    const list = (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json();
    expect(list[0].DeviceId).toBe(res.find((r) => r.statusCode === 200)!.json().DeviceId);
    const open = await t.database.db
      .select()
      .from(deviceAssignments)
      .where(eq(deviceAssignments.runnerId, runnerId));
    expect(open).toHaveLength(1);
  });
});
