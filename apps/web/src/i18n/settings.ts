/**
 * The viewer's display settings outside React: the app's language, the locale dates and numbers are written in, and
 * the distance units. The i18n module sets them; the formatters (`format.ts`) read them, so a helper called while
 * rendering writes in the current language without being handed it.
 */

import { LANGUAGES, type Language } from '@racebeacon/domain/languages';

// The product's languages and their own names (the footer's switch), shared with the server's texts.
export { LANGUAGES, LANGUAGE_NAMES, type Language } from '@racebeacon/domain/languages';

export type Units = 'km' | 'mi';
export const UNITS: readonly Units[] = ['km', 'mi'];

export const LANGUAGE_STORAGE_KEY = 'racebeacon.language';
export const UNITS_STORAGE_KEY = 'racebeacon.units';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language to start in: the one chosen before (kept in the browser), else the first of the browser's languages
 * the app has ("de-CH" → de), else English.
 */
export function pickLanguage(stored: string | null | undefined, browser: readonly string[]): Language {
  if (isLanguage(stored)) return stored;
  for (const tag of browser) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

/**
 * The locale numbers and dates are written in for `language`: the browser's own variant of it when it has one
 * ("en-GB", "fr-CA"), else the language itself.
 */
export function formatLocaleFor(language: Language, browser: readonly string[]): string {
  return browser.find((tag) => tag.toLowerCase().split('-')[0] === language) ?? language;
}

export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : [];
}

function readStorage(key: string): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(key);
  } catch {
    return null; // storage blocked (private mode, a sandboxed frame)
  }
}

export function writeStorage(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not kept: the choice holds for this visit
  }
}

export const current: { language: Language; locale: string; units: Units } = {
  language: 'en',
  locale: 'en',
  units: readStorage(UNITS_STORAGE_KEY) === 'mi' ? 'mi' : 'km',
};

export function storedLanguage(): string | null {
  return readStorage(LANGUAGE_STORAGE_KEY);
}

const unitListeners = new Set<() => void>();

export function setUnits(units: Units): void {
  if (current.units === units) return;
  current.units = units;
  writeStorage(UNITS_STORAGE_KEY, units);
  for (const fn of unitListeners) fn();
}

export function subscribeUnits(fn: () => void): () => void {
  unitListeners.add(fn);
  return () => unitListeners.delete(fn);
}
