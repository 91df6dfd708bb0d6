import {
  isAlertMessageKey,
  type Alert,
  type AlertKind,
  type AlertLogEntry,
  type AlertState,
} from '@racebeacon/domain';
import { isoOrNull } from '../lib/time';
import type { AuthUser } from '../types';
import type * as repo from './repository';

export function toAlert(v: repo.AlertView): Alert {
  const name = [v.firstName, v.lastName].filter(Boolean).join(' ');
  return {
    AlertId: v.id,
    RaceId: v.raceId,
    RunnerId: v.runnerId,
    BibNumber: v.bibNumber,
    RunnerName: v.runnerId === null ? null : name || null,
    DeviceId: v.deviceId,
    DeviceName: v.deviceName,
    Kind: v.kind as AlertKind,
    State: v.state as AlertState,
    RaisedAt: v.raisedAt.toISOString(),
    LastSeenAt: v.lastSeenAt.toISOString(),
    Latitude: v.lat,
    Longitude: v.lon,
    Message: v.message ?? '',
    // A key this build does not know (written by a newer server) is left out: the screen shows Message.
    MessageKey: isAlertMessageKey(v.messageKey) ? v.messageKey : null,
    MessageParams: isAlertMessageKey(v.messageKey) ? (v.messageParams ?? {}) : null,
    AcknowledgedBy: v.acknowledgedBy,
    AcknowledgedAt: isoOrNull(v.acknowledgedAt),
    ResolvedBy: v.resolvedBy,
    ResolvedAt: isoOrNull(v.resolvedAt),
    Note: v.note,
  };
}

/** One line of a race's alert log, as the API shows it. */
export function toLogEntry(r: Awaited<ReturnType<typeof repo.listRaceLog>>[number]): AlertLogEntry {
  return {
    AlertId: r.alertId,
    State: r.state as AlertState,
    At: r.at.toISOString(),
    By: r.by,
    Note: r.note,
  };
}

/** Who did it, as the log shows it: the name (or email) in the token, else its subject. */
export const actorOf = (user: AuthUser): string => user.name || user.email || user.id;
