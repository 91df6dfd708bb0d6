import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { raceEventsOnBus } from '../src/lib/race-events';
import type { TestContext } from './support/app';
import { call, createRace, startApiTest } from './support/api';

/** Services announce race changes after their commit; a failed announcement never fails the request. */
describe('race events publisher', () => {
  it('publishes race-updated on the bus', async () => {
    const publish = vi.fn(async () => {});
    await raceEventsOnBus({ publish }, { warn: vi.fn() }).raceChanged(7);
    expect(publish).toHaveBeenCalledWith({ type: 'race-updated', raceId: 7 });
  });

  it('logs a failed publish and resolves', async () => {
    const warn = vi.fn();
    const publish = vi.fn(async () => Promise.reject(new Error('bus down')));
    await expect(raceEventsOnBus({ publish }, { warn }).raceChanged(7)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ raceId: 7 }), expect.any(String));
  });

  describe('in the app', () => {
    let t: TestContext, alice: string;
    beforeAll(async () => {
      ({ t, alice } = await startApiTest('pglite'));
    });
    afterAll(async () => {
      vi.restoreAllMocks();
      await t?.close();
    });

    it('answers a committed change with success when the bus fails', async () => {
      const raceId = await createRace(t, alice);
      const publish = vi.spyOn(t.app.events, 'publish').mockRejectedValue(new Error('bus down'));
      const res = await call(t, 'PUT', `/api/director/races/${raceId}`, {
        token: alice,
        body: { Name: 'Renamed while the bus is down' },
      });
      expect(res.statusCode).toBe(200);
      expect(publish).toHaveBeenCalledWith({ type: 'race-updated', raceId });
      publish.mockRestore();
      const read = await call(t, 'GET', `/api/director/races/${raceId}`, { token: alice });
      expect(read.json().Name).toBe('Renamed while the bus is down');
    });
  });
});
