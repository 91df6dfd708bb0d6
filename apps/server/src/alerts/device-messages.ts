import { alertMessage, sosOrHelpFromText, type AlertSettings } from '@racebeacon/domain';
import type { AlertWriter } from './alert-writer';
import * as repo from './repository';

/** A device message as ingestion recorded it (device_alerts), with what HQ shows of it. */
export interface DeviceAlertMessage {
  deviceId: number;
  raceId: number | null;
  runnerId: number | null;
  /** sos, help, help-cancel, sos-cancel, or message (an inReach free text, a help request if it has the keyword). */
  kind: string;
  at: string;
  message: string | null;
  lat: number | null;
  lon: number | null;
}

/** "SOS sent from the device: <text>", with its key and parameters (the device's text verbatim). */
const describeDeviceMessage = (kind: 'sos' | 'help', text: string | null) => {
  if (kind === 'sos') return text ? alertMessage('sos-text', { text }) : alertMessage('sos', {});
  return text ? alertMessage('help-text', { text }) : alertMessage('help', {});
};

/**
 * A device message ingestion recorded: an SOS or HELP raises an open alert for the runner holding the device at
 * that time (or for the device itself when it holds no race), or refreshes the one already open; HELP-CANCEL
 * resolves an open help; an SOS cancelled on the device stays open (a person resolves it) but says so; an inReach
 * text containing the race's help keyword is a help request. Returns the alert changed, if any.
 */
export async function alertFromDeviceMessage(
  w: AlertWriter,
  raceSettings: (raceId: number) => Promise<AlertSettings>,
  m: DeviceAlertMessage,
): Promise<number | null> {
  const at = new Date(m.at);
  const subject = { runnerId: m.runnerId, deviceId: m.deviceId };
  let kind: 'sos' | 'help' | null = null;
  if (m.kind === 'sos' || m.kind === 'help') kind = m.kind;
  else if (m.kind === 'message' && m.raceId !== null) {
    kind = sosOrHelpFromText(m.message, (await raceSettings(m.raceId)).HelpKeyword);
  }
  if (kind) {
    const raised = await raise(w, {
      raceId: m.raceId,
      runnerId: m.runnerId,
      deviceId: m.deviceId,
      kind,
      at,
      lat: m.lat,
      lon: m.lon,
      ...describeDeviceMessage(kind, m.message),
    });
    return raised;
  }
  if (m.kind === 'help-cancel') {
    const open = await repo.findActiveAlert(w.db, subject, 'help');
    if (!open) return null;
    const done = await w.db.transaction(async (tx) => {
      const note = 'Cancelled on the device (HELP-CANCEL).';
      if (!(await repo.resolveAlert(tx, open.id, { by: null, at, note }))) return false;
      await repo.insertLog(tx, { alertId: open.id, state: 'resolved', at, by: null, note });
      return true;
    });
    if (!done) return null;
    await w.announce(open.raceId, open.id);
    return open.id;
  }
  if (m.kind === 'sos-cancel') {
    const open = await repo.findActiveAlert(w.db, subject, 'sos');
    if (!open) return null;
    // Keyed when the SOS was (its message is then exactly that key's English); else the stored message as before.
    const cancelledAt = at.toISOString();
    const sos = open.messageParams?.text;
    const keyed =
      open.messageKey === 'sos'
        ? alertMessage('sos-cancelled', { cancelledAt })
        : open.messageKey === 'sos-text' && typeof sos === 'string'
          ? alertMessage('sos-cancelled', { cancelledAt, text: sos })
          : null;
    const message = `${open.message ?? 'SOS'} — cancelled on the device at ${cancelledAt}; confirm with the runner before resolving.`;
    const change = keyed
      ? { message: keyed.message, messageKey: keyed.messageKey, messageParams: keyed.messageParams }
      : { message };
    if (await repo.touchAlert(w.db, open.id, { at, lat: m.lat, lon: m.lon, ...change }))
      await w.announce(open.raceId, open.id);
    return open.id;
  }
  return null;
}

/** Raises an open alert (logged as raised), or refreshes the unresolved one of the same subject and kind. */
async function raise(w: AlertWriter, a: repo.NewAlert): Promise<number | null> {
  const inserted = await w.db.transaction(async (tx) => {
    const row = await repo.insertAlertIfNone(tx, a);
    if (row) await repo.insertLog(tx, { alertId: row.id, state: 'open', at: a.at, by: null, note: null });
    return row;
  });
  if (inserted) {
    await w.announce(a.raceId, inserted.id);
    return inserted.id;
  }
  const open = await repo.findActiveAlert(w.db, a, a.kind);
  if (!open) return null;
  if (await repo.touchAlert(w.db, open.id, { at: a.at, lat: a.lat, lon: a.lon }))
    await w.announce(open.raceId, open.id);
  return open.id;
}
