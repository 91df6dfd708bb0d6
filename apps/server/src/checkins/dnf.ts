import type { DbOrTx } from '../db/client';
import { writeRunnerStatus } from '../runners/status';
import type { CheckpointRow } from './repository';

/**
 * An aid station's DNF, through the one status writer (runners/status.ts) in the caller's transaction: status DNF,
 * reason "at {checkpoint}", the distance reached is the checkpoint's, logged with who (the check-in link) and when
 * (the check-in time). A runner already DNF keeps their first record. Returns the runner's status afterwards.
 */
export async function setDnfAtCheckpoint(
  tx: DbOrTx,
  v: { runnerId: number; raceId: number; checkpoint: CheckpointRow; time: Date; status: string | null },
): Promise<string | null> {
  if (v.status === 'DNF') return 'DNF';
  await writeRunnerStatus(tx, {
    raceId: v.raceId,
    runnerId: v.runnerId,
    status: 'DNF',
    reason: `at ${v.checkpoint.name}`,
    by: `check-in link at ${v.checkpoint.name}`,
    at: v.time,
    distanceM: v.checkpoint.distanceM,
  });
  return 'DNF';
}
