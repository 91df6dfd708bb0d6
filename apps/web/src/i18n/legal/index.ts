import { lazyTexts } from '..';
import english from './en';

/**
 * The legal pages' texts (namespace `legal`), imported by those pages only: English comes with their chunk, each
 * other language is a chunk of its own loaded when that language is on.
 */
export const legalTexts = lazyTexts('legal', english, {
  fr: () => import('./fr'),
  es: () => import('./es'),
  de: () => import('./de'),
  it: () => import('./it'),
});
