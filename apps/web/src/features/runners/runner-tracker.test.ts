import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../../i18n';
import { fixAgeText } from './runner-tracker';

describe("the tracker check's fix age", () => {
  afterEach(() => setLanguage('en'));

  it.each([
    [null, 'no fix received yet'],
    [5, 'last fix just now'],
    [12 * 60 + 30, 'last fix 12 min ago'],
    [3 * 3600 + 5 * 60, 'last fix 3 h 5 min ago'],
    [2 * 3600, 'last fix 2 h ago'],
    [3 * 86400, 'last fix 3 days ago'],
  ])('fixAgeText(%s) in English', (age, text) => expect(fixAgeText(age)).toBe(text));

  it('in the viewer’s language (the lazy tracker catalogue)', async () => {
    await setLanguage('fr');
    expect([fixAgeText(null), fixAgeText(12 * 60), fixAgeText(3 * 3600 + 5 * 60)]).toEqual([
      'aucune position reçue',
      'dernière position il y a 12 min',
      'dernière position il y a 3 h 5 min',
    ]);
    await setLanguage('de');
    expect(fixAgeText(3 * 86400)).toBe('letzte Position vor 3 Tagen');
  });
});
