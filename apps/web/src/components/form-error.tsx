import type { ApiFailure } from '../lib/api-client';
import { t } from '../i18n';

/**
 * The server's reason for a failed action, next to the form or control that caused it. The API client has already
 * logged 'API Fetch Error:' for developers; without this line a director would not know why nothing changed
 * (a duplicate bib, an invalid GPX file, a race that has already started…).
 */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert" data-testid="form-error">
      {message}
    </p>
  );
}

/** The human text of a rejected API call: the body's message, else a generic line. */
export function failureMessage(err: unknown): string {
  const failure = err as Partial<ApiFailure> | null;
  if (failure && typeof failure === 'object') {
    if (failure.status === 0) return t('errors.unreachable');
    if (typeof failure.message === 'string' && failure.message.trim()) return failure.message;
  }
  return t('errors.generic');
}
