import {
  OidcClient,
  User,
  UserManager,
  WebStorageStateStore,
  type INavigator,
  type SigninResponse,
  type UserManagerSettings,
} from 'oidc-client-ts';
import type { AuthSettings } from '@racebeacon/domain/entities';
import { accountFromClaims, type KeyValueStorage, type OidcPort, type TokenSet } from './auth-core';
import { SignInError, signInFailureOf } from './errors';

/** GET /api/config → auth: the provider settings, given to the browser at runtime. */
export type { AuthSettings };

/** What OpenID Connect itself needs: an ID token with the profile and email claims, and a refresh token. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'];
/** Scopes the app itself asks for at sign-in besides OIDC's: none. The API scope is added by authorizationScope. */
export const LOGIN_SCOPES: string[] = [];
export const SILENT_RENEW_PATH = '/auth/silent-renew';

/**
 * The scope of the authorization request: OIDC's own scopes plus the single API scope, so that the code
 * exchange already yields an API access token (and refresh token) and no second consent round trip is needed.
 */
export function authorizationScope(settings: Pick<AuthSettings, 'scope'>): string {
  return [...OIDC_SCOPES, ...LOGIN_SCOPES, settings.scope].join(' ');
}

export interface OidcPortDeps {
  /** Session storage in the browser (token cache, state, PKCE verifier). */
  storage: KeyValueStorage & { key(index: number): string | null; readonly length: number };
  /** Navigators (tests inject them; the browser uses oidc-client-ts's own). */
  redirectNavigator?: INavigator;
  iframeNavigator?: INavigator;
  /** Seconds the hidden frame may take before it counts as failed. */
  silentTimeoutSeconds?: number;
  /** Fallback navigation (after sign-out when the provider has no end-session endpoint). */
  navigate?: (url: string) => void;
}

export type BrowserOidcPort = OidcPort & {
  /** Runs in the hidden frame on the silent-renew page: hands the answer back to the parent window. */
  completeSilent(url: string): Promise<void>;
  readonly userManager: UserManager;
};

const RT_EXPIRY_KEY = 'racebeacon.auth.refresh-expiry';

/**
 * A fresh `nonce` for an authorization request (32 random bytes, base64url). oidc-client-ts keeps it with the
 * state and the PKCE verifier in session storage and refuses an ID token that does not carry it.
 */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The OidcPort on oidc-client-ts: UserManager for redirects and the hidden frame, OidcClient for the token calls. */
