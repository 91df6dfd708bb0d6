import { describe, expect, it } from 'vitest';
import { setLanguage } from '../../i18n';
import type { Alert } from '@racebeacon/domain/alerts';
import { foldAlertEvent, kindLabel, osmUrl } from './tracker-alerts';

describe('tracker alerts', () => {
  it('links the position on OpenStreetMap, none without one', () => {
    expect(osmUrl({ Latitude: 47.123456, Longitude: 8.5 })).toBe(
      'https://www.openstreetmap.org/?mlat=47.12346&mlon=8.50000#map=15/47.12346/8.50000',
    );
    expect(osmUrl({ Latitude: null, Longitude: 8.5 })).toBeNull();
  });

  it("names the kinds for people, in the viewer's language", async () => {
    expect([kindLabel('sos'), kindLabel('help'), kindLabel('no-movement'), kindLabel('cutoff-risk')]).toEqual(
      ['SOS', 'Help request', 'No movement', 'Cut-off risk'],
    );
    await setLanguage('fr');
    try {
      expect([kindLabel('help'), kindLabel('lost-signal'), kindLabel('low-battery')]).toEqual([
        "Demande d'aide",
        'Signal perdu',
        'Batterie faible',
      ]);
    } finally {
      await setLanguage('en');
    }
  });
});

const alert = (id: number, over: Partial<Alert> = {}) =>
  ({ AlertId: id, RaceId: null, RunnerId: null, Kind: 'sos', State: 'open', ...over }) as Alert;

describe('foldAlertEvent (the admins’ live alert stream)', () => {
  it('`alerts` replaces the list; `alert` adds, updates, and drops a resolved one', () => {
    let m = foldAlertEvent(new Map([[9, alert(9)]]), 'alerts', [alert(1), alert(2, { RaceId: 4 })]);
    expect([...m.keys()]).toEqual([1, 2]);
    m = foldAlertEvent(m, 'alert', alert(3));
    m = foldAlertEvent(m, 'alert', alert(1, { State: 'acknowledged' }));
    expect(m.get(1)?.State).toBe('acknowledged');
    m = foldAlertEvent(m, 'alert', alert(2, { State: 'resolved' }));
    expect([...m.keys()].sort()).toEqual([1, 3]);
    // Anything else is ignored.
    expect(foldAlertEvent(m, 'alert', null)).toEqual(m);
    expect(foldAlertEvent(m, 'ping', alert(5))).toEqual(m);
  });
});
