import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, startApiTest } from './support/api';
import { dbKinds } from './support/databases';
import { gpxFixture } from './support/fixtures';

/** Every change live viewers can see publishes { type: 'race-updated', raceId } on the event bus. */
describe.each(dbKinds)('race-updated events (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;
  const seen: number[] = [];
  let unsubscribe: () => void = () => {};

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
    const bus = (
      t.app as unknown as {
        events: { subscribe(fn: (e: { type: string; raceId?: number }) => void): () => void };
      }
    ).events;
    unsubscribe = bus.subscribe((e) => {
      if (e.type === 'race-updated' && typeof e.raceId === 'number') seen.push(e.raceId);
    });
  });
  afterAll(async () => {
    unsubscribe();
    await t?.close();
  });

  /** Runs a call and expects exactly `count` race-updated events for raceId (0 for a denied call). */
  async function expectEvents(raceId: number, count: number, run: () => Promise<{ statusCode: number }>) {
    seen.length = 0;
    const res = await run();
    if (count > 0) {
      expect(res.statusCode).toBeLessThan(300);
      await vi.waitFor(() => expect(seen.filter((id) => id === raceId)).toHaveLength(count));
    } else {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      // a denied call publishes nothing; give a cross-process bus a moment to prove it
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([]);
    }
  }

  it('publishes for race, runner, course and device changes, and not for denied calls', async () => {
    const raceId = await createRace(t, alice, { Name: 'Evented' }, { approve: true, adminToken: admin });
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/races/${raceId}`, { token: alice, body: { Name: 'Evented 2' } }),
    );
    await expectEvents(raceId, 0, () =>
      call(t, 'PUT', `/api/director/races/${raceId}`, { token: bob, body: { Name: 'Nope' } }),
    );
    let runnerId = 0;
    await expectEvents(raceId, 1, async () => {
      const res = await call(t, 'POST', `/api/director/runners/${raceId}`, {
        token: alice,
        body: { FirstName: 'E', LastName: 'V' },
      });
      runnerId = res.json().RunnerId;
      return res;
    });
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/runners/${raceId}/${runnerId}`, {
        token: alice,
        body: { FirstName: 'E', LastName: 'W' },
      }),
    );
    let courseId = 0;
    await expectEvents(raceId, 1, async () => {
      const { payload, headers } = multipartFile(gpxFixture('gpx10-track.gpx'));
      const res = await call(t, 'POST', `/api/director/course/${raceId}`, { token: alice, payload, headers });
      courseId = res.json().CourseId;
      return res;
    });
    const deviceId = (
      await call(t, 'POST', '/api/admin/devices', { token: admin, body: { Name: 'Ev' } })
    ).json().DeviceId;
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/admin/devices/${deviceId}/assign-race/${raceId}`, { token: admin }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`, {
        token: alice,
      }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/devices/${deviceId}/race/${raceId}/unassign`, { token: alice }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/admin/devices/${deviceId}/unassign`, { token: admin }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/races/start/${raceId}`, { token: alice }),
    );
    await expectEvents(raceId, 0, () =>
      call(t, 'PUT', `/api/director/races/start/${raceId}`, { token: alice }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'PUT', `/api/director/races/end/${raceId}`, { token: alice }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'DELETE', `/api/director/course/${raceId}/${courseId}`, { token: alice }),
    );
    await expectEvents(raceId, 1, () =>
      call(t, 'DELETE', `/api/director/runners/${raceId}/${runnerId}`, { token: alice }),
    );
    await expectEvents(raceId, 1, () => call(t, 'DELETE', `/api/director/races/${raceId}`, { token: alice }));
  });
});
