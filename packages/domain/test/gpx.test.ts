import { describe, expect, it } from 'vitest';
import {
  courseStats,
  cumulativeDistances,
  distanceM,
  GpxError,
  MAX_NAME_LENGTH,
  parseGpx,
  toGeoJson,
  toGpx,
  type CoursePoint,
} from '../src';

import billionLaughs from './fixtures/billion-laughs.gpx?raw';
import gpx10Track from './fixtures/gpx10-track.gpx?raw';
import gpx11TwoSegments from './fixtures/gpx11-two-segments.gpx?raw';
import noElevation from './fixtures/no-elevation.gpx?raw';
import noPoints from './fixtures/no-points.gpx?raw';
import notXml from './fixtures/not-xml.gpx?raw';
import partialElevation from './fixtures/partial-elevation.gpx?raw';
import routeOnly from './fixtures/route-only.gpx?raw';
import xxe from './fixtures/xxe.gpx?raw';

const fixtures: Record<string, string> = {
  'billion-laughs.gpx': billionLaughs,
  'gpx10-track.gpx': gpx10Track,
  'gpx11-two-segments.gpx': gpx11TwoSegments,
  'no-elevation.gpx': noElevation,
  'no-points.gpx': noPoints,
  'not-xml.gpx': notXml,
  'partial-elevation.gpx': partialElevation,
  'route-only.gpx': routeOnly,
  'xxe.gpx': xxe,
};
const fixture = (name: string) => fixtures[name];
/** Metres per degree of latitude on the mean-radius sphere used by distanceM. */
const M_PER_DEG = (6_371_008.8 * Math.PI) / 180;

