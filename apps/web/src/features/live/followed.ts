import { useCallback, useEffect, useMemo, useState } from 'react';
import { pushEnabled, syncPush } from './push';

/**
 * The runners a spectator follows, per race, kept in the browser (localStorage): pinned at the top of the
 * leaderboard, highlighted on the map and the race-flow chart. Every component of the page sees a change at once
 * (an in-page event), other tabs through the storage event.
 */

const EVENT = 'racebeacon:followed';
const key = (raceId: number) => `racebeacon.followed.${raceId}`;

export function readFollowed(raceId: number): number[] {
  try {
    const raw = JSON.parse(localStorage.getItem(key(raceId)) ?? '[]') as unknown;
    return Array.isArray(raw) ? raw.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

export function writeFollowed(raceId: number, ids: number[]): void {
  try {
    localStorage.setItem(key(raceId), JSON.stringify(ids));
  } catch {
    // Storage full or disabled (private mode): following lasts for this page only.
  }
  // Notifications (push.ts) are about the same runners.
  if (pushEnabled(raceId))
    syncPush(raceId, ids).catch((err: unknown) =>
      console.warn('Notifications: the followed runners not updated', err),
    );
  window.dispatchEvent(new CustomEvent(EVENT, { detail: raceId }));
}

/** Toggles `runnerId` in a list of followed ids (pure). */
export function toggled(ids: readonly number[], runnerId: number): number[] {
  return ids.includes(runnerId) ? ids.filter((x) => x !== runnerId) : [...ids, runnerId];
}

/** Rows with the followed runners first (in their leaderboard order), then everyone else (pure). */
export function pinFollowed<T extends { RunnerId: number }>(
  rows: readonly T[],
  followed: ReadonlySet<number>,
): T[] {
  if (followed.size === 0) return rows as T[];
  return [...rows.filter((r) => followed.has(r.RunnerId)), ...rows.filter((r) => !followed.has(r.RunnerId))];
}

export function useFollowed(raceId: number): {
  ids: ReadonlySet<number>;
  toggle(runnerId: number): void;
} {
  const [list, setList] = useState<number[]>(() => readFollowed(raceId));
  useEffect(() => {
    setList(readFollowed(raceId));
    const reread = () => setList(readFollowed(raceId));
    window.addEventListener(EVENT, reread);
    window.addEventListener('storage', reread);
    return () => {
      window.removeEventListener(EVENT, reread);
      window.removeEventListener('storage', reread);
    };
  }, [raceId]);
  const toggle = useCallback(
    (runnerId: number) => writeFollowed(raceId, toggled(readFollowed(raceId), runnerId)),
    [raceId],
  );
  const ids = useMemo(() => new Set(list), [list]);
  return { ids, toggle };
}
