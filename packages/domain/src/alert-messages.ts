/**
 * An alert's detail in a structured form beside its English sentence: a key from a small closed set and its
 * parameters (durations in ms, distances in m, counts, percent; a device's text verbatim). `alertMessageEnglish` is
 * the one place the English sentence is made, so the stored `Message` and the key and parameters a screen
 * translates cannot disagree. No zod here: the browser imports it through `@racebeacon/domain/alert-rules`.
 */

/** Every alert message key, with its parameters. */
export interface AlertMessageParamsByKey {
  /** No fix for `silentMs` (the device is expected to report every `expectedMs`). */
  'lost-signal': { silentMs: number; expectedMs: number };
  /** The last `fixes` fixes were off course, over `durationMs`. */
  'off-course': { fixes: number; durationMs: number };
  /** No course progress for `durationMs` at `progressM` metres along the course. */
  'no-movement': { durationMs: number; progressM: number };
  /** The same, inside an aid station's zone. */
  'no-movement-aid': { durationMs: number; progressM: number };
  /** The cutoff at `checkpoint` passed `lateMs` ago and the runner is not there yet. */
  'cutoff-passed': { checkpoint: string; lateMs: number };
  /** The runner is expected at `checkpoint` `lateMs` after its cutoff. */
  'cutoff-late': { checkpoint: string; lateMs: number };
  /** The device reported `percent` (whole) percent. */
  'battery-percent': { percent: number };
  /** The device reported LOW without a percentage. */
  'battery-low': Record<string, never>;
  /** An SOS from the device, without text. */
  sos: Record<string, never>;
  /** An SOS from the device, with its `text` verbatim. */
  'sos-text': { text: string };
  /** A help request from the device, without text. */
  help: Record<string, never>;
  /** A help request from the device, with its `text` verbatim. */
  'help-text': { text: string };
  /** An SOS (with its `text`, if any) cancelled on the device at `cancelledAt` (ISO 8601). */
  'sos-cancelled': { cancelledAt: string; text?: string };
}

export type AlertMessageKey = keyof AlertMessageParamsByKey;
/** The parameters of any key, as stored and sent: numbers and strings by name. */
export type AlertMessageParams = Record<string, number | string>;

export const ALERT_MESSAGE_KEYS = [
  'lost-signal',
  'off-course',
  'no-movement',
  'no-movement-aid',
  'cutoff-passed',
  'cutoff-late',
  'battery-percent',
  'battery-low',
  'sos',
  'sos-text',
  'help',
  'help-text',
  'sos-cancelled',
] as const satisfies readonly AlertMessageKey[];

export function isAlertMessageKey(key: unknown): key is AlertMessageKey {
  return typeof key === 'string' && (ALERT_MESSAGE_KEYS as readonly string[]).includes(key);
}

/** An alert's detail: the English sentence and the key and parameters it was made from. */
export interface AlertMessage<K extends AlertMessageKey = AlertMessageKey> {
  message: string;
  messageKey: K;
  messageParams: AlertMessageParamsByKey[K];
}

/** A duration for people: "45 s", "2.5 min", "34 min", "2 h 5 min". */
export function formatAlertDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${Math.round(s)} s`;
  const minutes = s / 60;
  if (minutes < 10) {
    const r = Math.round(minutes * 10) / 10;
    return `${Number.isInteger(r) ? r.toFixed(0) : r.toFixed(1)} min`;
  }
  if (minutes < 120) return `${Math.floor(minutes)} min`;
  const h = Math.floor(minutes / 60);
  return `${h} h ${Math.floor(minutes - h * 60)} min`;
}

const km = (m: number) => `km ${(m / 1000).toFixed(1)}`;
const num = (v: number | string | undefined) => (typeof v === 'number' ? v : Number(v));
const str = (v: number | string | undefined) => (v === undefined ? '' : String(v));

const SOS = 'SOS sent from the device';
const HELP = 'Help requested from the device';

/** The English sentence of a key and its parameters (what the API's `Message` says). */
export function alertMessageEnglish<K extends AlertMessageKey>(
  key: K,
  params: AlertMessageParamsByKey[K],
): string;
export function alertMessageEnglish(key: AlertMessageKey, params: AlertMessageParams): string;
export function alertMessageEnglish(key: AlertMessageKey, params: AlertMessageParams): string {
  const p = params as Record<string, number | string | undefined>;
  switch (key) {
    case 'lost-signal':
      return `No fix for ${formatAlertDuration(num(p.silentMs))} (expected every ${formatAlertDuration(num(p.expectedMs))})`;
    case 'off-course':
      return `Off course for the last ${num(p.fixes)} fixes (${formatAlertDuration(num(p.durationMs))})`;
    case 'no-movement':
      return `No movement for ${formatAlertDuration(num(p.durationMs))} at ${km(num(p.progressM))}`;
    case 'no-movement-aid':
      return `No movement for ${formatAlertDuration(num(p.durationMs))} at ${km(num(p.progressM))} (at an aid station)`;
    case 'cutoff-passed':
      return `Cutoff at ${str(p.checkpoint)} passed ${formatAlertDuration(num(p.lateMs))} ago, not there yet`;
    case 'cutoff-late':
      return `Expected at ${str(p.checkpoint)} ${formatAlertDuration(num(p.lateMs))} after its cutoff`;
    case 'battery-percent':
      return `Battery ${Math.round(num(p.percent))} %`;
    case 'battery-low':
      return 'Battery reported LOW';
    case 'sos':
      return SOS;
    case 'sos-text':
      return `${SOS}: ${str(p.text)}`;
    case 'help':
      return HELP;
    case 'help-text':
      return `${HELP}: ${str(p.text)}`;
    case 'sos-cancelled':
      return `${p.text ? `${SOS}: ${str(p.text)}` : SOS} — cancelled on the device at ${str(p.cancelledAt)}; confirm with the runner before resolving.`;
  }
}

/** A key and its parameters with their English sentence. */
export function alertMessage<K extends AlertMessageKey>(
  key: K,
  params: AlertMessageParamsByKey[K],
): AlertMessage<K> {
  return { message: alertMessageEnglish(key, params), messageKey: key, messageParams: params };
}
