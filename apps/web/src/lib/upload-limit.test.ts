import { describe, expect, it } from 'vitest';
import { MAX_GPX_BYTES, MAX_RUNNER_CSV_BYTES } from '@racebeacon/domain/constants';
import { uploadTooLarge } from './upload-limit';

const MB = 1024 * 1024;

describe('upload limits checked in the page, before sending', () => {
  it('the limits are the server’s: GPX 20 MB, runner CSV 4 MB', () => {
    expect(MAX_GPX_BYTES).toBe(20 * MB);
    expect(MAX_RUNNER_CSV_BYTES).toBe(4 * MB);
  });

  it('a file at the limit fits; above it, the server’s message (rounded up, never “20.0 MB”)', () => {
    expect(uploadTooLarge({ size: 20 * MB }, MAX_GPX_BYTES)).toBeNull();
    expect(uploadTooLarge({ size: 20 * MB + 1 }, MAX_GPX_BYTES)).toEqual({
      status: 413,
      error: 'file_too_large',
      message: 'The upload is 20.1 MB; at most 20 MB is accepted.',
    });
    expect(uploadTooLarge({ size: 31.5 * MB }, MAX_GPX_BYTES)?.message).toBe(
      'The upload is 31.5 MB; at most 20 MB is accepted.',
    );
  });
});
