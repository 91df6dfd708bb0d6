import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { readdirSync } from 'node:fs';

/*
 * The web app's layers import one way only: shared code (src/components, src/lib, src/auth, src/i18n) ← features ← app.
 * A feature never imports another feature nor the app layer; a screen that combines features lives in
 * src/app/routes and hands one feature's data or calls to another through props. There is no import resolver here,
 * so the rules match import strings: a relative path climbing into a sibling feature (`../live`, `../../app/x`) or
 * any path through a features/ folder. Dynamic import() is checked too (a lazy chunk is still a dependency). The
 * feature list is read from disk, so a new feature folder is covered from its first file.
 */
const webFeatures = readdirSync(new URL('./apps/web/src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** A regex source matching import strings that reach one of `folders`, as a sibling up the tree or under features/. */
function reaching(folders, { viaFeatures = true } = {}) {
  const names = folders.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const climbing = `^(\\.\\./)+(${names})(/|$)`;
  return viaFeatures ? `${climbing}|(^|/)features/(${names})(/|$)` : climbing;
}

/** no-restricted-imports covers import/export-from; no-restricted-syntax the same strings in import(). */
function forbidImports(rules) {
  return {
    'no-restricted-imports': ['error', { patterns: rules.map(({ regex, message }) => ({ regex, message })) }],
    'no-restricted-syntax': [
      'error',
      // esquery's regex literal cannot contain a slash: spell it as an escape.
      ...rules.map(({ regex, message }) => ({
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\u002F')}/]`,
        message,
      })),
    ],
  };
}

const CROSS_FEATURE =
  'Features do not import one another: compose them in a screen under src/app/routes, or move what they share to src/components or src/lib.';
const FEATURE_TO_APP =
  'Features do not import the app layer (src/app): the app renders features, never the reverse.';
const SHARED_UPWARDS =
  'Shared code (src/components, src/lib, src/auth, src/i18n) does not import features or the app layer.';

const webBoundaries = [
  ...webFeatures.map((feature) => ({
    files: [`apps/web/src/features/${feature}/**/*.{ts,tsx}`],
    rules: forbidImports([
      { regex: reaching(webFeatures.filter((name) => name !== feature)), message: CROSS_FEATURE },
      { regex: reaching(['app'], { viaFeatures: false }), message: FEATURE_TO_APP },
    ]),
  })),
  {
    files: ['apps/web/src/{components,lib,auth,i18n}/**/*.{ts,tsx}'],
    rules: forbidImports([
      { regex: reaching(['features', 'app'], { viaFeatures: false }), message: SHARED_UPWARDS },
    ]),
  },
  {
    // The API is called only through the API client (token, errors logged, spinner); live SSE uses EventSource.
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/lib/api-client.ts', 'apps/web/src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message: 'Call the API through src/lib/api-client.ts ({ background: true } for live data).',
        },
      ],
      'no-restricted-properties': [
        'error',
        ...['window', 'globalThis', 'self'].map((object) => ({
          object,
          property: 'fetch',
          message: 'Call the API through src/lib/api-client.ts ({ background: true } for live data).',
        })),
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'artifacts/**', 'apps/server/drizzle/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  ...webBoundaries,
);
