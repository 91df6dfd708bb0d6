import { describe, expect, it } from 'vitest';
import {
  formatDistance,
  formatDistanceNumber,
  formatDuration,
  formatHeight,
  formatLength,
  formatLongDate,
  formatMinutes,
  formatPace,
  formatPercent,
} from './format';
import { formatLocaleFor, pickLanguage } from './settings';
import { inLanguage, setLanguage } from '.';

describe('dates and minutes per locale', () => {
  it('writes a calendar date out, the day as given', () => {
    expect(formatLongDate('2025-10-01', { locale: 'en-US' })).toBe('October 1, 2025');
    expect(formatLongDate('2025-10-01', { locale: 'fr' })).toBe('1 octobre 2025');
    expect(formatLongDate('2025-10-01', { locale: 'de' })).toBe('1. Oktober 2025');
  });
  it('writes minutes with their unit', () => {
    expect(formatMinutes(10, { locale: 'en' })).toBe('10 min');
    expect(formatMinutes(10, { locale: 'de' })).toBe('10 Min.');
  });
});

describe('distances per locale and unit', () => {
  it('writes km in the locale', () => {
    expect(formatDistance(12.5, 2, { locale: 'en-US', units: 'km' })).toBe('12.50 km');
    expect(formatDistance(12.5, 1, { locale: 'de-DE', units: 'km' })).toBe('12,5 km');
    expect(formatDistance(12.5, 1, { locale: 'fr-FR', units: 'km' })).toBe('12,5 km');
    expect(formatDistance(null, 2, { locale: 'de', units: 'km' })).toBe('–');
  });

  it('converts to miles', () => {
    expect(formatDistance(42.195, 2, { locale: 'en-US', units: 'mi' })).toBe('26.22 mi');
    expect(formatDistance(1.609344, 1, { locale: 'de', units: 'mi' })).toBe('1,0 mi');
    expect(formatDistanceNumber(10, 1, { locale: 'en', units: 'mi' })).toBe('6.2');
    expect(formatLength(42195, { locale: 'en', units: 'mi' })).toBe('26.2 mi');
    expect(formatLength(4990, { locale: 'en', units: 'km' })).toBe('4.99 km');
    expect(formatLength(42195, { locale: 'en', units: 'km' })).toBe('42.2 km');
    expect(formatHeight(1000, { locale: 'en', units: 'mi' })).toBe('3,281 ft');
    expect(formatHeight(1234, { locale: 'de', units: 'km' })).toBe('1.234 m');
  });

  it('writes paces per km or per mile', () => {
    expect(formatPace(330, { locale: 'en', units: 'km' })).toBe('5:30 /km');
    // 5:30 /km is 8:51 /mi (330 s × 1.609344 = 531 s)
    expect(formatPace(330, { locale: 'en', units: 'mi' })).toBe('8:51 /mi');
    expect(formatPace(null, { units: 'mi' })).toBe('–');
    expect(formatDuration(3723)).toBe('1:02:03');
  });

  it('writes percentages in the locale', () => {
    expect(formatPercent(12.5, { locale: 'en-US' })).toBe('12.5%');
    expect(formatPercent(12.5, { locale: 'de-DE' })).toBe('12,5\u00a0%'); // a no-break space before the sign;
  });
});

describe('language choice', () => {
  it('keeps a stored choice, else takes the browser language, else English', () => {
    expect(pickLanguage('it', ['de-DE'])).toBe('it');
    expect(pickLanguage(null, ['de-DE', 'en'])).toBe('de');
    expect(pickLanguage(null, ['nl-NL', 'fr'])).toBe('fr');
    expect(pickLanguage(null, ['nl-NL', 'ja'])).toBe('en');
    expect(pickLanguage('xx', [])).toBe('en');
  });

  it("formats in the browser's variant of the language", () => {
    expect(formatLocaleFor('en', ['en-GB', 'de'])).toBe('en-GB');
    expect(formatLocaleFor('de', ['en-GB', 'de-AT'])).toBe('de-AT');
    expect(formatLocaleFor('fr', ['en-GB'])).toBe('fr');
  });
});

describe('server pages in the app language', () => {
  it('adds ?lang= to an absolute or a relative address, keeping its query', async () => {
    expect(inLanguage('/race/7/text')).toBe('/race/7/text?lang=en');
    await setLanguage('fr');
    try {
      expect(inLanguage('/race/7/text')).toBe('/race/7/text?lang=fr');
      expect(inLanguage('https://track.example.org/courses/7/map?key=abc')).toBe(
        'https://track.example.org/courses/7/map?key=abc&lang=fr',
      );
    } finally {
      await setLanguage('en');
    }
  });
});
