import { describe, expect, it } from 'vitest';
import { prepareCourse } from '@racebeacon/domain';
import { RaceLive } from '../src/live/race-live';
import { LiveService } from '../src/live/service';
import { createTestApp } from './support/app';
import { postFixes, seedLiveRace } from './support/live-seed';
import type { LiveRaceRow, LiveRunnerRow } from '../src/live/repository';
import { pointAlong, straightCourse } from './support/live-seed';

/** The per-race in-memory state on its own (no database): late and duplicate fixes, battery, time-driven changes. */

const MIN = 60_000;
const start = Date.UTC(2026, 5, 1, 8, 0, 0);
const race: LiveRaceRow = {
  id: 1,
  approved: true,
  startTime: new Date(start),
  hasStarted: true,
  hasFinished: false,
  clockStartedAt: new Date(start),
  clockStoppedAt: null,
};
const runner = (id: number): LiveRunnerRow => ({
  id,
  firstName: `F${id}`,
  lastName: `L${id}`,
  bibNumber: String(id),
  gender: 'M',
  age: 30,
  batteryState: null,
  batteryPercent: null,
});
const fix = (minute: number, distanceM: number, batteryPercent: number | null = null) => ({
  t: start + minute * MIN,
  ...pointAlong(distanceM),
  batteryPercent,
  batteryState: null,
});

function build(nowMs: number) {
  return new RaceLive({
    race,
    course: prepareCourse(straightCourse(10_000)),
    runners: [runner(1), runner(2)],
    fixes: [
      { runnerId: 1, ...fix(5, 900, 80) },
      { runnerId: 1, ...fix(10, 1800, 79) },
    ],
    offCourseM: 200,
    nowMs,
  });
}

describe('RaceLive', () => {
  it('places a late fix in time order, ignores a duplicate, and keeps the battery of the newest fix', () => {
    const now = start + 16 * MIN;
    const live = build(now);
    expect(live.addFix(1, fix(15, 2700, 75), now)).toBe(true);
    // Late (minute 12.5), with an older battery reading: placed in order, battery stays at the newest fix's.
    expect(live.addFix(1, fix(12.5, 2250, 77), now)).toBe(true);
    expect(live.addFix(1, fix(12.5, 2250, 77), now)).toBe(false);
    expect(live.addFix(99, fix(12.5, 2250), now)).toBe(false);
    expect(live.trails(10)[0].Trail.map((p) => (p[0] - start) / MIN)).toEqual([5, 10, 12.5, 15]);
    const [first] = live.leaderboard(now);
    expect(first).toMatchObject({ RunnerId: 1, Rank: 1, BatteryState: '75%', Status: 'racing' });
    expect(first.DistanceKm).toBeCloseTo(2.7, 1);
    expect(live.trails(2)[0].Trail).toHaveLength(2);
    expect(live.trails(10, start + 11 * MIN)[0].Trail).toHaveLength(2);
  });

  it('reports what changed since the last look: rows, rank-only changes, and runners going stale with time', () => {
    const t = start + 11 * MIN;
    const live = build(t);
    expect(live.takeChanges(t)).toEqual({ rows: [], ranks: [] });
    live.addFix(2, fix(10.5, 1850), t);
    const c1 = live.takeChanges(t);
    expect(c1.rows.map((r) => [r.RunnerId, r.Rank])).toEqual([[2, 1]]);
    expect(c1.ranks).toEqual([[1, 2]]);
    expect(live.takeChanges(t)).toEqual({ rows: [], ranks: [] });
    // No fix for more than two 2.5-minute intervals: both go stale without any new event.
    const later = start + 17 * MIN;
    const stale = live.takeChanges(later);
    expect(stale.rows.map((r) => [r.RunnerId, r.Status])).toEqual([
      [2, 'stale'],
      [1, 'stale'],
    ]);
  });

  it('shows runners on the map without a course, unranked', () => {
    const live = new RaceLive({
      race,
      course: null,
      runners: [runner(1)],
      fixes: [{ runnerId: 1, ...fix(5, 900) }],
      offCourseM: 200,
      nowMs: start + 6 * MIN,
    });
    expect(live.leaderboard(start + 6 * MIN)[0]).toMatchObject({
      Rank: null,
      Status: 'not-started',
      DistanceKm: null,
      Latitude: pointAlong(900).lat,
    });
  });
});

describe('LiveService memory', () => {
  it('loads a race on first use, follows the bus while loaded, and drops it when idle', async () => {
    const t = await createTestApp('pglite');
    const service = new LiveService({ db: t.app.db, bus: t.app.events, offCourseM: 200, idleEvictMs: 300 });
    try {
      const seeded = await seedLiveRace(t.app.db, { runners: 1, clockStartMs: Date.now() - 10 * MIN });
      expect(service.loadedRaceIds()).toEqual([]);
      expect((await service.leaderboard(seeded.raceId, {}))[0].Status).toBe('not-started');
      expect(service.loadedRaceIds()).toEqual([seeded.raceId]);
      await postFixes(t.app, seeded.raceId, seeded.runners[0], [
        { t: Date.now() - MIN, ...pointAlong(1500) },
      ]);
      expect((await service.leaderboard(seeded.raceId, {}))[0].DistanceKm).toBeCloseTo(1.5, 1);
      await new Promise((r) => setTimeout(r, 1000));
      expect(service.loadedRaceIds()).toEqual([]);
      // Read again: rebuilt from the database, the fix is still there.
      expect((await service.leaderboard(seeded.raceId, {}))[0].DistanceKm).toBeCloseTo(1.5, 1);
    } finally {
      service.close();
      await t.close();
    }
  });
});
