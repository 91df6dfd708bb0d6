import { afterEach, expect, it, vi } from 'vitest';
import { MAX_GPX_BYTES } from '@racebeacon/domain/constants';
import { courseApi } from './api';

afterEach(() => vi.unstubAllGlobals());

it('a GPX file over 20 MB is refused in the page with the server’s message, and nothing is sent', async () => {
  const fetchMock = vi.fn(async () => Response.json({}));
  vi.stubGlobal('fetch', fetchMock);
  await expect(courseApi.upload(1, new File([new Uint8Array(MAX_GPX_BYTES + 1)], 'big.gpx'))).rejects.toEqual(
    {
      status: 413,
      error: 'file_too_large',
      message: 'The upload is 20.1 MB; at most 20 MB is accepted.',
    },
  );
  expect(fetchMock).not.toHaveBeenCalled();
});
