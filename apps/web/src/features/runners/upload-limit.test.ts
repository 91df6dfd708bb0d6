import { afterEach, expect, it, vi } from 'vitest';
import { MAX_RUNNER_CSV_BYTES } from '@racebeacon/domain/constants';
import { runnersApi } from './api';

afterEach(() => vi.unstubAllGlobals());

it('a runner CSV over 4 MB is refused in the page with the server’s message, and nothing is sent', async () => {
  const fetchMock = vi.fn(async () => Response.json({}));
  vi.stubGlobal('fetch', fetchMock);
  const file = new File([new Uint8Array(MAX_RUNNER_CSV_BYTES + 100 * 1024)], 'runners.csv');
  await expect(runnersApi.importCsv(1, file, { dryRun: true, skipInvalid: true })).rejects.toEqual({
    status: 413,
    error: 'file_too_large',
    message: 'The upload is 4.1 MB; at most 4 MB is accepted.',
  });
  expect(fetchMock).not.toHaveBeenCalled();
});
