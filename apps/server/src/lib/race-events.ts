import type { EventBus } from '../events/bus';

/**
 * What the services announce about races. A service that changes what live viewers see of a race (the race itself,
 * its runners, its course, which devices it holds and who carries them) calls `raceChanged` once its transaction
 * has committed; routes never announce anything. Injected, so a service can be built with any implementation.
 */
export interface RaceEvents {
  /**
   * Announces that a race changed. Resolves once the announcement is sent and never rejects: the change is
   * already committed, so a failed announcement is logged by the implementation and the request still succeeds.
   */
  raceChanged(raceId: number): Promise<void>;
}

interface WarnLogger {
  warn(obj: unknown, msg?: string): void;
}

/** Announces on the event bus as `race-updated` (live state re-reads the race from the database). */
export function raceEventsOnBus(bus: Pick<EventBus, 'publish'>, log: WarnLogger): RaceEvents {
  return {
    async raceChanged(raceId) {
      try {
        await bus.publish({ type: 'race-updated', raceId });
      } catch (err) {
        log.warn({ err, raceId }, 'race-updated notification failed');
      }
    },
  };
}

/** Announces nothing: for an app without an event bus (e.g. one built only to list its routes). */
export const noRaceEvents: RaceEvents = { raceChanged: async () => {} };
