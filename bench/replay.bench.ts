/**
 * Replay (`npm run bench -- replay`): a 2,500-runner race with a fix every 2.5 minutes over 30 hours (1.8 M fixes,
 * 1 % of them delivered late), in memory as the server holds it. Printed beside each other, in the same run:
 * - the time to build the live leaderboard of the race (baseline: what every live read costs when the state moved);
 * - one replay answer at a random moment (the leaderboard + positions of that moment, serialised to JSON as the
 *   route sends it) — goal: under 300 ms, i.e. moving the slider;
 * - the one-off costs: building the live state, building the replay timelines, and the heap they take;
 * - extending the replay with one new fix per runner (what a live race adds between two replay reads).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { prepareCourse } from '@racebeacon/domain';
import { RaceLive } from '../apps/server/src/live/race-live';
import { RaceReplay } from '../apps/server/src/live/race-replay';
import type { ReceivedFixRow } from '../apps/server/src/live/replay-repository';
import type { LiveFixRow, LiveRunnerRow } from '../apps/server/src/live/repository';
import { pointAlong, straightCourse } from '../apps/server/test/support/live-seed';

const RUNNERS = Number(process.env.BENCH_REPLAY_RUNNERS ?? 2500);
const INTERVAL_MS = 150_000;
const HOURS = 30;
const FIXES = (HOURS * 3600_000) / INTERVAL_MS; // 720 per runner
const COURSE_M = 170_000;
const start = Date.UTC(2026, 5, 1, 6, 0, 0);
const now = start + HOURS * 3600_000 + 60_000;

/** CPU time (user + system, ms) of this process since `c0` (process.cpuUsage()). */
function cpuMsSince(c0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// A full collection before each heap reading and timed phase (the bench runs without --expose-gc).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

export default async function replayBench(): Promise<void> {
  const rand = rng(42);
  const runners: LiveRunnerRow[] = [];
  const rows: ReceivedFixRow[] = [];
  let id = 0;
  for (let i = 1; i <= RUNNERS; i++) {
    runners.push({
      id: i,
      firstName: `F${i}`,
      lastName: `L${i}`,
      bibNumber: String(i),
      gender: i % 2 ? 'M' : 'F',
      age: 20 + (i % 50),
      batteryState: null,
      batteryPercent: null,
      deviceId: i,
      deviceSource: 'spot',
      expectedIntervalS: 150,
    });
    // 1.2–2.0 m/s with a rest of 20 minutes every 6 hours: the fastest finish 170 km in the last hours.
    const speed = 1.2 + (((i * 37) % 100) / 100) * 0.8;
    let d = 0;
    for (let k = 1; k <= FIXES; k++) {
      const t = start + k * INTERVAL_MS;
      const resting = k % 144 < 8;
      if (!resting) d += speed * (INTERVAL_MS / 1000) * (0.9 + 0.2 * rand());
      const late = rand() < 0.01;
      rows.push({
        id: ++id,
        runnerId: i,
        t,
        receivedMs:
          t + (late ? Math.ceil(rand() * 4) * INTERVAL_MS + 1000 : 3000 + Math.floor(rand() * 5000)),
        ...pointAlong(Math.min(d, COURSE_M), 15 * (rand() - 0.5)),
        batteryPercent: Math.max(5, 100 - Math.floor((k * 90) / FIXES)),
        batteryState: null,
      });
    }
  }
  rows.sort((a, b) => a.receivedMs - b.receivedMs || a.runnerId - b.runnerId || a.t - b.t);
  const course = prepareCourse(straightCourse(COURSE_M));
  const race = {
    id: 1,
    approved: true,
    startTime: new Date(start),
    hasStarted: true,
    hasFinished: false,
    clockStartedAt: new Date(start),
    clockStoppedAt: null,
  };

  // The live state, built as on a process's first read (fixes in runner and time order).
  const byRunner: LiveFixRow[] = rows
    .map((r) => ({
      runnerId: r.runnerId,
      t: r.t,
      lat: r.lat,
      lon: r.lon,
      batteryPercent: r.batteryPercent,
      batteryState: null,
    }))
    .sort((a, b) => a.runnerId - b.runnerId || a.t - b.t);
  const heap0 = heapMb();
  let t0 = performance.now();
  const live = new RaceLive({ race, course, runners, fixes: byRunner, offCourseM: 200, nowMs: now });
  const liveBuildMs = performance.now() - t0;
  const heapLive = heapMb();

  gc();
  const boardMs: number[] = [];
  const boardCpuMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    t0 = performance.now();
    const c0 = process.cpuUsage();
    live.leaderboard(now + i * 10_000); // a new 5-second bucket each time: really rebuilt
    boardCpuMs.push(cpuMsSince(c0));
    boardMs.push(performance.now() - t0);
  }

  t0 = performance.now();
  const replay = new RaceReplay(live, runners, 200);
  replay.apply(rows);
  replay.warmPaceModels(); // as the service does after a full build
  const replayBuildMs = performance.now() - t0;
  const heapReplay = heapMb();

  gc();
  const answerMs: number[] = [];
  const answerShortMs: number[] = [];
  const answerShortCpuMs: number[] = [];
  let bytes = 0;
  let leaders = new Set<string | null>();
  for (let i = 0; i < 30; i++) {
    const at = start + Math.floor(rand() * (now - start));
    // First at this moment: trails of 30, what the race page asks for.
    t0 = performance.now();
    const c0 = process.cpuUsage();
    JSON.stringify(replay.at(at, now, 30));
    answerShortCpuMs.push(cpuMsSince(c0));
    answerShortMs.push(performance.now() - t0);
    t0 = performance.now();
    const a = replay.at(at, now, 100);
    const body = JSON.stringify(a);
    answerMs.push(performance.now() - t0);
    bytes = Math.max(bytes, body.length);
    leaders = leaders.add(a.Leaderboard[0].BibNumber);
  }

  // Dragging the slider (or playing at x60): consecutive moments a minute apart; runners between two fixes keep their
  // progress, so what is cached per progress (the ETA pace model) is reused.
  gc();
  const dragMs: number[] = [];
  const dragFrom = start + 12 * 3600_000;
  for (let i = 0; i < 30; i++) {
    t0 = performance.now();
    JSON.stringify(replay.at(dragFrom + i * 60_000, now, 30));
    dragMs.push(performance.now() - t0);
  }

  // A live race between two replay reads: one new fix per runner, received now.
  const extra: ReceivedFixRow[] = runners.map((r) => ({
    id: ++id,
    runnerId: r.id,
    t: now - 1000,
    receivedMs: now,
    ...pointAlong(COURSE_M - 10),
    batteryPercent: 50,
    batteryState: null,
  }));
  t0 = performance.now();
  replay.apply(extra);
  const extendMs = performance.now() - t0;

  console.log(
    `runners: ${RUNNERS}, fixes: ${rows.length} (1 % late), course ${COURSE_M / 1000} km, ${HOURS} h`,
  );
  console.log(`live leaderboard build (baseline):     ${median(boardMs).toFixed(1)} ms (median of 20)`);
  console.log(
    `replay answer at a new random moment, trails of 30 + JSON (what the race page asks for): ${median(answerShortMs).toFixed(1)} ms median, ${pct(answerShortMs, 95).toFixed(1)} ms p95 (30 random moments; goal < 300 ms)`,
  );
  console.log(
    `the same moment again, trails of 100 + JSON: ${median(answerMs).toFixed(1)} ms median, ${pct(answerMs, 95).toFixed(1)} ms p95 (${(bytes / 1e6).toFixed(1)} MB JSON)`,
  );
  console.log(
    `replay answer, slider dragged a minute at a time, trails of 30 + JSON: ${median(dragMs).toFixed(1)} ms median, ${pct(dragMs, 95).toFixed(1)} ms p95`,
  );
  console.log(
    `ratio new-moment answer (trails of 30) / live leaderboard: ${(median(answerShortMs) / median(boardMs)).toFixed(2)}`,
  );
  // On a loaded machine the elapsed times above include waiting for a core: the process's own CPU time beside them.
  console.log(
    `CPU time of this process (user + system): live leaderboard ${median(boardCpuMs).toFixed(1)} ms median; new-moment answer ${median(answerShortCpuMs).toFixed(1)} ms median, ${pct(answerShortCpuMs, 95).toFixed(1)} ms p95`,
  );
  console.log(
    `one-off: live state build ${(liveBuildMs / 1000).toFixed(1)} s, replay timelines ${(replayBuildMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `heap after a full collection: live state ${(heapLive - heap0).toFixed(0)} MB, replay timelines +${(heapReplay - heapLive).toFixed(0)} MB`,
  );
  console.log(`extending the replay with one new fix per runner: ${extendMs.toFixed(1)} ms`);
  console.log(`distinct leaders over the sampled moments: ${leaders.size}`);
}
