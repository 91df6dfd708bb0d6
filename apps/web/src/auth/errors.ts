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
