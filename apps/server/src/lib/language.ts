import { LANGUAGES, type Language } from '@racebeacon/domain/languages';
import { z } from 'zod';

// The languages of the server's own texts (the web app's five: push notices, the text view) and their own names.
export { LANGUAGES, LANGUAGE_NAMES, type Language } from '@racebeacon/domain/languages';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** An Accept-Language header's tags, most wanted first ("fr-CH, de;q=0.8, *;q=0.1" → fr-CH, de); q=0 left out. */
export function acceptedTags(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/i.exec(p)).find(Boolean);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((t) => t.tag && t.tag !== '*' && t.q > 0 && Number.isFinite(t.q))
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((t) => t.tag);
}

/**
 * The language of a page and the locale its numbers and dates are written in: `?lang=` when it is one of ours,
 * else the first of the browser's languages (Accept-Language) we have ("de-CH" → de), else English. The locale is
 * the browser's own variant of that language when it sent one ("de-CH"), else the language.
 */
export function pickLanguage(
  asked: string | undefined,
  acceptLanguage: string | undefined,
): { language: Language; locale: string } {
  const tags = acceptedTags(acceptLanguage);
  const base = (tag: string) => tag.toLowerCase().split('-')[0];
  const language = isLanguage(asked?.toLowerCase())
    ? (asked.toLowerCase() as Language)
    : ((tags.map(base).find(isLanguage) ?? 'en') as Language);
  const variant = tags.find((tag) => base(tag) === language);
  let locale: string = language;
  if (variant) {
    try {
      locale = Intl.getCanonicalLocales(variant)[0] ?? language;
    } catch {
      locale = language; // not a well-formed tag
    }
  }
  return { language, locale };
}

/** The `lang` query parameter of a server-rendered page (the text view, the course map). */
export const langQueryField = z
  .string()
  .max(35)
  .optional()
  .describe(
    'Language of the page: en, fr, es, de or it; without it (or another value) the Accept-Language header, else English',
  );
