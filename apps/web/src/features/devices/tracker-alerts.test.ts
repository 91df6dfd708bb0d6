import { describe, expect, it } from 'vitest';
import { setLanguage } from '../../i18n';
import { kindLabel, osmUrl } from './tracker-alerts';

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
