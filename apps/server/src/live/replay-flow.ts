import {
  flowSeries,
  type FlowAnswer,
  type FlowCheckpoint,
  type PreparedCourse,
  type RunnerState,
} from '@racebeacon/domain';
import type { CheckpointRow } from '../checkpoints/repository';
import type { RunnerLive } from './runner-live';

/** Thinning tolerance of the flow chart's lines: a fraction of the chart (≈ 1 px on a 500 px chart). */
const FLOW_TOLERANCE = 0.002;

/**
 * Every runner's distance against time for the race-flow chart, with the checkpoints (or course waypoints): each
 * runner's progress at the end of the range (`at`: their timeline's state then, undefined without one), thinned.
 */
export function replayFlow(
  { fromMs, toMs }: { fromMs: number | null; toMs: number },
  course: PreparedCourse | null,
  checkpoints: CheckpointRow[],
  runners: readonly RunnerLive[],
  at: (runnerId: number, atMs: number) => { state: RunnerState } | undefined,
): FlowAnswer {
  const lengthKm = course ? Math.round(course.lengthM) / 1000 : null;
  const Checkpoints: FlowCheckpoint[] =
    checkpoints.length > 0
      ? checkpoints
          .filter((c) => c.kind !== 'start')
          .map((c) => ({
            Name: c.name,
            DistanceKm: Math.round(c.distanceM) / 1000,
            Cutoff: c.cutoffTime?.toISOString() ?? null,
          }))
      : (course?.waypoints ?? []).map((w) => ({
          Name: w.name,
          DistanceKm: Math.round(w.distanceM) / 1000,
          Cutoff: null,
        }));
  const spanMs = fromMs !== null ? Math.max(60_000, toMs - fromMs) : 3600_000;
  const Runners = runners.map((r) => {
    const got = at(r.info.id, toMs);
    const gapMs = r.opts.staleAfterMs ?? 3 * r.expectedMs;
    return {
      RunnerId: r.info.id,
      BibNumber: r.info.bibNumber,
      FirstName: r.info.firstName,
      LastName: r.info.lastName,
      Lines: got
        ? flowSeries(got.state.progress, {
            gapMs,
            spanMs,
            lengthKm: lengthKm ?? 1,
            tolerance: FLOW_TOLERANCE,
          })
        : [],
    };
  });
  return {
    From: fromMs === null ? null : new Date(fromMs).toISOString(),
    To: new Date(toMs).toISOString(),
    LengthKm: lengthKm,
    Checkpoints,
    Runners,
  };
}