describe('parseGpx', () => {
  it('reads a GPX 1.1 track with two segments, concatenated in order, and its waypoints', () => {
    const gpx = parseGpx(fixture('gpx11-two-segments.gpx'));
    expect(gpx.version).toBe('1.1');
    expect(gpx.kind).toBe('track');
    expect(gpx.name).toBe('Lakeside Trail 10K');
    expect(gpx.points).toEqual([
      [6.6, 46.5, 372],
      [6.6, 46.503, 382],
      [6.6, 46.506, 392],
      [6.6, 46.509, 402],
      [6.604, 46.509, 402],
    ]);
    expect(gpx.waypoints).toEqual([
      { name: 'Start & Finish', lat: 46.5, lon: 6.6, ele: 372 },
      { name: 'Aid station 1', lat: 46.509, lon: 6.6, ele: null },
    ]);
  });

  it('reads a GPX 1.0 track (name directly under <gpx>, extra 1.0 fields ignored)', () => {
    const gpx = parseGpx(fixture('gpx10-track.gpx'));
    expect(gpx.version).toBe('1.0');
    expect(gpx.name).toBe('Hill Repeats');
    expect(gpx.points.map((p) => p[2])).toEqual([100, 150, 200, 150, 100]);
    expect(gpx.waypoints).toEqual([]);
  });

  it('uses the route when there is no track', () => {
    const gpx = parseGpx(fixture('route-only.gpx'));
    expect(gpx.kind).toBe('route');
    expect(gpx.name).toBe('City Loop Route');
    expect(gpx.points).toHaveLength(4);
    expect(gpx.points[2]).toEqual([-0.11, 51.505, 15]);
    // route point names are not waypoints
    expect(gpx.waypoints).toEqual([]);
  });

  it('prefers the track over a route when both exist', () => {
    const xml = `<gpx version="1.1"><rte><rtept lat="1" lon="1"/><rtept lat="2" lon="2"/></rte>
      <trk><name>T</name><trkseg><trkpt lat="5" lon="5"/><trkpt lat="5.1" lon="5"/><trkpt lat="5.2" lon="5"/></trkseg></trk></gpx>`;
    const gpx = parseGpx(xml);
    expect(gpx.kind).toBe('track');
    expect(gpx.name).toBe('T');
    expect(gpx.points).toHaveLength(3);
  });

  it('keeps points without elevation as null and skips points with invalid coordinates', () => {
    const gpx = parseGpx(fixture('no-elevation.gpx'));
    expect(gpx.points).toEqual([
      [0, 0, null],
      [0.01, 0, null],
      [0.02, 0, null],
      [0.03, 0, null],
    ]);
  });

  it('handles a namespace prefix and a byte-order mark', () => {
    const xml = `\ufeff<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1" version="1.1"><g:trk><g:trkseg>
      <g:trkpt lat="1" lon="2"><g:ele>3</g:ele></g:trkpt><g:trkpt lat="1.5" lon="2"><g:ele>4</g:ele></g:trkpt>
      </g:trkseg></g:trk></g:gpx>`;
    expect(parseGpx(xml).points).toEqual([
      [2, 1, 3],
      [2, 1.5, 4],
    ]);
  });

  it('collapses whitespace in names and caps their length', () => {
    const long = 'N'.repeat(5000);
    const xml = `<gpx version="1.1"><metadata><name>  Lake
      Loop  </name></metadata><wpt lat="1" lon="1"><name>${long}</name></wpt>
      <trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="1.1" lon="1"/></trkseg></trk></gpx>`;
    const gpx = parseGpx(xml);
    expect(gpx.name).toBe('Lake Loop');
    expect(gpx.waypoints[0].name).toBe('N'.repeat(MAX_NAME_LENGTH));
  });

  it.each([
    ['no-points.gpx', /no track or route points/],
    ['xxe.gpx', /DOCTYPE/],
    ['billion-laughs.gpx', /DOCTYPE/],
    ['not-xml.gpx', /not well-formed XML|not XML/],
  ])('refuses %s with a GpxError', (name, message) => {
    expect(() => parseGpx(fixture(name))).toThrow(GpxError);
    expect(() => parseGpx(fixture(name))).toThrow(message);
  });

  it('never leaks external entity content', () => {
    let caught: unknown;
    try {
      parseGpx(fixture('xxe.gpx'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GpxError);
    expect(String((caught as Error).message)).not.toContain('root:');
  });

  it.each([
    ['empty string', '', /empty or not XML|not well-formed/],
    ['another XML dialect', '<kml><Document/></kml>', /not GPX/],
    ['truncated XML', '<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="1">', /not well-formed/],
    [
      'a single point',
      '<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>',
      /only one usable point/,
    ],
    ['an undefined entity', '<gpx><metadata><name>&nbsp;</name></metadata></gpx>', /not well-formed/],
  ])('refuses %s', (_label, xml, message) => {
    expect(() => parseGpx(xml)).toThrow(message);
  });
});

describe('courseStats', () => {
  it('measures length, climb and descent of a GPX 1.1 track', () => {
    const s = courseStats(parseGpx(fixture('gpx11-two-segments.gpx')).points);
    const expected = 0.009 * M_PER_DEG + 0.004 * M_PER_DEG * Math.cos((46.509 * Math.PI) / 180);
    expect(s.lengthM).toBeCloseTo(expected, 0);
    expect(s.climbM).toBeCloseTo(30, 6);
    expect(s.descentM).toBe(0);
    expect(s.pointCount).toBe(5);
    expect(s.hasElevation).toBe(true);
  });

  it('counts an out-and-back climb both ways', () => {
    const s = courseStats(parseGpx(fixture('gpx10-track.gpx')).points);
    expect(s.lengthM).toBeCloseTo(4 * 0.001 * M_PER_DEG, 1);
    expect(s.climbM).toBeCloseTo(100, 6);
    expect(s.descentM).toBeCloseTo(100, 6);
  });

  it('gives zero climb and no elevation flag when elevations are missing', () => {
    const s = courseStats(parseGpx(fixture('no-elevation.gpx')).points);
    expect(s.lengthM).toBeCloseTo(0.03 * M_PER_DEG, 1);
    expect(s).toMatchObject({ climbM: 0, descentM: 0, hasElevation: false, pointCount: 4 });
  });

  it('uses the points that have an elevation when some are missing', () => {
    const s = courseStats(parseGpx(fixture('partial-elevation.gpx')).points);
    expect(s.hasElevation).toBe(true);
    expect(s.climbM).toBeCloseTo(20, 6);
    expect(s.descentM).toBe(0);
  });

  it('ignores jitter: a flat course with ±1 m noise has no climb', () => {
    const points: CoursePoint[] = [];
    for (let i = 0; i < 500; i++) points.push([8 + i * 0.0001, 47, 500 + (i % 2 ? 1 : -1)]);
    const s = courseStats(points);
    expect(s.climbM).toBe(0);
    expect(s.descentM).toBe(0);
  });

  it('still measures a steady climb made of small steps', () => {
    // 1000 points 10 m apart rising 0.5 m each: 499.5 m of climb, none lost to smoothing or hysteresis in the middle
    const points: CoursePoint[] = [];
    for (let i = 0; i < 1000; i++) points.push([0, (i * 10) / M_PER_DEG, i * 0.5]);
    const s = courseStats(points);
    expect(s.climbM).toBeGreaterThan(480);
    expect(s.climbM).toBeLessThanOrEqual(499.5);
    expect(s.lengthM).toBeCloseTo(9990, 0);
  });
});

describe('distances', () => {
  it('measures a degree of latitude and a quarter of the equator', () => {
    expect(distanceM([0, 0], [0, 1])).toBeCloseTo(M_PER_DEG, 3);
    expect(distanceM([0, 0], [90, 0])).toBeCloseTo(M_PER_DEG * 90, 0);
  });
  it('accumulates along the points', () => {
    expect(
      cumulativeDistances([
        [0, 0, null],
        [0, 1, null],
        [0, 3, null],
      ]),
    ).toEqual([0, expect.closeTo(M_PER_DEG, 3), expect.closeTo(3 * M_PER_DEG, 3)]);
  });
});

describe('export', () => {
  const course = parseGpx(fixture('gpx11-two-segments.gpx'));

  it('regenerates GPX 1.1 that parses back to the same points and waypoints', () => {
    const xml = toGpx({ name: 'A <b> & "c"', points: course.points, waypoints: course.waypoints });
    expect(xml).toContain('version="1.1"');
    const again = parseGpx(xml);
    expect(again.name).toBe('A <b> & "c"');
    expect(again.points).toEqual(course.points);
    expect(again.waypoints).toEqual(course.waypoints);
  });

  it('writes a GeoJSON LineString with elevations and waypoint Points', () => {
    const gj = toGeoJson({ name: course.name, points: course.points, waypoints: course.waypoints });
    expect(gj.type).toBe('FeatureCollection');
    expect(gj.features[0].geometry.type).toBe('LineString');
    expect(gj.features[0].geometry.coordinates).toEqual(course.points);
    expect(gj.features.slice(1).map((f) => [f.geometry.type, f.properties.name])).toEqual([
      ['Point', 'Start & Finish'],
      ['Point', 'Aid station 1'],
    ]);
    const noEle = toGeoJson({ name: null, points: [[1, 2, null]], waypoints: [] });
    expect(noEle.features[0].geometry.coordinates).toEqual([[1, 2]]);
  });
});
