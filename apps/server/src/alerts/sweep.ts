import type { RunnerAlertTransitions } from '@racebeacon/domain';
import type { AlertWriter } from './alert-writer';
import * as repo from './repository';

/** An ongoing alert is rewritten (and sent to HQ screens) when its runner moved, or once a minute at most. */
export const REFRESH_EVERY_MS = 60_000;

function worthRefreshing(
  open: repo.AlertRow,
  c: { lat: number | null; lon: number | null },
  nowMs: number,
): boolean {
  const moved = c.lat !== null && c.lon !== null && (c.lat !== open.lat || c.lon !== open.lon);
  return moved || nowMs - open.lastSeenAt.getTime() >= REFRESH_EVERY_MS;
}

/** What a condition says about the alert: where, and its detail (English and keyed), for a new or a refreshed alert. */
function detailOf(c: RunnerAlertTransitions['raise'][number]) {
  const { lat, lon, message, messageKey, messageParams } = c;
  return { lat, lon, message, messageKey, messageParams };
}

/**
 * Applies one sweep of a race: raises the new conditions, refreshes those still holding, resolves the
 * self-clearing alerts whose condition cleared. `devices`: the device each runner holds (the alert names it).
 */
export async function applySweepTransitions(
  w: AlertWriter,
  raceId: number,
  transitions: RunnerAlertTransitions[],
  devices: Map<number, number | null>,
  nowMs: number,
): Promise<{ raised: number; resolved: number; refreshed: number }> {
  const now = new Date(nowMs);
  const counts = { raised: 0, resolved: 0, refreshed: 0 };
  if (!transitions.length) return counts;
  const active = await repo.listActiveRaceAlerts(w.db, raceId);
  const byKey = new Map(active.map((a) => [`${a.runnerId}:${a.kind}`, a]));
  for (const t of transitions) {
    const deviceId = devices.get(t.runnerId) ?? null;
    for (const c of t.raise) {
      const row = await w.db.transaction(async (tx) => {
        const r = await repo.insertAlertIfNone(tx, {
          raceId,
          runnerId: t.runnerId,
          deviceId,
          kind: c.kind,
          at: now,
          ...detailOf(c),
        });
        if (r) await repo.insertLog(tx, { alertId: r.id, state: 'open', at: now, by: null, note: null });
        return r;
      });
      if (row) {
        counts.raised++;
        await w.announce(raceId, row.id);
      }
    }
    for (const c of t.ongoing) {
      const open = byKey.get(`${t.runnerId}:${c.kind}`);
      if (!open || !worthRefreshing(open, c, nowMs)) continue;
      if (await repo.touchAlert(w.db, open.id, { at: now, ...detailOf(c) })) {
        counts.refreshed++;
        await w.announce(raceId, open.id);
      }
    }
    for (const kind of t.resolve) {
      const open = byKey.get(`${t.runnerId}:${kind}`);
      if (!open) continue;
      const done = await w.db.transaction(async (tx) => {
        if (!(await repo.resolveAlert(tx, open.id, { by: null, at: now, note: null }))) return false;
        await repo.insertLog(tx, { alertId: open.id, state: 'resolved', at: now, by: null, note: null });
        return true;
      });
      if (done) {
        counts.resolved++;
        await w.announce(raceId, open.id);
      }
    }
  }
  return counts;
}
