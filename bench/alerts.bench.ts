/**
 * Race HQ alert sweep (`npm run bench -- alerts`): one sweep of a 2,500-runner race — every runner read from the
 * live state as the rules need it (its last 65 minutes of fixes with the matcher's progress, battery, the device's
 * expected interval) and every rule evaluated (the domain's sweepRaceAlerts) — beside the time to build the
 * leaderboard of the same race in the same run. In memory, no database: what the sweep job adds to the process that
 * runs it, every ALERT_SWEEP_SECONDS.
 */
import { performance } from 'node:perf_hooks';
import {
  prepareCourse,
  sweepRaceAlerts,
  DEFAULT_ALERT_SETTINGS,
  type AlertSettings,
} from '@racebeacon/domain';
import { RaceLive } from '../apps/server/src/live/race-live';
import type { LiveFixRow, LiveRunnerRow } from '../apps/server/src/live/repository';
import { pointAlong, straightCourse } from '../apps/server/test/support/live-seed';

const RUNNERS = 2500;
const MIN = 60_000;
const start = Date.UTC(2026, 5, 1, 6, 0, 0);
const FIXES = 48; // 2 hours at one fix per 2.5 min
const now = start + FIXES * 150_000 + 2 * MIN;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export default async function alertsBench(): Promise<void> {
  const runners: LiveRunnerRow[] = [];
  const fixes: LiveFixRow[] = [];
  const sources = ['osmand', 'spot', 'inreach', 'lorawan'];
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
      deviceSource: sources[i % sources.length],
      expectedIntervalS: null,
    });
    const speed = 2.2 + ((i * 37) % 100) / 100;
    // Every 50th runner stopped an hour ago (no-movement), every 40th went silent (lost-signal), every 30th is
    // off course for its last fixes, every 25th has a low battery.
    for (let k = 1; k <= FIXES; k++) {
      const t = start + k * 150_000;
      if (i % 40 === 0 && k > FIXES - 10) break;
      const d = i % 50 === 0 && k > FIXES - 24 ? speed * (FIXES - 24) * 150 : speed * k * 150;
      const east = i % 30 === 0 && k > FIXES - 4 ? 800 : 0;
      fixes.push({
        runnerId: i,
        t,
        ...pointAlong(Math.min(d, 39_000), east),
        batteryPercent: i % 25 === 0 ? 9 : 80,
        batteryState: null,
      });
    }
  }
  const course = prepareCourse(straightCourse(40_000));
  const live = new RaceLive({
    race: {
      id: 1,
      approved: true,
      startTime: new Date(start),
      hasStarted: true,
      hasFinished: false,
      clockStartedAt: new Date(start),
      clockStoppedAt: null,
    },
    course,
    runners,
    fixes,
    offCourseM: 200,
    nowMs: now,
  });
  const settings: AlertSettings = { ...DEFAULT_ALERT_SETTINGS };

  const boardMs: number[] = [];
  const sweepMs: number[] = [];
  const rulesMs: number[] = [];
  let raised = 0;
  for (let i = 0; i < 30; i++) {
    // A new 5-second bucket each time: the leaderboard is really rebuilt (it is cached per bucket).
    const at = now + i * 10_000;
    let t0 = performance.now();
    live.leaderboard(at);
    boardMs.push(performance.now() - t0);
    const at2 = at + 5000;
    t0 = performance.now();
    const subjects = live.alertSubjects(at2);
    const t1 = performance.now();
    const out = sweepRaceAlerts(
      subjects.map((s) => ({ runnerId: s.runnerId, input: s.input, open: [] })),
      settings,
      at2,
    );
    const t2 = performance.now();
    sweepMs.push(t2 - t0);
    rulesMs.push(t2 - t1);
    raised = out.reduce((n, r) => n + r.raise.length, 0);
  }
  const board = median(boardMs);
  const sweep = median(sweepMs);
  console.log(`runners: ${RUNNERS}, fixes: ${fixes.length}, conditions raised per sweep: ${raised}`);
  console.log(`leaderboard build (baseline):          ${board.toFixed(2)} ms (median of 30)`);
  console.log(
    `alert sweep, inputs + every rule:      ${sweep.toFixed(2)} ms (median of 30; includes one leaderboard)`,
  );
  console.log(`  of which the rules alone:            ${median(rulesMs).toFixed(2)} ms`);
  console.log(`ratio sweep / leaderboard:             ${(sweep / board).toFixed(2)}`);
}
