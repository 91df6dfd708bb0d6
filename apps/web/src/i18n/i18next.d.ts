import 'i18next';
import type { AppResources } from './resources';

// Keys are checked at compile time: t('board.titel') is a type error, and so is a lazy namespace's missing key.
declare module 'i18next' {
  interface CustomTypeOptions {
    resources: AppResources;
  }
}
