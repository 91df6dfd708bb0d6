/** Small deterministic courses and fix builders for the course tests. */
import CheapRuler from 'cheap-ruler';
import {
  courseFromMetres,
  pointAtDistance,
  polylineMetres,
  prepareCourse,
  type Fix,
  type PreparedCourse,
  type RaceClock,
} from '../../src/course';

export const START = Date.UTC(2026, 5, 6, 7, 0, 0);
export const started: RaceClock = { startMs: START, stopMs: null };
export const min = (m: number) => START + m * 60_000;

/** Straight east from the origin, `lengthM` long, a vertex every 20 m. */
export function straight(lengthM = 10_000): PreparedCourse {
  return prepareCourse(
    courseFromMetres(
      polylineMetres(
        [
          [0, 0],
          [lengthM, 0],
        ],
        20,
      ),
    ),
  );
}

/** A fix at distance d along the course at minute m, displaced dx east / dy north metres. */
export function fixAt(course: PreparedCourse, d: number, m: number, dx = 0, dy = 0): Fix {
  const p = pointAtDistance(course, d);
  const ruler = new CheapRuler(p.lat, 'meters');
  const [lon, lat] = ruler.offset([p.lon, p.lat], dx, dy);
  return { t: min(m), lat, lon };
}

/** Metres between two positions. */
export function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  return new CheapRuler(a.lat, 'meters').distance([a.lon, a.lat], [b.lon, b.lat]);
}
