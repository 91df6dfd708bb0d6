import type en from './en';
import type legal from './legal/en';
import type tracker from './tracker/en';

/** Widens a catalogue's texts to `string`: the shape every language's catalogue of that namespace has. */
export type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };

/**
 * The app's catalogues by i18next namespace (types only): `translation`, the main one (`en.ts`, bundled), and the
 * lazy screens' own (`legal/`: the privacy policy and the terms; `tracker/`: the director's runner tracker
 * dialog), loaded with their screen.
 */
export interface AppResources {
  translation: typeof en;
  legal: typeof legal;
  tracker: typeof tracker;
}

/** A lazy namespace's catalogue in any language: its English keys, each with a string. */
export type NamespaceCatalogue<N extends Exclude<keyof AppResources, 'translation'>> = Widen<AppResources[N]>;
