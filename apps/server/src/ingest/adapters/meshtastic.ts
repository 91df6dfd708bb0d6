import { batteryStateFromPercent, type FixInput } from '../types';
import { num } from '../validate';
import { readBatch, type AdapterResult } from './contract';

/** Meshtastic MQTT JSON (firmware MeshPacketSerializer): {id, from, type, timestamp, payload}. */

/** The spellings an admin may have entered for a node: decimal node number, "!abcdef2c", "abcdef2c". */
export function nodeIds(from: number): string[] {
  const hex = (from >>> 0).toString(16).padStart(8, '0');
  return [String(from >>> 0), `!${hex}`, hex];
}

export type MeshtasticParsed =
  | { kind: 'position'; dedupKey: string; fix: FixInput }
  | { kind: 'battery'; dedupKey: string; hardwareIds: string[]; percent: number | null; state: string }
  | { kind: 'ignored' };

export function parseMeshtastic(text: string): MeshtasticParsed {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { kind: 'ignored' };
  }
  if (!m || typeof m !== 'object') return { kind: 'ignored' };
  const from = num(m.from);
  const p = m.payload as Record<string, unknown> | undefined;
  if (from === undefined || !Number.isFinite(from) || !p || typeof p !== 'object') return { kind: 'ignored' };
  const ids = nodeIds(from);
  const dedupKey = `${ids[0]}:${String(m.id)}`;
  if (m.type === 'position') {
    const li = num(p.latitude_i);
    const lo = num(p.longitude_i);
    if (li === undefined || lo === undefined || (li === 0 && lo === 0)) return { kind: 'ignored' };
    const t = num(p.time) ?? num(p.timestamp) ?? num(m.timestamp);
    const kmh = num(p.ground_speed);
    return {
      kind: 'position',
      dedupKey,
      fix: {
        device: { source: 'meshtastic', hardwareIds: ids },
        source: 'meshtastic',
        fixTime: new Date(t === undefined ? NaN : t * 1000),
        lat: li * 1e-7,
        lon: lo * 1e-7,
        altitude: num(p.altitude) ?? null,
        speed: kmh === undefined ? null : kmh / 3.6,
        batteryPercent: null,
        batteryState: null,
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
  if (parsed.kind === 'ignored') return readBatch({ received: 1 });
  const device = { source: 'meshtastic' as const, hardwareIds: parsed.hardwareIds };
  return readBatch({
    batteryOnly: [
      { device, source: 'meshtastic', batteryPercent: parsed.percent, batteryState: parsed.state },
    ],
    received: 1,
  });
}
