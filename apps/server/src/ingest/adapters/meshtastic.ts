import { batteryStateFromPercent, type FixInput } from '../types';
import { headingOf, num } from '../validate';
import { readBatch, type AdapterResult } from './contract';

/** Meshtastic MQTT JSON (firmware MeshPacketSerializer): {id, from, type, timestamp, payload}. */

/** The spellings an admin may have entered for a node: decimal node number, "!abcdef2c", "abcdef2c". */
export function nodeIds(from: number): string[] {
  const hex = (from >>> 0).toString(16).padStart(8, '0');
  return [String(from >>> 0), `!${hex}`, hex];
}

/** A time in epoch seconds the packet gave (0 is the firmware's "no time"). */
const positive = (v: unknown) => {
  const n = num(v);
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
};

/** Metres in a degree of latitude (and of longitude at the equator). */
const M_PER_DEG = 111_320;

/**
 * The accuracy of a position whose coordinates were cut to `bits` precision bits (Position.precision_bits, 1–31:
 * the channel's position precision; 32 or none is the GPS's full precision, no figure we can give): the size of the
 * cell the node is known to be in, 2^(32 − bits) × 1e-7 degrees (13 bits ≈ 5.8 km, 16 ≈ 730 m, as the Meshtastic
 * apps show it).
 */
export function precisionMetres(bits: number | undefined): number | null {
  if (bits === undefined || !Number.isInteger(bits) || bits < 1 || bits > 31) return null;
  return Math.round(2 ** (32 - bits) * 1e-7 * M_PER_DEG);
}

export type MeshtasticParsed =
  | { kind: 'position'; dedupKey: string; fix: FixInput }
  | { kind: 'battery'; dedupKey: string; hardwareIds: string[]; percent: number | null; state: string }
  | { kind: 'no_position'; dedupKey: string; hardwareIds: string[] }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'ignored' };

export function parseMeshtastic(text: string): MeshtasticParsed {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return { kind: 'unreadable', reason: `not JSON: ${(err as Error).message}` };
  }
  if (!m || typeof m !== 'object' || Array.isArray(m))
    return { kind: 'unreadable', reason: 'not a JSON object' };
  const from = num(m.from);
  const p = m.payload as Record<string, unknown> | undefined;
  if (from === undefined || !Number.isFinite(from) || !p || typeof p !== 'object') return { kind: 'ignored' };
  const ids = nodeIds(from);
  const dedupKey = `${ids[0]}:${String(m.id)}`;
  if (m.type === 'position') {
    const li = num(p.latitude_i);
    const lo = num(p.longitude_i);
    // A position packet without a fix (no GPS yet, or a node that shares none): counted on the device.
    if (li === undefined || lo === undefined || (li === 0 && lo === 0))
      return { kind: 'no_position', dedupKey, hardwareIds: ids };
    // mesh.proto: Position.timestamp is when the GPS solution was taken, Position.time when the packet was sent
    // (often equal; later when the node sends an older fix): the fix time is the first one we have of these.
    const t = positive(p.timestamp) ?? positive(p.time) ?? positive(m.timestamp);
    const kmh = num(p.ground_speed);
    const groundTrack = num(p.ground_track);
    return {
      kind: 'position',
      dedupKey,
      fix: {
        device: { source: 'meshtastic', hardwareIds: ids },
        source: 'meshtastic',
        fixTime: new Date(t === undefined ? NaN : t * 1000),
        // Divided, not multiplied by 1e-7: the double nearest the decimal the node sent (19.586621, not …620999999997).
        lat: li / 1e7,
        lon: lo / 1e7,
        altitude: num(p.altitude) ?? null,
        speed: kmh === undefined ? null : kmh / 3.6,
        batteryPercent: null,
        batteryState: null,
        accuracy: precisionMetres(num(p.precision_bits)),
        // ground_track is in 1e-5 degrees (the firmware's GPS course × 1e3).
        heading: headingOf(groundTrack === undefined ? undefined : groundTrack * 1e-5),
      },
    };
  }
  if (m.type === 'telemetry') {
    // device_metrics telemetry; environment telemetry shares the type but has no battery_level.
    const metrics = (p.device_metrics as Record<string, unknown> | undefined) ?? p;
    const level = num(metrics.battery_level);
    // A negative level is a broken sensor or decoder, not a battery state.
    if (level === undefined || !Number.isFinite(level) || level < 0) return { kind: 'ignored' };
    // 101 = on external power: no battery percentage, but nothing to worry about.
    const percent = level > 100 ? null : level;
    return {
      kind: 'battery',
      dedupKey,
      hardwareIds: ids,
      percent,
      state: percent === null ? 'GOOD' : (batteryStateFromPercent(percent) ?? 'GOOD'),
    };
  }
  return { kind: 'ignored' };
}

/** The Meshtastic adapter over a parsed packet: a position, a battery-only report (telemetry), or nothing. */
export function meshtasticBatch(parsed: MeshtasticParsed): AdapterResult {
  if (parsed.kind === 'position') return readBatch({ fixes: [parsed.fix] });
  if (parsed.kind === 'ignored' || parsed.kind === 'unreadable') return readBatch({ received: 1 });
  if (parsed.kind === 'no_position') {
    const device = { source: 'meshtastic' as const, hardwareIds: parsed.hardwareIds };
    return readBatch({ received: 1, withoutPosition: [device] });
  }
  const device = { source: 'meshtastic' as const, hardwareIds: parsed.hardwareIds };
  return readBatch({
    batteryOnly: [
      { device, source: 'meshtastic', batteryPercent: parsed.percent, batteryState: parsed.state },
    ],
    received: 1,
  });
}
