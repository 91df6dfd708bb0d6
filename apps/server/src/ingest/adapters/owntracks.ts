import { batteryStateFromPercent, type FixInput } from '../types';
import { accuracyOf, headingOf, num } from '../validate';
import { readBatch, type AdapterResult } from './contract';

/**
 * OwnTracks HTTP mode: {_type:"location", lat, lon, tst (s), alt, vel (km/h), batt, acc (m), cog (deg)}, and
 * {_type:"transition"} (entering or leaving a region), which carries the device's position at `tst` too. Other
 * message types (waypoints, cards…) carry no position: an empty batch. The device is the tracking key the request
 * authenticated with (HTTP Basic password).
 */
export function readOwnTracks(body: unknown, trackingKey: string): AdapterResult {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return readBatch({ received: 1 });
  const b = body as Record<string, unknown>;
  // A transition without coordinates (a beacon region) is a message without a position.
  const positioned = b._type === 'location' || (b._type === 'transition' && b.lat != null && b.lon != null);
  if (!positioned) return readBatch({ received: 1 });
  const vel = num(b.vel);
  const batt = num(b.batt);
  const tst = num(b.tst);
  const fix: FixInput = {
    device: { trackingKey },
    source: 'owntracks',
    fixTime: tst === undefined ? new Date(NaN) : new Date(tst * 1000),
    lat: num(b.lat) ?? NaN,
    lon: num(b.lon) ?? NaN,
    altitude: num(b.alt) ?? null,
    speed: vel === undefined ? null : vel / 3.6,
    batteryPercent: batt ?? null,
    batteryState: batteryStateFromPercent(batt),
    accuracy: accuracyOf(b.acc),
    heading: headingOf(b.cog),
  };
  return readBatch({ fixes: [fix] });
}

/** The position of one OwnTracks message, null for a message type that carries none. */
export function parseOwnTracks(body: unknown, trackingKey: string): FixInput | null {
  const read = readOwnTracks(body, trackingKey);
  return read.ok ? (read.batch.fixes[0] ?? null) : null;
}

/** Credentials from an HTTP Basic header; the user name is free, the password is the device's TrackingKey. */
export function basicPassword(header: string | undefined): string | null {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  const pw = i < 0 ? '' : decoded.slice(i + 1);
  return pw || null;
}
