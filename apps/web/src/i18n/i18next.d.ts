import 'i18next';
import type en from './en';

// Keys are checked at compile time: t('board.titel') is a type error.
declare module 'i18next' {
  interface CustomTypeOptions {
    resources: { translation: typeof en };
  }
}
