import { lazyTexts } from '..';
import english from './en';

/**
 * The runner tracker dialog's texts (namespace `tracker`), imported by the dialog only (the race page's chunk):
 * English comes with it, each other language is a chunk of its own loaded when that language is on.
 */
export const trackerTexts = lazyTexts('tracker', english, {
  fr: () => import('./fr'),
  es: () => import('./es'),
  de: () => import('./de'),
  it: () => import('./it'),
});
