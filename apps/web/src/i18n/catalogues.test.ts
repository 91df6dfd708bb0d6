import { describe, expect, it } from 'vitest';
import en from './en';
import fr from './fr';
import es from './es';
import de from './de';
import itCatalogue from './it';
import legalEn from './legal/en';
import legalFr from './legal/fr';
import legalEs from './legal/es';
import legalDe from './legal/de';
import legalIt from './legal/it';
import trackerEn from './tracker/en';
import trackerFr from './tracker/fr';
import trackerEs from './tracker/es';
import trackerDe from './tracker/de';
import trackerIt from './tracker/it';

/** Every key of a catalogue, dotted ("board.title"), with its text. */
function flatten(tree: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else if (value && typeof value === 'object')
      for (const [k, v] of flatten(value as object, path)) out.set(k, v);
  }
  return out;
}

/** A plural's forms ("days_one", "days_other") as their one key ("days"): each language has its own forms. */
const pluralBase = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, '');
const keysOf = (texts: Map<string, string>) => new Set([...texts.keys()].map(pluralBase));

/** The {{placeholders}} and <0>…</0> tags (RichText) of a text. */
const placeholders = (text: string) =>
  [...text.matchAll(/\{\{\s*(\w+)\s*\}\}|<\/?(\d+)>/g)].map((m) => m[1] ?? `<${m[0]}>`).sort();

const english = flatten(en);
const others = { fr, es, de, it: itCatalogue };

describe('catalogues', () => {
  it('English has texts', () => {
    expect(english.size).toBeGreaterThan(100);
    expect(english.get('home.point1')).toBe('live tracking updates every 2.5 minutes');
  });

  describe.each(Object.entries(others))('%s', (_language, catalogue) => {
    const texts = flatten(catalogue);

    it('has every key English has', () => {
      const missing = [...english.keys()].filter((key) => !texts.has(key));
      expect(missing).toEqual([]);
    });

    it('has no key English does not have', () => {
      const extra = [...texts.keys()].filter((key) => !english.has(key));
      expect(extra).toEqual([]);
    });

    it('uses the same placeholders and tags as English in each text, and no empty text', () => {
      const wrong = [...english].filter(([key, text]) => {
        const translated = texts.get(key);
        return (
          translated !== undefined &&
          (translated.trim() === '' || placeholders(translated).join() !== placeholders(text).join())
        );
      });
      expect(wrong.map(([key]) => key)).toEqual([]);
    });
  });

  // The lazy screens' own catalogues (i18next namespaces), held to the same rules.
  describe.each([
    ['legal', legalEn, { fr: legalFr, es: legalEs, de: legalDe, it: legalIt }],
    ['tracker', trackerEn, { fr: trackerFr, es: trackerEs, de: trackerDe, it: trackerIt }],
  ] as const)('namespace %s', (_ns, englishCatalogue, translations) => {
    const englishTexts = flatten(englishCatalogue);
    const englishKeys = keysOf(englishTexts);
    it.each(Object.entries(translations))(
      '%s has exactly the English keys, same placeholders, none empty',
      (_l, c) => {
        const texts = flatten(c);
        const keys = keysOf(texts);
        expect([...englishKeys].filter((k) => !keys.has(k))).toEqual([]);
        expect([...keys].filter((k) => !englishKeys.has(k))).toEqual([]);
        const wrong = [...texts].filter(([key, text]) => {
          const english = englishTexts.get(key) ?? englishTexts.get(`${pluralBase(key)}_other`) ?? '';
          return text.trim() === '' || placeholders(text).join() !== placeholders(english).join();
        });
        expect(wrong.map(([key]) => key)).toEqual([]);
      },
    );
  });

  it('the check fails for a catalogue missing a key', () => {
    const { home: _dropped, ...nav } = fr.nav;
    const broken = flatten({ ...fr, nav });
    expect([...english.keys()].filter((key) => !broken.has(key))).toEqual(['nav.home']);
  });
});
