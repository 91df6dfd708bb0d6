import { describe, expect, it } from 'vitest';
import en from './en';
import fr from './fr';
import es from './es';
import de from './de';
import itCatalogue from './it';

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

  it('the check fails for a catalogue missing a key', () => {
    const { home: _dropped, ...nav } = fr.nav;
    const broken = flatten({ ...fr, nav });
    expect([...english.keys()].filter((key) => !broken.has(key))).toEqual(['nav.home']);
  });
});
