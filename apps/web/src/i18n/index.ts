import i18next, { type TFunction } from 'i18next';
import { useSyncExternalStore } from 'react';
import en, { type Catalogue } from './en';
import type { AppResources, NamespaceCatalogue } from './resources';
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
export type { NamespaceCatalogue } from './resources';

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
i18next.on('languageChanged', () => rerender());
function subscribeLanguage(fn: () => void): () => void {
  languageListeners.add(fn);
  return () => languageListeners.delete(fn);
}

export const i18n = i18next;

/** Translates outside a component (helpers called while rendering); components use `useTranslation`. */
export const t = i18next.t.bind(i18next);

/**
 * Lazy screens' own texts (a namespace each: `legal`): bundled with the screen's chunk in English, their other
 * languages in chunks of their own, so neither the first screen nor the main catalogues carry them.
 */
export type LazyNamespace = Exclude<keyof AppResources, 'translation'>;
type NamespaceLoaders<N extends LazyNamespace> = Record<
  Exclude<Language, 'en'>,
  () => Promise<{ default: NamespaceCatalogue<N> }>
>;
const namespaceLoaders = new Map<LazyNamespace, NamespaceLoaders<LazyNamespace>>();

async function loadNamespace(ns: LazyNamespace, language: Language): Promise<void> {
  const loader = namespaceLoaders.get(ns);
  if (language === 'en' || !loader || i18next.hasResourceBundle(language, ns)) return;
  i18next.addResourceBundle(language, ns, (await loader[language]()).default);
}

function rerender(): void {
  languageVersion += 1;
  for (const fn of languageListeners) fn();
}

/**
 * A lazy screen's texts: registers its English catalogue and its loaders, starts loading the current language's,
 * and gives the namespace's `t` (it follows the language; `useI18n` re-renders on a change) and `ready`, which
 * settles once the current language's texts are in (a lazy route awaits it, so the screen shows in its language
 * at once; on a failure the screen shows in English).
 */
export function lazyTexts<N extends LazyNamespace>(
  ns: N,
  english: AppResources[N],
  loaders: NamespaceLoaders<N>,
): { t: TFunction<N>; ready: Promise<void> } {
  if (!i18next.hasResourceBundle('en', ns)) i18next.addResourceBundle('en', ns, english);
  namespaceLoaders.set(ns, loaders as unknown as NamespaceLoaders<LazyNamespace>);
  const language = current.language;
  const ready = loadNamespace(ns, language).then(
    () => {
      if (language !== 'en') rerender();
    },
    (err: unknown) => console.warn('Could not load the texts of', ns, language, err),
  );
  return { t: i18next.getFixedT(null, ns), ready };
}

async function apply(language: Language): Promise<void> {
  if (language !== 'en' && !i18next.hasResourceBundle(language, 'translation')) {
    const catalogue = (await loaders[language]()).default;
    i18next.addResourceBundle(language, 'translation', catalogue);
  }
  // The lazy screens already loaded switch with the rest (their other languages load only when needed).
  await Promise.all([...namespaceLoaders.keys()].map((ns) => loadNamespace(ns, language)));
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

/**
 * A server-rendered page's address (the text view, the course map) in the app's current language: `?lang=` added
 * (a relative address stays relative).
 */
export function inLanguage(url: string): string {
  const base = 'http://relative.invalid';
  const u = new URL(url, base);
  u.searchParams.set('lang', current.language);
  return u.origin === base && !url.startsWith(base) ? `${u.pathname}${u.search}${u.hash}` : u.href;
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
