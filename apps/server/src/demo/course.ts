import { courseFromMetres, cumulativeDistances, type CoursePoint } from '@racebeacon/domain';
import type { CourseGeometry } from '../db/schema';

/**
 * A made-up but plausible mountain trail loop (~37 km, ~3,000 m of climbing) in the Chamonix valley area,
 * generated in code so the demo needs no file: an irregular loop from sums of sines, a point every ~25 m,
 * elevations with two big climbs and rolling sections.
 */
export function demoCourse(): {
  geometry: CourseGeometry;
  lengthM: number;
  climbM: number;
  descentM: number;
} {
  const center = { lat: 45.93, lon: 6.9 };
  const n = 1300;
  const xy: [number, number][] = [];
  const elevations: number[] = [];
  for (let i = 0; i <= n; i++) {
    const th = (i / n) * 2 * Math.PI;
    // radius wobbles so the loop looks like trails following valleys and ridges, not a circle
    const r =
      4600 *
      (1 + 0.22 * Math.sin(3 * th + 0.7) + 0.1 * Math.sin(7 * th + 1.9) + 0.04 * Math.sin(17 * th + 0.3));
    xy.push([r * Math.cos(th) * 1.15, r * Math.sin(th) * 0.85]); // metres east, north of the centre
    elevations.push(
      1350 +
        520 * Math.sin(2 * th - 0.4) +
        210 * Math.sin(5 * th + 0.5) +
        45 * Math.sin(13 * th + 1.1) +
        12 * Math.sin(41 * th),
    );
  }
  const points: CoursePoint[] = courseFromMetres(xy, center).points.map(([lon, lat], i) => [
    +lon.toFixed(6),
    +lat.toFixed(6),
    +elevations[i].toFixed(1),
  ]);
  // Close the loop exactly (start = finish).
  points[points.length - 1] = [...points[0]];
  const dist = cumulativeDistances(points);
  let climbM = 0;
  let descentM = 0;
  for (let i = 1; i < points.length; i++) {
    const dz = (points[i][2] ?? 0) - (points[i - 1][2] ?? 0);
    if (dz > 0) climbM += dz;
    else descentM -= dz;
  }
  const at = (fraction: number) => points[Math.round(fraction * n)];
  const wp = (name: string, p: CoursePoint) => ({ name, lat: p[1], lon: p[0] });
  return {
    geometry: {
      points,
      waypoints: [
        wp('Start / Finish', points[0]),
        wp('Aid 1 – Col des Montets', at(0.26)),
        wp('Aid 2 – Refuge de la Flégère', at(0.52)),
        wp('Aid 3 – Plan Praz', at(0.77)),
      ],
    },
    lengthM: dist[dist.length - 1],
    climbM,
    descentM,
  };
}
