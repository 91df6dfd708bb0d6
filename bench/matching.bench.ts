/**
 * Course matching per fix on a 20,000-point course (a winding ~42 km course) against turf's nearestPointOnLine on
 * the same fixes, plus the full per-runner matching and the leaderboard for 2,500 runners.
 * Run: `npm run bench -- matching`.
 */
import nearestPointOnLine from '@turf/nearest-point-on-line';
import { lineString, point } from '@turf/helpers';
import CheapRuler from 'cheap-ruler';
import {
  addFix,
  buildLeaderboard,
  computeRunnerState,
  gaussian,
  nearestOnCourse,
  pointAtDistance,
  prepareCourse,
  runnerSplits,
  seededRandom,
  windingCourse,
  type Fix,
  type LeaderboardRunner,
  type RaceClock,
  type SplitCheckpoint,
} from '@racebeacon/domain';

function timeIt<T>(fn: () => T): { ms: number; result: T } {
  const t0 = performance.now();
  const result = fn();
  return { ms: performance.now() - t0, result };
}

const us = (ms: number, n: number) => `${((ms * 1000) / n).toFixed(2)} µs`;

export default async function matchingBench(): Promise<void> {
  const input = windingCourse(20_000, 2.1, 7);
  const prep = timeIt(() => prepareCourse(input));
  const course = prep.result;
  console.log(
    `course: ${course.lon.length} points, ${(course.lengthM / 1000).toFixed(1)} km; prepareCourse ${prep.ms.toFixed(1)} ms`,
  );

  // Fixes near the course: a random spot along it plus σ = 10 m noise.
  const rand = seededRandom(42);
  const ruler = new CheapRuler(course.lat[0], 'meters');
  const N = 1000;
  const fixes: { lat: number; lon: number }[] = [];
  for (let k = 0; k < N; k++) {
    const p = pointAtDistance(course, rand() * course.lengthM);
    const [lon, lat] = ruler.offset([p.lon, p.lat], 10 * gaussian(rand), 10 * gaussian(rand));
    fixes.push({ lat, lon });
  }

  // Warm both up before measuring (JIT).
  const line = lineString(input.points.map(([x, y]) => [x, y]));
  for (let k = 0; k < 20; k++) {
    nearestOnCourse(course, fixes[k].lat, fixes[k].lon);
    nearestPointOnLine(line, point([fixes[k].lon, fixes[k].lat]), { units: 'meters' });
  }

  const TURF_N = 200;
  const turf = timeIt(() =>
    fixes.slice(0, TURF_N).map((f) => nearestPointOnLine(line, point([f.lon, f.lat]), { units: 'meters' })),
  );
  const REPEAT = 20;
  const ours = timeIt(() => {
    let last = nearestOnCourse(course, fixes[0].lat, fixes[0].lon);
    for (let r = 0; r < REPEAT; r++) for (const f of fixes) last = nearestOnCourse(course, f.lat, f.lon);
    return last;
  });
  const ourPerFix = ours.ms / (REPEAT * N);
  const turfPerFix = turf.ms / TURF_N;

  // Same answers? Compare the snapped point, and the distance along the course measured the same way for both.
  let maxPointDiff = 0;
  let maxAlongDiff = 0;
  let maxOffsetDiff = 0;
  for (let k = 0; k < TURF_N; k++) {
    const f = fixes[k];
    const mine = nearestOnCourse(course, f.lat, f.lon);
    const t = turf.result[k];
    const [tlon, tlat] = t.geometry.coordinates;
    const i = t.properties.segmentIndex;
    const turfAlong = course.cumDist[i] + ruler.distance([course.lon[i], course.lat[i]], [tlon, tlat]);
    maxPointDiff = Math.max(maxPointDiff, ruler.distance([mine.lon, mine.lat], [tlon, tlat]));
    maxAlongDiff = Math.max(maxAlongDiff, Math.abs(mine.alongM - turfAlong));
    maxOffsetDiff = Math.max(maxOffsetDiff, Math.abs(mine.offsetM - t.properties.pointDistance));
  }

  console.log(`nearest point on course, per fix:`);
  console.log(`  turf nearestPointOnLine (baseline): ${us(turf.ms, TURF_N)}  (${TURF_N} fixes)`);
  console.log(
    `  prepared course + flatbush + cheap-ruler: ${us(ours.ms, REPEAT * N)}  (${REPEAT * N} fixes)`,
  );
  console.log(`  ratio: ${(turfPerFix / ourPerFix).toFixed(0)}× faster (goal ≥ 100×)`);
  console.log(
    `  agreement on ${TURF_N} fixes: max snapped-point difference ${maxPointDiff.toFixed(3)} m, along-course ${maxAlongDiff.toFixed(3)} m, offset ${maxOffsetDiff.toFixed(3)} m (goal ≤ 1 m)`,
  );

  // Full matching (window, plausibility, state) for runners' tracks: per fix, incremental and recomputed.
  const START = Date.UTC(2026, 5, 6, 7);
  const clock: RaceClock = { startMs: START, stopMs: null };
  const RUNNERS = 2500;
  const tracks: Fix[][] = [];
  for (let r = 0; r < RUNNERS; r++) {
    const speed = 2.2 + rand() * 2;
    const hours = 1 + rand() * 2;
    const track: Fix[] = [];
    for (let t = 60_000; t < hours * 3600_000; t += 150_000) {
      const p = pointAtDistance(course, Math.min(course.lengthM, (speed * t) / 1000));
      const [lon, lat] = ruler.offset([p.lon, p.lat], 10 * gaussian(rand), 10 * gaussian(rand));
      track.push({ t: START + t, lat, lon });
    }
    tracks.push(track);
  }
  const totalFixes = tracks.reduce((n, t) => n + t.length, 0);
  const now = START + 4 * 3600_000;
  const incremental = timeIt(() =>
    tracks.map((track) => {
      let s = computeRunnerState(course, [], clock, START);
      for (let k = 0; k < track.length; k++) s = addFix(course, s, track, track[k], clock, track[k].t);
      return s;
    }),
  );
  const full = timeIt(() => tracks.map((track) => computeRunnerState(course, track, clock, now)));
  console.log(`full matching of ${RUNNERS} runners' tracks (${totalFixes} fixes):`);
  console.log(`  addFix (live path): ${us(incremental.ms, totalFixes)} per fix`);
  console.log(`  computeRunnerState (recompute): ${us(full.ms, totalFixes)} per fix`);
  console.log(
    `  ratio vs turf nearest point alone: ${(turfPerFix / (incremental.ms / totalFixes)).toFixed(0)}×`,
  );

  const runners: LeaderboardRunner[] = full.result.map((state, k) => ({
    RunnerId: k + 1,
    BibNumber: String(k + 1),
    FirstName: `First${k}`,
    LastName: `Last${k}`,
    Gender: k % 2 ? 'F' : 'M',
    Age: 20 + (k % 50),
    BatteryState: 'GOOD',
    state,
  }));
  buildLeaderboard(runners, course, clock, now);
  const LB_REPEAT = 20;
  const lb = timeIt(() => {
    let rows = buildLeaderboard(runners, course, clock, now);
    for (let r = 1; r < LB_REPEAT; r++) rows = buildLeaderboard(runners, course, clock, now);
    return rows;
  });
  // Baseline: only serialising the same rows, what any JSON route pays.
  const json = timeIt(() => {
    let s = '';
    for (let r = 0; r < LB_REPEAT; r++) s = JSON.stringify(lb.result);
    return s;
  });
  console.log(`buildLeaderboard for ${RUNNERS} runners: ${(lb.ms / LB_REPEAT).toFixed(2)} ms`);
  console.log(
    `  baseline JSON.stringify of the same ${lb.result.length} rows: ${(json.ms / LB_REPEAT).toFixed(2)} ms (${(json.result.length / 1024).toFixed(0)} KiB); ratio build/serialise ${(lb.ms / json.ms).toFixed(2)}`,
  );

  // Race operations: the same leaderboard with a checkpoint every 2 km (cutoffs on half of them) — each row's last
  // checkpoint passed and cutoff risk — and every runner's splits, beside the leaderboard without checkpoints.
  const checkpoints: SplitCheckpoint[] = [];
  for (let d = 0, id = 1; d < course.lengthM; d += 2000, id++)
    checkpoints.push({
      id,
      kind: d === 0 ? 'start' : 'waypoint',
      name: `CP${id}`,
      distanceM: d,
      cutoffMs: id % 2 ? START + (d / 1000) * 7 * 60_000 : null,
    });
  checkpoints.push({ id: 99, kind: 'finish', name: 'Finish', distanceM: course.lengthM, cutoffMs: null });
  const withCp = timeIt(() => {
    for (let r = 0; r < LB_REPEAT; r++) buildLeaderboard(runners, course, clock, now, checkpoints);
  });
  const splits = timeIt(() => {
    for (let r = 0; r < LB_REPEAT; r++)
      for (const x of runners) runnerSplits(x.state, checkpoints, [], clock);
  });
  console.log(
    `buildLeaderboard with ${checkpoints.length} checkpoints (last passed, cutoff risk): ${(withCp.ms / LB_REPEAT).toFixed(2)} ms; ratio to without ${(withCp.ms / lb.ms).toFixed(2)}`,
  );
  console.log(`  every runner's splits (GET …/splits): ${(splits.ms / LB_REPEAT).toFixed(2)} ms`);
}
