import { readFileSync } from 'node:fs';

/** GPX fixtures shared with the domain package's unit tests. */
export const gpxFixture = (name: string): string =>
  readFileSync(new URL(`../../../../packages/domain/test/fixtures/${name}`, import.meta.url), 'utf8');
