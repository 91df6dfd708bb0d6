import { t } from '../i18n';
import { formatNumber } from '../i18n/format';
import type { ApiFailure } from './api-client';

const MB = 1024 * 1024;

/**
 * Checks a file against its upload limit (the domain's constant the server uses too) before it is sent. A file
 * over the limit is refused here with the server's own message (in the user's language): sent, it would be
 * answered 413 from its Content-Length and the connection closed while the browser is still sending, and the
 * browser reports that as a network error. Returns the failure to throw, or null when the file fits.
 */
export function uploadTooLarge(file: { size: number }, maxBytes: number): ApiFailure | null {
  if (file.size <= maxBytes) return null;
  // Rounded up, so a file just over the limit never reads as the limit itself ("20.1 MB", not "20.0 MB").
  const size = formatNumber(Math.ceil((file.size / MB) * 10) / 10, 1);
  const max = formatNumber(Math.floor(maxBytes / MB), 0);
  return { status: 413, error: 'file_too_large', message: t('errors.fileTooLarge', { size, max }) };
}

/** Throws (as the API client does for a refused call) when the file is over its limit. */
export function assertUploadFits(file: { size: number }, maxBytes: number): void {
  const failure = uploadTooLarge(file, maxBytes);
  if (failure) throw failure;
}
