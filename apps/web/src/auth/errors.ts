/**
 * The sign-in error catalogue: one code per way sign-in or token renewal can fail. Messages are developer-facing:
 * they go to the console and to event listeners, never to a crash.
 */
export type AuthErrorCode =
  | 'unexpected_error'
  | 'interaction_required'
  | 'refresh_token_expired'
  | 'bad_token'
  | 'no_account'
  | 'login_failed';

export const AUTH_ERROR_MESSAGES: Record<AuthErrorCode, string> = {
  unexpected_error: 'Unexpected error in authentication.',
  interaction_required:
    'Interaction required: the identity provider needs the user to sign in again (session ended or consent needed).',
  refresh_token_expired: 'The refresh token is expired or within 300 s of its expiry; it was not used.',
  bad_token: 'The identity provider refused the refresh token (invalid_grant: bad, expired or revoked).',
  no_account: 'No account is signed in: a token cannot be acquired without an account.',
  login_failed: 'The sign-in failed.',
};

export class AuthError extends Error {
  constructor(
    public readonly code: AuthErrorCode,
    detail?: string,
    public override readonly cause?: unknown,
  ) {
    super(detail ? `${AUTH_ERROR_MESSAGES[code]} ${detail}` : AUTH_ERROR_MESSAGES[code]);
    this.name = 'AuthError';
  }
}

/** A failed interactive sign-in, with what the page shows about it. */
export class SignInError extends AuthError {
  constructor(
    public readonly failure: SignInFailure,
    cause?: unknown,
  ) {
    super(
      'login_failed',
      [failure.kind, failure.error, failure.description].filter(Boolean).join(': '),
      cause,
    );
    this.name = 'SignInError';
  }
}

/** OAuth/OIDC error codes that mean "only an interactive sign-in can fix this". */
const INTERACTION_CODES = new Set([
  'interaction_required',
  'login_required',
  'consent_required',
  'account_selection_required',
]);

/** The protocol error code carried by an error from oidc-client-ts (ErrorResponse has `error`), if any. */
export function protocolErrorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'error' in err && typeof err.error === 'string') return err.error;
  return undefined;
}

export function isInteractionRequired(err: unknown): boolean {
  const code = protocolErrorCode(err);
  return !!code && INTERACTION_CODES.has(code);
}

/** Maps anything thrown by the OIDC library to the catalogue. */
export function toAuthError(err: unknown, fallback: AuthErrorCode = 'unexpected_error'): AuthError {
  if (err instanceof AuthError) return err;
  const code = protocolErrorCode(err);
  const detail = err instanceof Error ? err.message : code;
  if (code === 'invalid_grant') return new AuthError('bad_token', detail, err);
  if (isInteractionRequired(err)) return new AuthError('interaction_required', detail, err);
  return new AuthError(fallback, detail, err);
}

/**
 * Why an interactive sign-in failed, for the page (shown in the user's language with a way to try again):
 * - `provider`: the provider answered the authorization request with an error (`error`, `error_description` of
 *   the callback, e.g. access_denied);
 * - `token`: the code could not be exchanged (the token endpoint refused it or could not be reached) or the
 *   answer could not be read;
 * - `nonce`: the ID token does not carry the nonce this sign-in sent (a replayed or substituted token);
 * - `state`: the answer belongs to no sign-in started in this tab (opened twice, or not started here). The
 *   provider's words are not shown then: anyone can write them into a link.
 */
export interface SignInFailure {
  kind: 'provider' | 'token' | 'nonce' | 'state';
  /** The OAuth error code (`access_denied`, `invalid_grant`…), when there is one. */
  error?: string;
  /** The provider's own explanation (`error_description`), or the failure's message. */
  description?: string;
  /** Where the sign-in started (from the matched state), to come back to. */
  returnTo?: string;
}

const STATE_FAILURES = [
  'No state in response',
  'No matching state found in storage',
  'State does not match',
  'authority mismatch',
  'client_id mismatch',
];

/** Classifies what oidc-client-ts threw while processing the callback (its messages are its contract). */
export function signInFailureOf(err: unknown): SignInFailure {
  const e = (err ?? {}) as {
    name?: unknown;
    message?: unknown;
    error?: unknown;
    error_description?: unknown;
    form?: unknown;
    state?: unknown;
  };
  const message = typeof e.message === 'string' ? e.message : '';
  const returnTo =
    e.state && typeof e.state === 'object' && typeof (e.state as { returnTo?: unknown }).returnTo === 'string'
      ? (e.state as { returnTo: string }).returnTo
      : undefined;
  if (typeof e.error === 'string' && e.error) {
    const description = typeof e.error_description === 'string' ? e.error_description : undefined;
    // oidc-client-ts's ErrorResponse: from the callback's query (no form), or from the token endpoint (form).
    const kind = e.name === 'ErrorResponse' && e.form === undefined ? 'provider' : 'token';
    return {
      kind,
      error: e.error,
      ...(description ? { description } : {}),
      ...(returnTo ? { returnTo } : {}),
    };
  }
  if (/\bnonce\b/i.test(message)) return { kind: 'nonce', description: message };
  if (STATE_FAILURES.some((m) => message.startsWith(m))) return { kind: 'state', description: message };
  return { kind: 'token', ...(message ? { description: message } : {}) };
}
