import type { AlertInput, FixInput } from '../types';
import { cleanText, deviceIdProblem, isLatLon, MAX_BATTERY_STATE_LENGTH, num } from '../validate';

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
    if (!m || typeof m !== 'object') continue;
    const esn = String(m.messengerId ?? '').trim();
    const t = num(m.unixTime);
    const lat = num(m.latitude);
    const lon = num(m.longitude);
    if (!esn || t === undefined || lat === undefined || lon === undefined) continue;
    // An ESN no device can have (NUL byte, absurd length) or a time JavaScript cannot represent: skipped.
    if (deviceIdProblem(esn)) continue;
    const at = new Date(t * 1000);
    if (!Number.isFinite(at.getTime())) continue;
    const device = { source: 'spot' as const, hardwareIds: [esn] };
    const batteryState = cleanText(m.batteryState, MAX_BATTERY_STATE_LENGTH)?.toUpperCase() ?? null;
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
      const where = isLatLon(lat, lon);
      alerts.push({
        device,
        kind,
        at,
        message: cleanText(m.messageContent),
        lat: where ? lat : null,
        lon: where ? lon : null,
      });
    }
  }
  return { ok: true, fixes, alerts, count: messages.length };
}
