import { batteryStateFromPercent, type FixInput } from '../types';
import { num } from '../validate';

/** OwnTracks HTTP mode: {_type:"location", lat, lon, tst (s), alt, vel (km/h), batt}. Other types carry no fix. */
export function parseOwnTracks(body: unknown, trackingKey: string): FixInput | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (b._type !== 'location') return null;
  const vel = num(b.vel);
  const batt = num(b.batt);
  const tst = num(b.tst);
  return {
    device: { trackingKey },
    source: 'owntracks',
    fixTime: tst === undefined ? new Date(NaN) : new Date(tst * 1000),
    lat: num(b.lat) ?? NaN,
    lon: num(b.lon) ?? NaN,
    altitude: num(b.alt) ?? null,
    speed: vel === undefined ? null : vel / 3.6,
    batteryPercent: batt ?? null,
    batteryState: batteryStateFromPercent(batt),
  };
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
