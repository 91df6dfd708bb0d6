import { describe, expect, it } from 'vitest';
import { ALERT_MESSAGE_KEYS, alertMessage, type AlertMessage } from '@racebeacon/domain/alert-rules';
import type { Alert } from '@racebeacon/domain/alerts';
import { setLanguage } from './index';
import { alertDetail } from './alert-detail';

const MIN = 60_000;
const asAlert = (m: AlertMessage): Pick<Alert, 'Message' | 'MessageKey' | 'MessageParams'> => ({
  Message: m.message,
  MessageKey: m.messageKey,
  MessageParams: m.messageParams as Record<string, number | string>,
});

// One message of each key, as the server makes them (English Message and key + params from one place).
const samples: AlertMessage[] = [
  alertMessage('lost-signal', { silentMs: 34 * MIN + 40_000, expectedMs: 150_000 }),
  alertMessage('off-course', { fixes: 4, durationMs: 3 * MIN }),
  alertMessage('no-movement', { durationMs: 40 * MIN, progressM: 5000 }),
  alertMessage('no-movement-aid', { durationMs: 70 * MIN, progressM: 12_345 }),
  alertMessage('cutoff-passed', { checkpoint: 'Col du Bonhomme', lateMs: 125 * MIN }),
  alertMessage('cutoff-late', { checkpoint: 'CP2', lateMs: 45_000 }),
  alertMessage('battery-percent', { percent: 16 }),
  alertMessage('battery-low', {}),
  alertMessage('sos', {}),
  alertMessage('sos-text', { text: 'Fell, ankle <broken> & cold' }),
  alertMessage('help', {}),
  alertMessage('help-text', { text: 'need HELP' }),
  alertMessage('sos-cancelled', { cancelledAt: '2026-06-06T12:00:00.000Z', text: 'fall' }),
];

describe('alert detail', () => {
  it('in English is the server’s Message, for every key', () => {
    expect(samples.map((m) => m.messageKey).sort()).toEqual([...ALERT_MESSAGE_KEYS].sort());
    for (const m of samples) expect(alertDetail(asAlert(m))).toBe(m.message);
  });

  it('falls back to Message when the key is null or unknown', () => {
    expect(alertDetail({ Message: 'Old text', MessageKey: null, MessageParams: null })).toBe('Old text');
    expect(
      alertDetail({
        Message: 'From a newer server',
        MessageKey: 'volcano' as Alert['MessageKey'],
        MessageParams: { x: 1 },
      }),
    ).toBe('From a newer server');
  });

  it('in French: the words, the numbers (decimal comma) and the device’s text verbatim', async () => {
    await setLanguage('fr');
    try {
      expect(samples.map((m) => alertDetail(asAlert(m)))).toEqual([
        'Aucune position depuis 34 min (attendue toutes les 2,5 min)',
        'Hors parcours pour les 4 dernières positions (3 min)',
        'Aucun mouvement depuis 40 min au km 5,0',
        'Aucun mouvement depuis 70 min au km 12,3 (à un ravitaillement)',
        'Barrière horaire de Col du Bonhomme passée depuis 2 h 5 min, pas encore arrivé',
        'Attendu à CP2 45 s après sa barrière horaire',
        'Batterie 16 %',
        'Batterie signalée FAIBLE',
        'SOS envoyé depuis la balise',
        'SOS envoyé depuis la balise : Fell, ankle <broken> & cold',
        "Demande d'aide envoyée depuis la balise",
        "Demande d'aide envoyée depuis la balise : need HELP",
        'SOS envoyé depuis la balise : fall — annulé sur la balise à 2026-06-06T12:00:00.000Z ; confirmez avec le coureur avant de clore.',
      ]);
      // Without a key: the English Message, as stored.
      expect(alertDetail({ Message: 'Battery 16 %', MessageKey: null, MessageParams: null })).toBe(
        'Battery 16 %',
      );
    } finally {
      await setLanguage('en');
    }
  });
});
