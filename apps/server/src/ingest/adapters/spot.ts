import type { AlertInput } from '../repository';
import type { FixInput } from '../types';
import { num } from '../validate';

/** SPOT shared-page feed (message.json). A lone message comes as an object; E-0195 means "no messages". */

interface SpotMessage {
  id?: unknown;
  messengerId?: unknown;
  messageType?: unknown;
  unixTime?: unknown;
  latitude?: unknown;
  longitude?: unknown;
  altitude?: unknown;
  batteryState?: unknown;
  messageContent?: unknown;
}

export type SpotParsed =
  { ok: true; fixes: FixInput[]; alerts: AlertInput[]; count: number } | { ok: false; error: string };

const ALERT_TYPES: Record<string, string> = { SOS: 'sos', HELP: 'help', 'HELP-CANCEL': 'help-cancel' };

export function parseSpotFeed(body: unknown): SpotParsed {
  const response = (body as { response?: Record<string, unknown> } | null)?.response;
  if (!response || typeof response !== 'object') return { ok: false, error: 'Not a SPOT feed response.' };
  const errors = response.errors as
    { error?: { code?: string; text?: string } | { code?: string }[] } | undefined;
  if (errors) {
    const list = Array.isArray(errors.error) ? errors.error : [errors.error];
    if (list.some((e) => e?.code === 'E-0195')) return { ok: true, fixes: [], alerts: [], count: 0 };
    const e = list[0] as { code?: string; text?: string } | undefined;
    return { ok: false, error: `SPOT error ${e?.code ?? '?'}: ${e?.text ?? 'unknown'}` };
  }
  const fmr = response.feedMessageResponse as { messages?: { message?: unknown } } | undefined;
  const raw = fmr?.messages?.message;
  const messages = (Array.isArray(raw) ? raw : raw ? [raw] : []) as SpotMessage[];
  const fixes: FixInput[] = [];
  const alerts: AlertInput[] = [];
  for (const m of messages) {
    const esn = String(m.messengerId ?? '').trim();
    const t = num(m.unixTime);
    const lat = num(m.latitude);
    const lon = num(m.longitude);
    if (!esn || t === undefined || lat === undefined || lon === undefined) continue;
    const device = { source: 'spot' as const, hardwareIds: [esn] };
    const at = new Date(t * 1000);
    const batteryState = typeof m.batteryState === 'string' ? m.batteryState.toUpperCase() : null;
    fixes.push({
      device,
      source: 'spot',
      fixTime: at,
      lat,
      lon,
      altitude: num(m.altitude) ?? null,
      speed: null,
      batteryPercent: null,
      batteryState,
    });
    const kind = ALERT_TYPES[String(m.messageType ?? '')];
    if (kind) {
      const text = typeof m.messageContent === 'string' ? m.messageContent : null;
      alerts.push({ device, kind, at, message: text, lat, lon });
    }
  }
  return { ok: true, fixes, alerts, count: messages.length };
}