export function createOidcPort(settings: AuthSettings, deps: OidcPortDeps): BrowserOidcPort {
  const origin = new URL(settings.redirectUri).origin;
  const store = new WebStorageStateStore({ store: deps.storage as Storage, prefix: 'oidc.' });
  const scope = authorizationScope(settings);
  const umSettings: UserManagerSettings = {
    authority: settings.authority,
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    post_logout_redirect_uri: settings.postLogoutRedirectUri,
    silent_redirect_uri: `${origin}${SILENT_RENEW_PATH}`,
    response_type: 'code',
    scope,
    userStore: store,
    stateStore: store,
    // Renewal is driven on demand by AuthCore (single flight); the library's own timers would race with it.
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
    silentRequestTimeoutInSeconds: deps.silentTimeoutSeconds ?? 10,
    // The hidden frame (prompt=none) carries the ID token as id_token_hint, as OIDC Core asks; Glewlwyd 2.7 refuses
    // prompt=none without it ("id_token mandatory").
    includeIdTokenInSilentRenew: true,
  };
  const manager = new UserManager(umSettings, deps.redirectNavigator, undefined, deps.iframeNavigator);
  const client = new OidcClient(umSettings);

  function rememberRefreshExpiry(refreshToken: string | undefined, expiresIn: unknown) {
    if (refreshToken && typeof expiresIn === 'number' && expiresIn > 0) {
      deps.storage.setItem(
        RT_EXPIRY_KEY,
        JSON.stringify({ refreshToken, expiresAt: Math.floor(Date.now() / 1000) + Math.floor(expiresIn) }),
      );
    } else {
      deps.storage.removeItem(RT_EXPIRY_KEY);
    }
  }

  function refreshExpiry(refreshToken: string | undefined): number | undefined {
    if (!refreshToken) return undefined;
    try {
      const saved = JSON.parse(deps.storage.getItem(RT_EXPIRY_KEY) ?? 'null') as {
        refreshToken: string;
        expiresAt: number;
      } | null;
      return saved?.refreshToken === refreshToken ? saved.expiresAt : undefined;
    } catch {
      return undefined;
    }
  }

  function toTokenSet(user: User): TokenSet {
    return {
      account: accountFromClaims(user.profile as Record<string, unknown>),
      accessToken: user.access_token,
      expiresAt: user.expires_at ?? 0,
      // Providers that omit `scope` in the response granted what was asked.
      scopes: user.scope ? user.scopes : scope.split(' '),
      idToken: user.id_token,
      refreshToken: user.refresh_token,
      refreshExpiresAt: refreshExpiry(user.refresh_token),
    };
  }

  function userFrom(response: SigninResponse, previous?: User | null): User {
    return new User({
      id_token: response.id_token ?? previous?.id_token,
      session_state: response.session_state ?? previous?.session_state ?? null,
      access_token: response.access_token,
      refresh_token: response.refresh_token ?? previous?.refresh_token,
      token_type: response.token_type,
      scope: response.scope ?? previous?.scope,
      profile: response.profile ?? previous?.profile,
      expires_at: response.expires_at,
    });
  }

  return {
    userManager: manager,

    async load() {
      const user = await manager.getUser();
      return user ? toTokenSet(user) : null;
    },

    async refresh(_current, _scope) {
      const user = await manager.getUser();
      if (!user?.refresh_token)
        throw Object.assign(new Error('no refresh token'), { error: 'invalid_grant' });
      const response = await client.useRefreshToken({
        state: {
          refresh_token: user.refresh_token,
          id_token: user.id_token,
          session_state: user.session_state,
          // What the provider granted for the token (the API scope), as oidc-client-ts does: OIDC-only scopes
          // such as offline_access are not part of every provider's refresh grant (oidc-provider drops it
          // without prompt=consent; Entra restricts them too).
          scope: user.scope || settings.scope,
          profile: user.profile,
          data: undefined,
        },
        timeoutInSeconds: umSettings.silentRequestTimeoutInSeconds,
      });
      const renewed = userFrom(response, user);
      await manager.storeUser(renewed);
      rememberRefreshExpiry(
        renewed.refresh_token,
        (response as unknown as { refresh_token_expires_in?: unknown }).refresh_token_expires_in,
      );
      return toTokenSet(renewed);
    },

    async renewInFrame() {
      // oidc-client-ts renews with the refresh token whenever the stored user has one: drop it to use the frame.
      const user = await manager.getUser();
      if (user?.refresh_token) {
        await manager.storeUser(new User({ ...user, refresh_token: undefined, userState: user.state }));
      }
      deps.storage.removeItem(RT_EXPIRY_KEY);
      const renewed = await manager.signinSilent({ nonce: newNonce() });
      if (!renewed)
        throw Object.assign(new Error('silent renewal returned no user'), { error: 'login_required' });
      return toTokenSet(renewed);
    },

    async redirectToLogin({ prompt, returnTo }) {
      await manager.signinRedirect({ state: { returnTo }, nonce: newNonce(), ...(prompt ? { prompt } : {}) });
    },

    async completeLogin(url) {
      // Where the sign-in started, read before the state is consumed, so a failure can come back there too.
      const started = await client
        .readSigninResponseState(url)
        .then(({ state }) => (state.data as { returnTo?: string } | undefined)?.returnTo)
        .catch(() => undefined);
      let response: SigninResponse;
      try {
        // Checks the state, exchanges the code (PKCE), and checks the ID token's nonce against the stored one.
        response = await client.processSigninResponse(url);
      } catch (err) {
        const failure = signInFailureOf(err);
        // Only an answer to a sign-in started here says where to go back to.
        if (failure.kind !== 'state' && started) failure.returnTo = started;
        throw new SignInError(failure, err);
      }
      const user = userFrom(response);
      await manager.storeUser(user);
      rememberRefreshExpiry(
        user.refresh_token,
        (response as unknown as { refresh_token_expires_in?: unknown }).refresh_token_expires_in,
      );
      await client.clearStaleState().catch(() => undefined);
      const state = response.userState as { returnTo?: string } | undefined;
      return { tokens: toTokenSet(user), returnTo: state?.returnTo ?? '/' };
    },

    async redirectToLogout(idToken) {
      try {
        // With a state (kept in session storage, checked on the way back by completeLogout): some providers
        // (Glewlwyd) redirect back only when one is sent. id_token_hint lets the provider end the session
        // without asking.
        await manager.signoutRedirect({
          id_token_hint: idToken,
          post_logout_redirect_uri: settings.postLogoutRedirectUri,
          state: { signedOutAt: Date.now() },
        });
      } catch (err) {
        // No end-session endpoint (or discovery failed): local sign-out only, back to /.
        console.warn('[auth] provider sign-out unavailable, signed out locally:', err);
        (deps.navigate ?? ((u: string) => window.location.assign(u)))(settings.postLogoutRedirectUri);
      }
    },

    isLogoutReturn(url) {
      const current = new URL(url);
      const target = new URL(settings.postLogoutRedirectUri);
      return (
        current.origin === target.origin &&
        current.pathname === target.pathname &&
        current.searchParams.has('state') &&
        !current.searchParams.has('code')
      );
    },

    async completeLogout(url) {
      // Throws when the state matches no sign-out started in this tab; consumes it otherwise.
      await client.processSignoutResponse(url);
    },

    async clear() {
      await manager.removeUser();
      deps.storage.removeItem(RT_EXPIRY_KEY);
    },

    async completeSilent(url) {
      await manager.signinSilentCallback(url);
    },
  };
}
