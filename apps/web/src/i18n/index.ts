import i18next from 'i18next';
import { useSyncExternalStore } from 'react';
import en, { type Catalogue } from './en';
import {
  browserLanguages,
  current,
  formatLocaleFor,
  LANGUAGE_STORAGE_KEY,
  pickLanguage,
  storedLanguage,
  subscribeUnits,
  writeStorage,
  type Language,
} from './settings';

export { LANGUAGES, LANGUAGE_NAMES, UNITS, setUnits, type Language, type Units } from './settings';
export type { Catalogue } from './en';

type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];
/** Every text's key ("board.title"). */
export type TextKey = Leaves<Catalogue>;

/**
 * The app's texts through i18next. English is bundled (the default, and the fallback of a missing key); the other
 * catalogues are lazy chunks loaded when their language is chosen, so the first screen carries only English.
 */
const loaders: Record<Exclude<Language, 'en'>, () => Promise<{ default: Catalogue }>> = {
  fr: () => import('./fr'),
  es: () => import('./es'),
  de: () => import('./de'),
  it: () => import('./it'),
};

// Synchronous with the English resources in hand: any module can translate from its first render (and in tests).
// React escapes what it renders, so i18next does not.
void i18next.init({
  resources: { en: { translation: en } },
  lng: 'en',
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  initAsync: false,
});

/**
 * The React side, kept to a subscription (react-i18next would add 7 KB to the first screen's budget): a component
 * calling `useI18n` renders again when the language changes.
 */
let languageVersion = 0;
const languageListeners = new Set<() => void>();
i18next.on('languageChanged', () => {
  languageVersion += 1;
  for (const fn of languageListeners) fn();
});
function subscribeLanguage(fn: () => void): () => void {
  languageListeners.add(fn);
  return () => languageListeners.delete(fn);
}

export const i18n = i18next;

/** Translates outside a component (helpers called while rendering); components use `useTranslation`. */
export const t = i18next.t.bind(i18next);

async function apply(language: Language): Promise<void> {
  if (language !== 'en' && !i18next.hasResourceBundle(language, 'translation')) {
    const catalogue = (await loaders[language]()).default;
    i18next.addResourceBundle(language, 'translation', catalogue);
  }
  current.language = language;
  current.locale = formatLocaleFor(language, browserLanguages());
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  await i18next.changeLanguage(language);
}

/** At start: the language chosen before, else the browser's, else English; its catalogue loaded before rendering. */
export async function startI18n(): Promise<void> {
  const language = pickLanguage(storedLanguage(), browserLanguages());
  try {
    await apply(language);
  } catch (err) {
    console.warn('Could not load the texts of', language, err);
    await apply('en');
  }
}

/** The footer's switch: this language from now on, kept in the browser. */
export async function setLanguage(language: Language): Promise<void> {
  writeStorage(LANGUAGE_STORAGE_KEY, language);
  await apply(language);
}

/** The current units; a component calling it renders again when they change. */
export function useUnits() {
  return useSyncExternalStore(subscribeUnits, () => current.units);
}

/**
 * A screen's texts and formats: `t`, re-rendered when the language or the units change (the formatters in
 * `format.ts` read both).
 */
export function useI18n() {
  useSyncExternalStore(subscribeLanguage, () => languageVersion);
  const units = useUnits();
  return { t, language: current.language, units };
}
