/**
 * The languages the product speaks (English the default): the web app's catalogues, the server's texts (push
 * notices, the text view), a push subscription's Locale. A module of its own (`@racebeacon/domain/languages`, no
 * zod): the web's first screen imports it and nothing else of the domain's constants.
 */
export const LANGUAGES = ['en', 'fr', 'es', 'de', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language by its own name, as a language switch or link offers it. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  fr: 'Français',
  es: 'Español',
  de: 'Deutsch',
  it: 'Italiano',
};
