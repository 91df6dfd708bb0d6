import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The repository's eslint.config.js keeps the web app's layers apart (see the comment there). Linting snippets
 * placed at real paths shows the rules fire on a forbidden import and stay quiet on the allowed ones; the files
 * need not exist.
 */
const repoRoot = decodeURIComponent(new URL('../../../', import.meta.url).pathname);
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repoRoot, overrideConfigFile: `${repoRoot}eslint.config.js` });
});

async function errors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `apps/web/src/${filePath}` });
  return result!.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('web feature boundaries (eslint.config.js)', () => {
  it('a feature importing another feature is an error', async () => {
    const found = await errors(
      'features/races/race-extra.tsx',
      "import { adminDevicesApi } from '../devices/api';\nexport const list = adminDevicesApi.list;\n",
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: .*Features do not import one another/);
  }, 30_000);

  it('the same through features/, as a type import, as a re-export and as a lazy import()', async () => {
    const snippets = [
      "import { runnersApi } from '../../features/runners/api';\nexport const r = runnersApi;\n",
      "import type { RacePhase } from '../live/live-clock';\nexport type P = RacePhase;\n",
      "export { courseApi } from '../course/api';\n",
      "export const LivePanel = () => import('../live');\n",
    ];
    for (const code of snippets) {
      const found = await errors('features/races/race-extra.tsx', code);
      expect(found, code).toHaveLength(1);
      expect(found[0], code).toMatch(/Features do not import one another/);
    }
  });

  it('a feature importing the app layer, and shared code importing a feature, are errors', async () => {
    expect(
      await errors(
        'features/home/extra.tsx',
        "import { Layout } from '../../app/layout';\nexport const L = Layout;\n",
      ),
    ).toEqual([expect.stringMatching(/Features do not import the app layer/)]);
    expect(
      await errors(
        'lib/extra.ts',
        "import { openRacesApi } from '../features/races/api';\nexport const a = openRacesApi;\n",
      ),
    ).toEqual([expect.stringMatching(/Shared code .* does not import features/)]);
  });

  it('a raw fetch outside the API client is an error', async () => {
    expect(
      await errors('features/live/extra.ts', "export const get = () => fetch('/api/open/races');\n"),
    ).toEqual([expect.stringMatching(/^no-restricted-globals: .*api-client/)]);
  });

  it('allowed: own feature, shared code, the domain package; and the app layer composing features', async () => {
    expect(
      await errors(
        'features/races/race-extra.tsx',
        [
          "import type { Race } from '@racebeacon/domain/entities';",
          "import { PageSpinner } from '../../components/page-state';",
          "import { api } from '../../lib/api-client';",
          "import { paths } from '../../lib/paths';",
          "import { openRacesApi } from './api';",
          'export const all = [PageSpinner, api, paths, openRacesApi] as const;',
          'export type R = Race;',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
    expect(
      await errors(
        'app/routes/extra.tsx',
        [
          "import { openRacesApi } from '../../features/races/api';",
          "import { directorDevicesApi } from '../../features/devices/api';",
          'export const all = [openRacesApi, directorDevicesApi] as const;',
          "export const LivePanel = () => import('../../features/live');",
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
