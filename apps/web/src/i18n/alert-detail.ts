import type { Alert, AlertKind, AlertMessageKey } from '@racebeacon/domain/alerts';
import { formatAlertDuration, formatNumber, type FormatOptions } from './format';
import { i18n, type TextKey } from './index';

/** The catalogue key of each alert kind's name (Race HQ and the devices screen's alerts). */
export const ALERT_KIND_KEY = {
  sos: 'alertKind.sos',
  help: 'alertKind.help',
  'no-movement': 'alertKind.noMovement',
  'lost-signal': 'alertKind.lostSignal',
  'low-battery': 'alertKind.lowBattery',
  'off-course': 'alertKind.offCourse',
  'cutoff-risk': 'alertKind.cutoffRisk',
} as const satisfies Record<AlertKind, TextKey>;

/**
 * An alert's detail in the viewer's language, from its MessageKey and MessageParams (durations in ms, distances in
 * m, percent; a device's text verbatim); its English `Message` when the key is null (an alert stored before keys)
 * or one this build does not know. In English the same text as `Message` (the server's `alertMessageEnglish`).
 */
const MESSAGE_KEY = {
  'lost-signal': 'alertMessage.lostSignal',
  'off-course': 'alertMessage.offCourse',
  'no-movement': 'alertMessage.noMovement',
  'no-movement-aid': 'alertMessage.noMovementAid',
  'cutoff-passed': 'alertMessage.cutoffPassed',
  'cutoff-late': 'alertMessage.cutoffLate',
  'battery-percent': 'alertMessage.batteryPercent',
  'battery-low': 'alertMessage.batteryLow',
  sos: 'alertMessage.sos',
  'sos-text': 'alertMessage.sosText',
  help: 'alertMessage.help',
  'help-text': 'alertMessage.helpText',
  'sos-cancelled': 'alertMessage.sosCancelled',
} as const satisfies Record<AlertMessageKey, TextKey>;

export function alertDetail(
  a: Pick<Alert, 'Message' | 'MessageKey' | 'MessageParams'>,
  o?: FormatOptions,
): string {
  const key = a.MessageKey;
  if (key === null || !Object.hasOwn(MESSAGE_KEY, key)) return a.Message;
  const p = a.MessageParams ?? {};
  const num = (name: string) => {
    const v = p[name];
    return typeof v === 'number' ? v : Number(v);
  };
  const str = (name: string) => (p[name] === undefined ? '' : String(p[name]));
  const duration = (name: string) => formatAlertDuration(num(name), o);
  // The keys are checked against the catalogue above (MESSAGE_KEY); the values are plain strings.
  const t = (k: TextKey, values: Record<string, string> = {}) =>
    (i18n.t as (key: string, options: Record<string, string>) => string)(k, values);
  switch (key) {
    case 'lost-signal':
      return t(MESSAGE_KEY[key], { silent: duration('silentMs'), expected: duration('expectedMs') });
    case 'off-course':
      return t(MESSAGE_KEY[key], {
        fixes: formatNumber(num('fixes'), 0, o),
        duration: duration('durationMs'),
      });
    case 'no-movement':
    case 'no-movement-aid':
      return t(MESSAGE_KEY[key], {
        duration: duration('durationMs'),
        km: formatNumber(num('progressM') / 1000, 1, o),
      });
    case 'cutoff-passed':
    case 'cutoff-late':
      return t(MESSAGE_KEY[key], { checkpoint: str('checkpoint'), late: duration('lateMs') });
    case 'battery-percent':
      return t(MESSAGE_KEY[key], { percent: formatNumber(Math.round(num('percent')), 0, o) });
    case 'sos-text':
    case 'help-text':
      return t(MESSAGE_KEY[key], { text: str('text') });
    case 'sos-cancelled': {
      const text = str('text');
      const sos = text ? t(MESSAGE_KEY['sos-text'], { text }) : t(MESSAGE_KEY.sos);
      // The time as the device gave it (ISO 8601), as in the English Message.
      return t(MESSAGE_KEY[key], { sos, at: str('cancelledAt') });
    }
    default:
      return t(MESSAGE_KEY[key]);
  }
}
