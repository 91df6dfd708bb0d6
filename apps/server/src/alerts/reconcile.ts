import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import type { DeviceAlertMessage } from './device-messages';

/** How far back the sweep looks for stored device SOS/HELP messages that never became an HQ alert. */
export const RECONCILE_WINDOW_HOURS = 24;

/**
 * Device SOS and HELP messages (device_alerts) stored in the last RECONCILE_WINDOW_HOURS that no HQ alert covers:
 * raising them failed after they were stored (a transient database error), and a redelivery is a duplicate that
 * never reaches HQ again.
 *
 * The rule (alerts carry no link to the device alert): a device message is covered by an HQ alert of the same
 * subject (its runner, or its device when it holds no runner) and kind that is still unresolved (raising again
 * would only refresh it), or that was seen at or after the message (`last_seen_at >= at`: raised or refreshed by
 * this message or a later one — an alert raised from a device message takes the message's time as its raised and
 * last-seen time, reconciliation included), or that was resolved at or after it (it was open when the message
 * came, so the person who resolved it saw it). So an SOS a person already resolved is never raised again, while a
 * new SOS sent after that resolution is. A HELP cancelled on the device later (a later help-cancel) is not raised.
 */
export async function listUnraisedDeviceAlerts(db: DbOrTx, nowMs: number): Promise<DeviceAlertMessage[]> {
  const now = new Date(nowMs).toISOString();
  const res = (await db.execute(sql`
    SELECT da.device_id, da.race_id, da.runner_id, da.kind, da.at, da.message, da.lat, da.lon
    FROM device_alerts da
    WHERE da.kind IN ('sos', 'help')
      AND da.at > ${now}::timestamptz - make_interval(hours => ${RECONCILE_WINDOW_HOURS})
      AND NOT EXISTS (
        SELECT 1 FROM alerts a
        WHERE a.kind = da.kind
          AND (CASE WHEN da.runner_id IS NOT NULL THEN a.runner_id = da.runner_id
                    ELSE a.runner_id IS NULL AND a.device_id = da.device_id END)
          AND (a.state <> 'resolved' OR a.last_seen_at >= da.at OR a.resolved_at >= da.at))
      AND NOT (da.kind = 'help' AND EXISTS (
        SELECT 1 FROM device_alerts c
        WHERE c.device_id = da.device_id AND c.kind = 'help-cancel' AND c.at >= da.at))
    ORDER BY da.at`)) as unknown as { rows: Record<string, unknown>[] };
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return res.rows.map((r) => ({
    deviceId: Number(r.device_id),
    raceId: num(r.race_id),
    runnerId: num(r.runner_id),
    kind: String(r.kind),
    at: new Date(r.at as string | Date).toISOString(),
    message: r.message === null ? null : String(r.message),
    lat: num(r.lat),
    lon: num(r.lon),
  }));
}
