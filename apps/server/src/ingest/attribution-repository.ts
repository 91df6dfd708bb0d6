import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { rows } from './sql';

/**
 * Attribution of fixes to runners: who held a device at a given time, from the assignment history
 * (`device_assignments`), and the re-attribution of stored fixes when that history changes.
 */

/**
 * The runner holding device `dev` at time `t`, as a LATERAL subquery yielding (race_id, runner_id).
 * The first holder of a device in a race owns its fixes from the race's start (clock start, else StartTime) even
 * when assigned later; every later holder from the hand-over time on. A closed assignment ends at unassigned_at.
 */
export function holderAt(dev: string, t: string): SQL {
  return sql.raw(`(
    SELECT da.race_id, da.runner_id
    FROM device_assignments da JOIN races rc ON rc.id = da.race_id
    WHERE da.device_id = ${dev}
      AND (da.unassigned_at IS NULL OR da.unassigned_at > ${t})
      AND (CASE WHEN EXISTS (
                  SELECT 1 FROM device_assignments pa
                  WHERE pa.device_id = da.device_id AND pa.race_id = da.race_id
                    AND (pa.assigned_at < da.assigned_at OR (pa.assigned_at = da.assigned_at AND pa.id < da.id)))
                THEN da.assigned_at
                ELSE LEAST(da.assigned_at, COALESCE(rc.clock_started_at, rc.start_time, da.assigned_at)) END) <= ${t}
    ORDER BY da.assigned_at DESC, da.id DESC
    LIMIT 1)`);
}

/** Re-runs attribution over a device's stored fixes (after an assignment changed, so a late first holder keeps
 * the fixes received before the assignment). Returns the number of positions whose runner changed. */
export async function reattributeDevice(db: DbOrTx, deviceId: number): Promise<number> {
  const res = await rows(
    db,
    sql`UPDATE positions p SET race_id = h.race_id, runner_id = h.runner_id
        FROM positions q LEFT JOIN LATERAL ${holderAt('q.device_id', 'q.fix_time')} h ON true
        WHERE q.id = p.id AND p.device_id = ${deviceId}
          AND (p.runner_id IS DISTINCT FROM h.runner_id OR p.race_id IS DISTINCT FROM h.race_id)
        RETURNING p.id`,
  );
  return res.length;
}

/** Re-attributes the fixes of every device that has been assigned in a race (see reattributeDevice). */
export async function reattributeRace(db: DbOrTx, raceId: number): Promise<number> {
  const res = await rows(
    db,
    sql`UPDATE positions p SET race_id = h.race_id, runner_id = h.runner_id
        FROM positions q LEFT JOIN LATERAL ${holderAt('q.device_id', 'q.fix_time')} h ON true
        WHERE q.id = p.id
          AND p.device_id IN (SELECT device_id FROM device_assignments WHERE race_id = ${raceId})
          AND (p.runner_id IS DISTINCT FROM h.runner_id OR p.race_id IS DISTINCT FROM h.race_id)
        RETURNING p.id`,
  );
  return res.length;
}
