import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n';
import { useAuth } from './auth-provider';
import type { SignInFailure } from './errors';

/** The provider's reason as given: its description and its code, or whichever it sent. */
function reasonOf(failure: SignInFailure): string {
  const { error, description } = failure;
  if (description && error && description !== error) return `${description} (${error})`;
  return description || error || failure.kind;
}

/**
 * A failed sign-in, said on the page in the user's language: what went wrong (the provider's own reason when it
 * gave one), with "Try again" (a new sign-in from this page) and "Dismiss". Rendered by the layout above every
 * screen; nothing while the last sign-in did not fail.
 */
export function SignInProblem() {
  const auth = useAuth();
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  const failure = auth.signInFailure;
  useEffect(() => {
    if (failure) ref.current?.focus();
  }, [failure]);
  if (!failure) return null;
  const reason = reasonOf(failure);
  const text =
    failure.kind === 'provider'
      ? t('signIn.provider', { reason })
      : failure.kind === 'nonce'
        ? t('signIn.nonce')
        : failure.kind === 'state'
          ? t('signIn.state')
          : t('signIn.token', { reason });
  return (
    <div
      ref={ref}
      className="card sign-in-problem"
      role="alert"
      tabIndex={-1}
      data-testid="sign-in-problem"
      data-kind={failure.kind}
    >
      <h2>{t('signIn.failedTitle')}</h2>
      <p>{text}</p>
      <p className="actions">
        <button type="button" className="btn btn-primary" onClick={() => void auth.login()}>
          {t('signIn.tryAgain')}
        </button>{' '}
        <button type="button" className="btn btn-secondary" onClick={auth.dismissSignInFailure}>
          {t('signIn.dismiss')}
        </button>
      </p>
    </div>
  );
}
