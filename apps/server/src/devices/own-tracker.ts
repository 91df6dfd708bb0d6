/**
 * A runner's own tracker, attached by the race's director: a device created for that race only. Its tracking key
 * starts with `rt-{raceId}-`, which is how it is told from a device of the admin's fleet (detaching deletes it
 * unless it stored fixes; an admin cannot move it to another race).
 */
export const ownTrackerKeyPrefix = (raceId: number) => `rt-${raceId}-`;

export const isOwnTrackerOf = (trackingKey: string, raceId: number) =>
  trackingKey.startsWith(ownTrackerKeyPrefix(raceId));

/** The race an own tracker was created for, or null for a fleet device. */
export function ownTrackerRace(trackingKey: string): number | null {
  const m = /^rt-(\d+)-/.exec(trackingKey);
  return m ? Number(m[1]) : null;
}
