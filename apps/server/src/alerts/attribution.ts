import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { holderAt } from '../ingest/attribution-repository';

/**
 * Device messages (SOS, HELP) follow the device's hand-overs as fixes do: when a race's assignments change, each
 * stored device message of a device of that race, and each HQ alert raised from one, is given to the runner who
 * held the device at the message's time (`holderAt`, the same rule as fixes: the first holder in a race owns the
 * device from the race's start). So an SOS sent before the hand-over of a device already in the race — shown at
 * HQ as "not yet handed to a runner" — names its runner as soon as a hand-over whose start lies before it exists.
 * A message nobody held the device for keeps its race. An unresolved alert whose runner already has an unresolved
 * alert of the same kind stays as it is (one per runner and kind), and HQ still sees both.
 */

/** The device alerts' kinds raised by devices (the sweep's kinds are about a runner from the start). */
const DEVICE_KINDS = sql.raw(`('sos', 'help')`);

const devicesOfRace = (raceId: number) =>
  sql`(SELECT device_id FROM device_assignments WHERE race_id = ${raceId}
       UNION SELECT id FROM devices WHERE race_id = ${raceId})`;

/**
 * Re-attributes the race's device messages and the HQ alerts raised from them; returns the HQ alerts changed
 * (their id and race afterwards) in one transaction.
 */
export async function reattributeRaceAlerts(
  db: Db,
  raceId: number,
): Promise<{ id: number; raceId: number | null }[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`
      UPDATE device_alerts d SET race_id = h.race_id, runner_id = h.runner_id
      FROM device_alerts q JOIN LATERAL ${holderAt('q.device_id', 'q.at')} h ON true
      WHERE q.id = d.id AND d.device_id IN ${devicesOfRace(raceId)}
        AND (d.runner_id IS DISTINCT FROM h.runner_id OR d.race_id IS DISTINCT FROM h.race_id)`);
    const res = (await tx.execute(sql`
      UPDATE alerts a SET race_id = h.race_id, runner_id = h.runner_id
      FROM alerts q JOIN LATERAL ${holderAt('q.device_id', 'q.raised_at')} h ON true
      WHERE q.id = a.id AND a.kind IN ${DEVICE_KINDS} AND a.device_id IN ${devicesOfRace(raceId)}
        AND (a.runner_id IS DISTINCT FROM h.runner_id OR a.race_id IS DISTINCT FROM h.race_id)
        AND NOT (a.state <> 'resolved' AND EXISTS (
          SELECT 1 FROM alerts o
          WHERE o.runner_id = h.runner_id AND o.kind = a.kind AND o.state <> 'resolved' AND o.id <> a.id))
      RETURNING a.id, a.race_id`)) as unknown as { rows: { id: unknown; race_id: unknown }[] };
    return res.rows.map((r) => ({ id: Number(r.id), raceId: r.race_id === null ? null : Number(r.race_id) }));
  });
}
