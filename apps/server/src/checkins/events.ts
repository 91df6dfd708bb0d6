import type { EventBus, LiveEvent } from '../events/bus';

export type CheckinEvent = Extract<LiveEvent, { type: 'checkin' }>;

/**
 * Announces a stored check-in (after commit) so every process's live race applies it as a fix at the checkpoint.
 * Never rejects: the entry is stored and the live state is rebuilt from the database on its next load anyway.
 */
export interface CheckinEvents {
  checkedIn(e: CheckinEvent): Promise<void>;
}

export function checkinEventsOnBus(
  bus: Pick<EventBus, 'publish'>,
  log: { warn(obj: unknown, msg?: string): void },
): CheckinEvents {
  return {
    async checkedIn(e) {
      try {
        await bus.publish(e);
      } catch (err) {
        log.warn({ err, raceId: e.raceId }, 'check-in notification failed');
      }
    },
  };
}

export const noCheckinEvents: CheckinEvents = { checkedIn: async () => {} };
