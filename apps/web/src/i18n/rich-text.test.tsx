import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RichText } from './rich-text';

describe('RichText', () => {
  it('wraps each <n>…</n> part of a translated text in its tag, wherever the translation puts it', () => {
    expect(renderToStaticMarkup(<RichText text="<0>In</0> at 10:02" tags={[<strong key="k" />]} />)).toBe(
      '<strong>In</strong> at 10:02',
    );
    expect(
      renderToStaticMarkup(
        <RichText
          text="La page : ajoutez <0>?view=runner&bib=</0> et le dossard."
          tags={[<code key="c" />]}
        />,
      ),
    ).toBe('La page : ajoutez <code>?view=runner&amp;bib=</code> et le dossard.');
  });

  it('leaves a text without tags as it is', () => {
    expect(renderToStaticMarkup(<RichText text="Nothing to wrap" tags={[]} />)).toBe('Nothing to wrap');
  });
});
