import { describe, expect, it } from 'vitest';
import {
  isOpenPrivacy,
  OPEN_PRIVACY,
  positionAtIsPublic,
  positionIsPublic,
  publicMoment,
  publicPositions,
  publicRow,
  publicRows,
  publicUntil,
  racePrivacy,
  samePrivacy,
  stricterPrivacy,
  trailIsPublic,
  type LeaderboardRow,
  type RunnerPositions,
} from '../src';

const row = (RunnerId: number, extra: Partial<LeaderboardRow> = {}): LeaderboardRow => ({
  Rank: RunnerId,
  RunnerId,
  BibNumber: String(RunnerId),
  FirstName: 'A',
  LastName: 'B',
  Gender: 'F',
  Age: 30,
  Status: 'racing',
  DistanceKm: 4.2,
  Percent: 42,
  ElapsedSeconds: 1800,
  PaceSecondsPerKm: 400,
  EtaFinish: null,
  FinishTime: null,
  LastPingTime: null,
  Latitude: 46.1,
  Longitude: 7.1,
  BatteryState: null,
  GapSeconds: null,
  GapKm: null,
  NextWaypoint: null,
  NextWaypointKm: null,
  EtaNextWaypoint: null,
  ...extra,
});

const pos = (RunnerId: number): RunnerPositions => ({
  RunnerId,
  Latest: [2000, 46.1, 7.1],
  Trail: [
    [1000, 46.0, 7.0],
    [2000, 46.1, 7.1],
  ],
});

describe('privacy of runners: the public rules', () => {
  const hidden = racePrivacy({ publicDelayMin: 0, trailsPublic: true }, [
    { id: 1, hidePosition: false },
    { id: 2, hidePosition: true },
  ]);
  const privateTrails = racePrivacy({ publicDelayMin: 0, trailsPublic: false }, []);
  const delayed = racePrivacy({ publicDelayMin: 10, trailsPublic: true }, []);

  it.each([
    ['no settings', racePrivacy({}, [{ id: 1 }]), true],
    ['a hidden runner', hidden, false],
    ['private trails', privateTrails, false],
    ['a public delay', delayed, false],
  ])('%s: open %s', (_, p, open) => {
    expect(isOpenPrivacy(p)).toBe(open);
  });

  it('a hidden runner keeps the row (rank, distance) without any position, estimated or real', () => {
    const r = publicRow(
      hidden,
      row(2, { EstimatedLatitude: 46.2, EstimatedLongitude: 7.2, EstimatedDistanceKm: 5 }),
    );
    expect(r).toMatchObject({ Rank: 2, DistanceKm: 4.2, EstimatedDistanceKm: 5 });
    expect([r.Latitude, r.Longitude, r.EstimatedLatitude, r.EstimatedLongitude]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(publicRow(hidden, row(1))).toEqual(row(1));
    expect(publicRows(OPEN_PRIVACY, [row(2)])).toEqual([row(2)]);
    expect(positionIsPublic(hidden, 2)).toBe(false);
    expect(trailIsPublic(hidden, 2)).toBe(false);
  });

  it('positions: no dot, trail or estimate for a hidden runner; trails only when public', () => {
    expect(publicPositions(hidden, [pos(1), { ...pos(2), Estimated: undefined }])).toEqual([
      pos(1),
      { RunnerId: 2, Latest: null, Trail: [] },
    ]);
    expect(publicPositions(privateTrails, [pos(1)])).toEqual([{ ...pos(1), Trail: [] }]);
    expect(trailIsPublic(privateTrails, 1)).toBe(false);
    expect(positionIsPublic(privateTrails, 1)).toBe(true);
  });

  it('the public moment is now less the delay; timed items after it are left out', () => {
    const now = 100 * 60_000;
    expect(publicMoment(delayed, now)).toBe(90 * 60_000);
    expect(publicMoment(hidden, now)).toBe(now);
    const times = [80, 89, 90, 91, 99].map((m) => m * 60_000);
    expect(publicUntil(delayed, now, times, (t) => t)).toEqual([80, 89, 90].map((m) => m * 60_000));
    expect(publicUntil(hidden, now, times, (t) => t)).toBe(times);
  });

  it('a past dot is public only with a public trail; the current one unless hidden', () => {
    const closed = racePrivacy({ trailsPublic: false }, [{ id: 2, hidePosition: true }]);
    const open = racePrivacy({}, [{ id: 2, hidePosition: true }]);
    // Runner 1, private trails: the current moment only.
    expect(positionAtIsPublic(closed, 1, 900, 1000)).toBe(false);
    expect(positionAtIsPublic(closed, 1, 1000, 1000)).toBe(true);
    expect(positionAtIsPublic(open, 1, 900, 1000)).toBe(true);
    // Runner 2 hides: never.
    expect(positionAtIsPublic(open, 2, 1000, 1000)).toBe(false);
    expect(positionAtIsPublic(closed, 2, 1000, 1000)).toBe(false);
  });

  it('the stricter of two privacies: longer delay, trails only if both, hidden if either', () => {
    const a = racePrivacy({ publicDelayMin: 5 }, [{ id: 1, hidePosition: true }]);
    const b = racePrivacy({ publicDelayMin: 2, trailsPublic: false }, [{ id: 3, hidePosition: true }]);
    const s = stricterPrivacy(a, b);
    expect([s.publicDelayMin, s.trailsPublic, [...s.hiddenRunnerIds].sort()]).toEqual([5, false, [1, 3]]);
    expect(samePrivacy(stricterPrivacy(a, a), a)).toBe(true);
    expect(samePrivacy(s, a)).toBe(false);
    expect(
      samePrivacy(
        racePrivacy({}, [{ id: 1, hidePosition: true }]),
        racePrivacy({}, [{ id: 2, hidePosition: true }]),
      ),
    ).toBe(false);
  });
});
