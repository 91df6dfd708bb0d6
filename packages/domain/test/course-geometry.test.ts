import { describe, expect, it } from 'vitest';
import {
  courseCandidates,
  courseFromMetres,
  elevationProfile,
  figureEightCourse,
  lapCourse,
  nearestOnCourse,
  outAndBackCourse,
  pointAtDistance,
  polylineMetres,
  prepareCourse,
} from '../src/course';
import { metres, straight } from './support/course-fixtures';

describe('prepareCourse', () => {
  it('measures a 10 km straight course to within a metre and indexes its segments', () => {
    const c = straight(10_000);
    expect(c.lengthM).toBeCloseTo(10_000, 0);
    expect(c.cumDist[0]).toBe(0);
    expect(c.cumDist[c.cumDist.length - 1]).toBe(c.lengthM);
    expect(c.index.numItems).toBe(c.lon.length - 1);
    expect(c.isLoop).toBe(false);
  });

  it('drops repeated and invalid points, keeps elevation per vertex', () => {
    const c = prepareCourse({
      points: [
        [7.9, 46.5, 500],
        [7.9, 46.5, 501],
        [Number.NaN, 46.5, 1],
        [7.91, 46.5, null],
        [7.92, 95, 3],
        [7.92, 46.5, 520],
      ],
    });
    expect(Array.from(c.lon)).toEqual([7.9, 7.91, 7.92]);
    expect(c.ele).toEqual([500, null, 520]);
    expect(c.hasElevation).toBe(true);
  });

  it.each([
    ['no points', []],
    ['one point', [[7.9, 46.5, null]]],
    [
      'the same point twice',
      [
        [7.9, 46.5, null],
        [7.9, 46.5, null],
      ],
    ],
  ] as [string, [number, number, number | null][]][])('refuses a course with %s', (_n, points) => {
    expect(() => prepareCourse({ points })).toThrow(RangeError);
  });

  it('recognises loops (start and finish together)', () => {
    expect(prepareCourse(lapCourse(1, 2000)).isLoop).toBe(true);
    expect(prepareCourse(outAndBackCourse(2000)).isLoop).toBe(true);
    expect(straight(2000).isLoop).toBe(false);
  });

  it('projects waypoints onto every pass: an aid station on a 3-lap course is reached three times', () => {
    const input = lapCourse(3, 3000);
    const [lon, lat] = input.points[50];
    const c = prepareCourse({ ...input, waypoints: [{ name: 'Aid', lat, lon }] });
    expect(c.waypoints.map((w) => w.name)).toEqual(['Aid', 'Aid', 'Aid']);
    const d = c.waypoints.map((w) => w.distanceM);
    expect(d[1] - d[0]).toBeCloseTo(c.lengthM / 3, -1);
    expect(d[2] - d[1]).toBeCloseTo(c.lengthM / 3, -1);
  });

  it('ignores waypoints far from the course', () => {
    const c = prepareCourse({
      ...courseFromMetres(
        polylineMetres([
          [0, 0],
          [1000, 0],
        ]),
      ),
      waypoints: [{ name: 'Far', lat: 47, lon: 8 }],
    });
    expect(c.waypoints).toEqual([]);
  });
});

describe('pointAtDistance and elevationProfile', () => {
  const c = prepareCourse({
    points: [
      [7.9, 46.5, 100],
      [7.91, 46.5, 200],
      [7.92, 46.5, null],
    ],
  });

  it.each([
    [-50, 0],
    [0, 0],
    [0.25, 0.25],
    [0.5, 0.5],
    [1, 1],
    [2, 1],
  ])('at fraction %s of the course lies at fraction %s of the way', (f, expected) => {
    const p = pointAtDistance(c, f * c.lengthM);
    expect(p.lat).toBeCloseTo(46.5, 9);
    expect(p.lon).toBeCloseTo(7.9 + 0.02 * expected, 6);
  });

  it('interpolates elevation and carries it over a vertex without one', () => {
    expect(pointAtDistance(c, c.cumDist[1] / 2).ele).toBeCloseTo(150, 6);
    expect(pointAtDistance(c, c.cumDist[1] + 10).ele).toBe(200);
  });

  it('samples evenly from start to finish', () => {
    const prof = elevationProfile(c, 5);
    expect(prof).toHaveLength(5);
    expect(prof[0]).toEqual({ distanceM: 0, ele: 100 });
    expect(prof[4].distanceM).toBeCloseTo(c.lengthM, 6);
    expect(prof[1].ele).toBeCloseTo(150, 0);
    expect(
      elevationProfile(
        prepareCourse({
          points: [
            [7.9, 46.5, null],
            [7.91, 46.5, null],
          ],
        }),
        3,
      ).map((p) => p.ele),
    ).toEqual([null, null, null]);
  });
});

describe('courseCandidates: every pass near a position', () => {
  it('an out-and-back gives the same spot on the way out and on the way back', () => {
    const c = prepareCourse(outAndBackCourse(5000));
    const p = pointAtDistance(c, 2000);
    const d = courseCandidates(c, p.lat, p.lon, 200).map((x) => x.alongM);
    expect(d).toHaveLength(2);
    expect(d[0]).toBeCloseTo(2000, 0);
    expect(d[1]).toBeCloseTo(c.lengthM - 2000, 0);
  });

  it('a 3-lap loop gives one candidate per lap, plus the finish at the start point', () => {
    const c = prepareCourse(lapCourse(3, 3000));
    const p = pointAtDistance(c, 500);
    expect(courseCandidates(c, p.lat, p.lon, 200).map((x) => Math.round(x.alongM / 10) * 10)).toEqual([
      500, 3500, 6500,
    ]);
    const s = pointAtDistance(c, 0);
    const atStart = courseCandidates(c, s.lat, s.lon, 50).map((x) => Math.round(x.alongM));
    expect(atStart[0]).toBe(0);
    expect(atStart[atStart.length - 1]).toBe(Math.round(c.lengthM));
  });

  it('a figure eight gives both passes at its crossing', () => {
    const c = prepareCourse(figureEightCourse(1000, 1));
    const half = c.lengthM / 2;
    const p = pointAtDistance(c, half);
    const d = courseCandidates(c, p.lat, p.lon, 100).map((x) => x.alongM);
    expect(d.some((x) => Math.abs(x - half) < 2)).toBe(true);
    expect(d.some((x) => x < 2)).toBe(true);
  });

  it('nothing within the radius: no candidates; nearestOnCourse still finds the closest point', () => {
    const c = straight(1000);
    const far = { lat: 46.51, lon: 7.905 };
    expect(courseCandidates(c, far.lat, far.lon, 200)).toEqual([]);
    const n = nearestOnCourse(c, far.lat, far.lon);
    expect(n.offsetM).toBeCloseTo(metres(far, { lat: 46.5, lon: 7.905 }), 0);
    expect(n.alongM).toBeCloseTo(metres({ lat: 46.5, lon: 7.9 }, { lat: 46.5, lon: 7.905 }), 0);
  });

  it('past the finish, the unclamped distance keeps counting (for finish timing)', () => {
    const c = straight(1000);
    const p = pointAtDistance(c, 1000);
    const [cand] = courseCandidates(c, p.lat, p.lon + 30 / 76_700, 100);
    expect(cand.alongM).toBeCloseTo(c.lengthM, 6);
    expect(cand.alongUnclampedM - c.lengthM).toBeCloseTo(30, 0);
  });
});
