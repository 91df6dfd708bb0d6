import {
  cutoffRisk,
  emptyRunnerState,
  runnerSplits,
  type CutoffRisk,
  type EtaTerrain,
  type LeaderboardRow,
  type RaceClock,
  type RunnerSplits,
  type SplitCheckpoint,
} from '@racebeacon/domain';
import type { RunnerLive } from './runner-live';

/** A live race's checkpoints read per runner: splits (GPS or check-in) and cutoff risks, through the domain. */

/** Every runner's splits, in the race's runner order. */
export function splitsOf(
  runners: Iterable<RunnerLive>,
  checkpoints: readonly SplitCheckpoint[],
  clock: RaceClock,
): RunnerSplits[] {
  const out: RunnerSplits[] = [];
  for (const r of runners) {
    out.push({
      RunnerId: r.info.id,
      BibNumber: r.info.bibNumber,
      Splits: runnerSplits(r.state ?? emptyRunnerState(), checkpoints, r.checkins, clock).map((s) => ({
        CheckpointId: s.checkpointId,
        PassingTime: new Date(s.t).toISOString(),
        Source: s.source,
        Estimated: s.estimated,
      })),
    });
  }
  return out;
}

/** Runners whose leaderboard row says CutoffRisk, with the checkpoint and ETA (for the HQ's cutoff-risk alert). */
export function cutoffRisksOf(
  rows: readonly LeaderboardRow[],
  runners: Map<number, RunnerLive>,
  checkpoints: readonly SplitCheckpoint[],
  nowMs: number,
  terrain?: EtaTerrain,
): Map<number, CutoffRisk> {
  const out = new Map<number, CutoffRisk>();
  for (const row of rows) {
    if (!row.CutoffRisk) continue;
    const r = runners.get(row.RunnerId);
    if (!r?.state) continue;
    const risk = cutoffRisk({ ...r.state, status: row.Status }, checkpoints, r.checkins, nowMs, terrain);
    if (risk) out.set(row.RunnerId, risk);
  }
  return out;
}
