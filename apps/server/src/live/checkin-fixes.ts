import type { CheckinFixRow } from '../checkins/repository';
import type { LiveFixRow } from './repository';

/**
 * The race's GPS fixes and its aid-station check-ins (each a fix at its checkpoint, no battery) as one list in runner
 * then time order, which is how the live race reads them. Both inputs are in that order; a check-in at the very
 * instant of a GPS fix of the same runner is left out (the live race keeps one fix per instant).
 */
export function mergeCheckinFixes(gps: LiveFixRow[], checkins: CheckinFixRow[]): LiveFixRow[] {
  const out: LiveFixRow[] = [];
  let i = 0;
  let j = 0;
  const before = (a: LiveFixRow | CheckinFixRow, b: LiveFixRow | CheckinFixRow) =>
    a.runnerId < b.runnerId || (a.runnerId === b.runnerId && a.t <= b.t);
  while (i < gps.length || j < checkins.length) {
    if (j >= checkins.length || (i < gps.length && before(gps[i], checkins[j]))) {
      out.push(gps[i++]);
      continue;
    }
    const c = checkins[j++];
    const last = out[out.length - 1];
    const next = gps[i];
    const sameInstant = (f: LiveFixRow | undefined) => f && f.runnerId === c.runnerId && f.t === c.t;
    if (sameInstant(last) || sameInstant(next)) continue;
    out.push({
      runnerId: c.runnerId,
      t: c.t,
      lat: c.lat,
      lon: c.lon,
      batteryPercent: null,
      batteryState: null,
    });
  }
  return out;
}
