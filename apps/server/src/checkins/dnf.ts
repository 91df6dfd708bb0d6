import type { DbOrTx } from '../db/client';
import { writeRunnerStatus } from '../runners/status';
import { findRunnerWithRace } from '../runners/status-repository';
import type { CheckpointRow } from './repository';

/**
 * An aid station's DNF, through the one status writer (runners/status.ts) in the caller's transaction: status DNF,
 * reason "at {checkpoint}", the distance reached is the checkpoint's, logged with who (the check-in link) and when
 * (the check-in time). A status set meanwhile (read again, locked, in the transaction) is kept: a DNF keeps its
 * first record, a DSQ or DNS is never overwritten. Returns the runner's status afterwards.
 */
export async function setDnfAtCheckpoint(
  tx: DbOrTx,
  v: { runnerId: number; raceId: number; checkpoint: CheckpointRow; time: Date },
): Promise<string | null> {
  const current = await findRunnerWithRace(tx, v.runnerId, true);
  if (current?.status) return current.status;
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
