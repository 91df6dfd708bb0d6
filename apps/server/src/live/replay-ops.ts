import type { LeaderboardRunner } from '@racebeacon/domain';
import type { CheckinPassingRow, ReceivedFixRow, StatusChangeRow } from './replay-repository';

/**
 * The race operations of a replay, each from when it was known: statuses set by people (DNS/DNF/DSQ, from the status
 * log) and aid-station check-ins (a checkpoint passing, and a fix at the checkpoint, from when the volunteer's phone
 * sent it).
 */
export class ReplayRaceOps {
  /** Statuses set by people, per runner oldest first: the one in force at a moment is the last recorded by then. */
  private statusHistory = new Map<number, StatusChangeRow[]>();
  /** Aid-station check-ins per runner: one counts from when the server was told of it. */
  private checkinsByRunner = new Map<number, CheckinPassingRow[]>();
  /** Check-ins already in the timelines as fixes (runner:checkpoint:time). */
  private readonly checkinFixesApplied = new Set<string>();

  /** The fixes with the check-ins not applied yet as fixes (id -1), in arrival order (then runner and time). */
  withCheckinFixes(rows: ReceivedFixRow[], checkins: readonly CheckinPassingRow[]): ReceivedFixRow[] {
    const added: ReceivedFixRow[] = [];
    for (const c of checkins) {
      const key = `${c.runnerId}:${c.checkpointId}:${c.t}`;
      if (this.checkinFixesApplied.has(key)) continue;
      this.checkinFixesApplied.add(key);
      added.push({ ...c, id: -1, batteryPercent: null, batteryState: null });
    }
    if (added.length === 0) return rows;
    const order = (a: ReceivedFixRow, b: ReceivedFixRow) =>
      a.receivedMs - b.receivedMs || a.runnerId - b.runnerId || a.t - b.t;
    added.sort(order);
    const out: ReceivedFixRow[] = [];
    let i = 0;
    let j = 0;
    while (i < rows.length || j < added.length)
      out.push(
        j >= added.length || (i < rows.length && order(rows[i], added[j]) <= 0) ? rows[i++] : added[j++],
      );
    return out;
  }

  /** The race's status history and check-ins as stored now (read again with every new fix or change). */
  set(history: StatusChangeRow[], checkins: CheckinPassingRow[]): void {
    this.statusHistory = groupByRunner(history);
    this.checkinsByRunner = groupByRunner(checkins);
  }

  /** The status set by people in force at `atMs` (the live rule of `manualStatusOf`, at that moment). */
  manualStatusAt(runnerId: number, atMs: number): LeaderboardRunner['manualStatus'] {
    const history = this.statusHistory.get(runnerId);
    if (!history) return null;
    let current: StatusChangeRow | null = null;
    for (const h of history) if (h.atMs <= atMs) current = h;
    const s = current?.status;
    if (s !== 'DNS' && s !== 'DNF' && s !== 'DSQ') return null;
    return { status: s, distanceM: current!.distanceM };
  }

  /** The check-ins known at `atMs`. */
  checkinsAt(runnerId: number, atMs: number): { checkpointId: number; t: number }[] {
    const all = this.checkinsByRunner.get(runnerId);
    if (!all) return [];
    const out: { checkpointId: number; t: number }[] = [];
    for (const c of all)
      if (c.receivedMs <= atMs && c.t <= atMs) out.push({ checkpointId: c.checkpointId, t: c.t });
    return out;
  }
}

function groupByRunner<T extends { runnerId: number }>(rows: T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const row of rows) {
    const list = out.get(row.runnerId);
    if (list) list.push(row);
    else out.set(row.runnerId, [row]);
  }
  return out;
}
