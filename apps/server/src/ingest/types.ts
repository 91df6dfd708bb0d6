/** The sources a device can report through (Device.Source). */
export const DEVICE_SOURCES = ['osmand', 'spot', 'inreach', 'lorawan', 'owntracks', 'meshtastic'] as const;
export type DeviceSource = (typeof DEVICE_SOURCES)[number];

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
}

export interface AlertInput {
  device: DeviceRef;
  kind: string;
  message: string | null;
  at: Date;
  lat: number | null;
  lon: number | null;
}

export type FixOutcome =
  | { status: 'stored'; positionId: number; deviceId: number; raceId: number | null; runnerId: number | null }
  | { status: 'duplicate'; deviceId: number }
  | { status: 'unknown_device' };

/** GOOD/LOW from a percentage; the threshold SPOT and inReach use is not published, 20 % is the usual phone one. */
export function batteryStateFromPercent(p: number | null | undefined): string | null {
  if (p === null || p === undefined || !Number.isFinite(p)) return null;
  return p <= 20 ? 'LOW' : 'GOOD';
}
