/**
 * The web app's sign-in and token layer (oidc-client-ts underneath). Wrap the app in <AuthProvider config={…}>;
 * use useAuth() in components and getAccessToken() in the API client.
 */
export { AuthProvider, useAuth, getAccessToken, CALLBACK_PATH, type AuthState } from './auth-provider';
export { SignInProblem } from './sign-in-problem';
export { isOwner, type Account, type AuthStatus, type AuthEvent } from './auth-core';
export { AuthError, AUTH_ERROR_MESSAGES, type AuthErrorCode, type SignInFailure } from './errors';
export { type AuthSettings, SILENT_RENEW_PATH } from './oidc-port';
