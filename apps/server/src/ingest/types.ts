import type { DeviceSource } from '@racebeacon/domain';

/** The sources a device can report through (Device.Source): the API's list, from the domain package. */
export { DEVICE_SOURCES, type DeviceSource } from '@racebeacon/domain';

/**
 * How an incoming fix names its device: the server-issued tracking key (phone apps), or the id its source
 * reports (SPOT ESN, inReach IMEI, DevEUI, Meshtastic node number). Several spellings of one hardware id may be
 * given (e.g. a Meshtastic node as "2882323244" and "!abcdef2c"); matching is case-insensitive.
 */
export type DeviceRef =
  { trackingKey: string } | { source: DeviceSource; hardwareIds: string[] } | { deviceId: number };

/** One position as every adapter produces it. Speed in m/s, battery in percent. */
export interface FixInput {
  device: DeviceRef;
  fixTime: Date;
  lat: number;
  lon: number;
  altitude?: number | null;
  speed?: number | null;
  batteryPercent?: number | null;
  batteryState?: string | null;
  source: DeviceSource;
  /** Horizontal accuracy the device reported, in metres (null: none); see validate.ts accuracyOf. */
  accuracy?: number | null;
  /** Direction of travel the device reported, degrees clockwise from true north, 0–360 (null: none). */
  heading?: number | null;
}

/** An alert a device raised (SOS, HELP, their cancellations). */
export interface AlertInput {
  device: DeviceRef;
  kind: string;
  message: string | null;
  /**
   * When the device raised it. An Invalid Date when the source's time could not be read: the alert is then
   * recorded at its receive time (an SOS is never dropped for its timestamp), as is one whose time is impossible.
   */
  at: Date;
  lat: number | null;
  lon: number | null;
  /** The time exactly as the source wrote it, for the log, when it could not be read. */
  sourceTime?: unknown;
}

/** A battery level reported without a position (LoRaWAN status events, Meshtastic telemetry). */
export interface BatteryReport {
  device: DeviceRef;
  source: DeviceSource;
  batteryPercent: number | null;
  batteryState: string | null;
}

export type FixOutcome =
  | { status: 'stored'; positionId: number; deviceId: number; raceId: number | null; runnerId: number | null }
  | { status: 'duplicate'; deviceId: number }
  | { status: 'unknown_device' };

/**
 * Per fix of a batch source: stored/duplicate/unknown, `invalid` (refused by validation, never sent to the
 * database), `failed` (the database refused it alone — its batch was bisected — or could not be reached), or
 * `rate_limited` (over its device's or source's rate limit, never sent to the database).
 */
export type BatchOutcome =
  | FixOutcome
  | { status: 'invalid'; message: string }
  | { status: 'failed'; error: unknown }
  | { status: 'rate_limited' };

/** Per battery report: stored on its device (and published), or no device of ours has this id. */
export type BatteryOutcome = 'stored' | 'unknown_device';

/** GOOD/LOW from a percentage; the threshold SPOT and inReach use is not published, 20 % is the usual phone one. */
export function batteryStateFromPercent(p: number | null | undefined): string | null {
  if (p === null || p === undefined || !Number.isFinite(p)) return null;
  return p <= 20 ? 'LOW' : 'GOOD';
}
