import type { AlertInput, FixInput } from '../types';
import { cleanText, deviceIdProblem, isLatLon, MAX_BATTERY_STATE_LENGTH, num } from '../validate';
import { parseError, readBatch, type AdapterResult } from './contract';

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
    // An ESN no device can have (NUL byte, absurd length): skipped, as no device could be named.
    if (!esn || deviceIdProblem(esn)) continue;
    const t = num(m.unixTime);
    const lat = num(m.latitude);
    const lon = num(m.longitude);
    const at = new Date(t === undefined ? NaN : t * 1000);
    const timed = Number.isFinite(at.getTime());
    const device = { source: 'spot' as const, hardwareIds: [esn] };
    if (timed && lat !== undefined && lon !== undefined) {
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
    }
    const kind = ALERT_TYPES[String(m.messageType ?? '')];
    if (kind) {
      // Kept without a usable time (recorded at its receive time) or position: an SOS is never dropped for them.
      const where = isLatLon(lat, lon);
      alerts.push({
        device,
        kind,
        at,
        ...(timed ? {} : { sourceTime: m.unixTime }),
        message: cleanText(m.messageContent),
        lat: where ? lat : null,
        lon: where ? (lon ?? null) : null,
      });
    }
  }
  return { ok: true, fixes, alerts, count: messages.length };
}

/** The SPOT adapter: one page of a feed as a batch (`received`: the messages on the page), or the feed's error. */
export function readSpotPage(body: unknown): AdapterResult {
  const page = parseSpotFeed(body);
  if (!page.ok) return parseError('source_error', page.error);
  return readBatch({ fixes: page.fixes, alerts: page.alerts, received: page.count });
}
