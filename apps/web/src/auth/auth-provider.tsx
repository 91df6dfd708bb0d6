import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { AuthCore, type Account, type AuthSnapshot, type AuthStatus, type OidcPort } from './auth-core';
import { AuthError, type SignInFailure } from './errors';
import { createOidcPort, SILENT_RENEW_PATH, type AuthSettings, type BrowserOidcPort } from './oidc-port';
import { sessionStorageOrMemory } from './session-storage';
import { t } from '../i18n';

export interface AuthState {
  status: AuthStatus;
  account: Account | null;
  isAdmin: boolean;
  /** Why the last sign-in failed (shown by <SignInProblem>), or null. */
  signInFailure: SignInFailure | null;
  dismissSignInFailure(): void;
  login(): Promise<void>;
  signup(): Promise<void>;
  logout(): Promise<void>;
  getAccessToken(): Promise<string | null>;
}

export const CALLBACK_PATH = '/auth/callback';

/** The module-level instance, so that the API client can ask for tokens outside React. */
let current: AuthCore | null = null;

const currentPath = () =>
  typeof window === 'undefined'
    ? '/'
    : window.location.pathname + window.location.search + window.location.hash;

/** An access token for the API scope, or null when signed out (for the API client). Never throws. */
export function getAccessToken(): Promise<string | null> {
  return current ? current.getAccessToken(currentPath()) : Promise.resolve(null);
}

/** Accepts the whole /api/config answer or just its `auth` part. */
function readSettings(config: unknown): AuthSettings | null {
  const c = (config ?? {}) as Record<string, unknown>;
  const auth = (c.auth && typeof c.auth === 'object' ? c.auth : c) as Partial<AuthSettings>;
  const required = ['authority', 'clientId', 'scope', 'redirectUri', 'postLogoutRedirectUri'] as const;
  if (required.some((k) => typeof auth[k] !== 'string' || !auth[k])) return null;
  return { adminGroupId: '', ...auth } as AuthSettings;
}

/** Without settings (server unreachable) sign-in is unavailable but nothing breaks. */
const unavailablePort: OidcPort = {
  load: async () => null,
  refresh: () => Promise.reject(new AuthError('unexpected_error', 'Sign-in settings are missing.')),
  renewInFrame: () => Promise.reject(new AuthError('unexpected_error', 'Sign-in settings are missing.')),
  redirectToLogin: () => Promise.reject(new AuthError('unexpected_error', 'Sign-in settings are missing.')),
  completeLogin: () => Promise.reject(new AuthError('login_failed', 'Sign-in settings are missing.')),
  redirectToLogout: async () => window.location.assign('/'),
  isLogoutReturn: () => false,
  completeLogout: async () => undefined,
  clear: async () => undefined,
};

function createBrowserAuth(settings: AuthSettings | null): { core: AuthCore; port: BrowserOidcPort | null } {
  // In a frame of another site (the embeds) the browser may deny storage: keep it in memory then.
  const storage = sessionStorageOrMemory();
  const port = settings ? createOidcPort(settings, { storage }) : null;
  const core = new AuthCore({
    port: port ?? unavailablePort,
    storage,
    apiScope: settings?.scope ?? '',
    adminGroupId: settings?.adminGroupId ?? '',
  });
  return { core, port };
}

const signedOut: AuthState = {
  status: 'none',
  account: null,
  isAdmin: false,
  signInFailure: null,
  dismissSignInFailure: () => undefined,
  login: async () => console.warn('[auth] no AuthProvider'),
  signup: async () => console.warn('[auth] no AuthProvider'),
  logout: async () => undefined,
  getAccessToken: async () => null,
};

const AuthContext = createContext<AuthState>(signedOut);

/** One initialisation per page load, even when React runs effects twice (StrictMode). */
const started = new WeakMap<AuthCore, Promise<void>>();

/**
 * Wraps the app: restores the session from session storage, completes the sign-in on /auth/callback (then
 * continues at the page the user came from) and answers the hidden renewal frame on /auth/silent-renew.
 */
export function AuthProvider({ config, children }: { config: unknown; children: ReactNode }) {
  const [{ core, port }] = useState(() => createBrowserAuth(readSettings(config)));
  const isSilentFrame = window.location.pathname === SILENT_RENEW_PATH;
  const [ready, setReady] = useState(false);
  current = core;

  useEffect(() => {
    let run = started.get(core);
    if (!run) {
      run = (async () => {
        if (isSilentFrame) {
          await port?.completeSilent(window.location.href).catch((err: unknown) => {
            console.warn('[auth] silent renewal callback failed:', err);
          });
          return;
        }
        const { navigateTo } = await core.initialize(window.location.href, CALLBACK_PATH);
        if (navigateTo !== undefined) {
          // Leave /auth/callback?code=… for the page the user came from; the router follows the popstate.
          window.history.replaceState({ usr: null, key: 'auth', idx: 0 }, '', navigateTo);
          window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
        }
      })();
      started.set(core, run);
    }
    let live = true;
    void run.then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, [core, port, isSilentFrame]);

  const snapshot: AuthSnapshot = useSyncExternalStore(core.subscribe, core.getSnapshot, core.getSnapshot);
  const value = useMemo<AuthState>(
    () => ({
      ...snapshot,
      dismissSignInFailure: () => core.dismissSignInFailure(),
      login: () => core.login(currentPath()),
      signup: () => core.login(currentPath(), 'create'),
      logout: () => core.logout(),
      getAccessToken: () => core.getAccessToken(currentPath()),
    }),
    [core, snapshot],
  );

  if (isSilentFrame) return null;
  const onCallback = window.location.pathname === CALLBACK_PATH;
  return (
    <AuthContext.Provider value={value}>
      {!ready && onCallback ? (
        <p role="status" style={{ padding: '2rem', textAlign: 'center' }}>
          {t('layout.signingIn')}
        </p>
      ) : (
        children
      )}
    </AuthContext.Provider>
  );
}

export const useAuth = (): AuthState => useContext(AuthContext);
