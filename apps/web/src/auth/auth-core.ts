import { groupsFromClaim } from '@racebeacon/domain/claims';
import { AuthError, SignInError, signInFailureOf, toAuthError, type SignInFailure } from './errors';

/**
 * The token layer's core, free of React and of the DOM: storage, clock and the OIDC transport are injected, so
 * every rule below is unit-tested in Node (auth-core.test.ts).
 *
 * Rules:
 * - sign-in state: no account / active account / interaction in progress; at start, with no active account but
 *   cached accounts, the first cached account becomes active; each interactive login's account becomes active;
 * - getAccessToken for the single API scope: cached token while valid → refresh token unless it is within 300 s
 *   of its own expiry → hidden-iframe renewal → interactive sign-in when all fail;
 * - identical simultaneous requests share one in-flight renewal;
 * - failures emit LOGIN_FAILURE when no account exists yet, ACQUIRE_TOKEN_FAILURE otherwise, and are logged for
 *   developers; nothing throws out of getAccessToken.
 */

export interface Account {
  /** Object id (`oid`, or `sub` when the provider has no oid): compared with a race's DirectorId. */
  id: string;
  name?: string;
  email?: string;
  groups: string[];
}

/** What the OIDC library holds for the signed-in user (times in epoch seconds). */
export interface TokenSet {
  account: Account;
  accessToken: string;
  expiresAt: number;
  scopes: string[];
  idToken?: string;
  refreshToken?: string;
  /** Known when the provider reports refresh_token_expires_in (Entra, the embedded provider). */
  refreshExpiresAt?: number;
}

/** The transport to the identity provider (implemented with oidc-client-ts in oidc-port.ts). */
export interface OidcPort {
  /** Tokens cached in session storage, or null. */
  load(): Promise<TokenSet | null>;
  /** Refresh-token grant for the scope. */
  refresh(current: TokenSet, scope: string): Promise<TokenSet>;
  /** Hidden-iframe renewal (prompt=none) for the scope, never using the refresh token. */
  renewInFrame(current: TokenSet | null, scope: string): Promise<TokenSet>;
  /** Top-level redirect to the provider's sign-in (or sign-up with prompt=create) page. */
  redirectToLogin(opts: { prompt?: 'create'; returnTo: string }): Promise<void>;
  /** Processes the provider's answer on the redirect URI. */
  completeLogin(url: string): Promise<{ tokens: TokenSet; returnTo: string }>;
  /** Ends the provider session (ID token hint, a state) and comes back to the post-logout URI (/). */
  redirectToLogout(idToken: string | undefined): Promise<void>;
  /** Whether the URL is the provider's way back from sign-out (the post-logout URI with a `state`). */
  isLogoutReturn(url: string): boolean;
  /** Checks the state of the way back from sign-out against the one sent; throws when it matches none. */
  completeLogout(url: string): Promise<void>;
  /** Forgets cached tokens. */
  clear(): Promise<void>;
}

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export type AuthStatus = 'none' | 'active' | 'interaction';

export interface AuthSnapshot {
  status: AuthStatus;
  account: Account | null;
  isAdmin: boolean;
  /** Why the last interactive sign-in failed, until the user tries again or dismisses it. */
  signInFailure: SignInFailure | null;
}

export type AuthEventType =
  | 'LOGIN_START'
  | 'LOGIN_SUCCESS'
  | 'LOGIN_FAILURE'
  | 'ACQUIRE_TOKEN_START'
  | 'ACQUIRE_TOKEN_SUCCESS'
  | 'ACQUIRE_TOKEN_FAILURE'
  | 'ACTIVE_ACCOUNT_CHANGED'
  | 'LOGOUT_START';

export interface AuthEvent {
  type: AuthEventType;
  error?: AuthError;
  /** ACQUIRE_TOKEN_SUCCESS: which step produced the token. */
  source?: 'cache' | 'refresh_token' | 'iframe';
}

export interface AuthCoreOptions {
  port: OidcPort;
  storage: KeyValueStorage;
  clock?: Clock;
  /** The single API scope tokens are acquired for. */
  apiScope: string;
  /** Members of this group (ID token `groups`) are administrators. */
  adminGroupId: string;
  /** Do not use a refresh token this close to its expiry (seconds). */
  refreshTokenExpirationOffsetSeconds?: number;
  /** Renew an access token this long before it expires (seconds), for clock skew and request time. */
  accessTokenRenewalOffsetSeconds?: number;
  /** Developer-facing messages (default: console). */
  logger?: Pick<Console, 'warn' | 'info'>;
}

export const ACCOUNTS_KEY = 'racebeacon.auth.accounts';
export const ACTIVE_ACCOUNT_KEY = 'racebeacon.auth.active';
export const DEFAULT_REFRESH_TOKEN_EXPIRATION_OFFSET_SECONDS = 300;

export class AuthCore {
  private readonly port: OidcPort;
  private readonly storage: KeyValueStorage;
  private readonly clock: Clock;
  private readonly logger: Pick<Console, 'warn' | 'info'>;
  private readonly rtOffset: number;
  private readonly atOffset: number;
  private snapshot: AuthSnapshot = { status: 'none', account: null, isAdmin: false, signInFailure: null };
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(e: AuthEvent) => void>();
  /** In-flight silent requests by thumbprint (account + scope): identical requests share one promise. */
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(private readonly opts: AuthCoreOptions) {
    this.port = opts.port;
    this.storage = opts.storage;
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.logger = opts.logger ?? console;
    this.rtOffset =
      opts.refreshTokenExpirationOffsetSeconds ?? DEFAULT_REFRESH_TOKEN_EXPIRATION_OFFSET_SECONDS;
    this.atOffset = opts.accessTokenRenewalOffsetSeconds ?? 30;
    // The account cache is synchronous: a reload shows the signed-in state at once (guards do not bounce).
    this.restoreActive(null);
  }

  // --- state -------------------------------------------------------------------------------------------

  getSnapshot = (): AuthSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  addEventListener(listener: (e: AuthEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private setStatus(status: AuthStatus) {
    const account = status === 'none' ? null : this.activeAccount();
    const effective: AuthStatus = status === 'active' && !account ? 'none' : status;
    const isAdmin = !!account && account.groups.includes(this.opts.adminGroupId);
    const prev = this.snapshot;
    if (prev.status === effective && prev.account?.id === account?.id && prev.isAdmin === isAdmin) return;
    this.snapshot = {
      status: effective,
      account: effective === 'none' ? null : account,
      isAdmin,
      signInFailure: prev.signInFailure,
    };
    for (const l of this.listeners) l();
  }

  private setSignInFailure(signInFailure: SignInFailure | null) {
    if (this.snapshot.signInFailure === signInFailure) return;
    this.snapshot = { ...this.snapshot, signInFailure };
    for (const l of this.listeners) l();
  }

  /** The user closed the sign-in failure message. */
  dismissSignInFailure() {
    this.setSignInFailure(null);
  }

  private emit(event: AuthEvent) {
    for (const l of this.eventListeners) {
      try {
        l(event);
      } catch (err) {
        this.logger.warn('[auth] an event listener failed:', err);
      }
    }
  }

  /** Reports a failure: LOGIN_FAILURE while no account exists yet, ACQUIRE_TOKEN_FAILURE once one does. */
  private fail(error: AuthError): AuthError {
    const type: AuthEventType =
      this.cachedAccounts().length === 0 ? 'LOGIN_FAILURE' : 'ACQUIRE_TOKEN_FAILURE';
    this.logger.warn(`[auth] ${type} ${error.code}: ${error.message}`);
    this.emit({ type, error });
    return error;
  }

  // --- account cache (session storage) -----------------------------------------------------------------

  cachedAccounts(): Account[] {
    try {
      const raw = this.storage.getItem(ACCOUNTS_KEY);
      const list = raw ? (JSON.parse(raw) as Account[]) : [];
      return Array.isArray(list) ? list.filter((a) => a && typeof a.id === 'string') : [];
    } catch {
      return [];
    }
  }

  private saveAccounts(accounts: Account[]) {
    this.storage.setItem(ACCOUNTS_KEY, JSON.stringify(accounts));
  }

  private rememberAccount(account: Account) {
    const others = this.cachedAccounts().filter((a) => a.id !== account.id);
    this.saveAccounts([...others, account]);
  }

  activeAccount(): Account | null {
    const id = this.storage.getItem(ACTIVE_ACCOUNT_KEY);
    return (id && this.cachedAccounts().find((a) => a.id === id)) || null;
  }

  setActiveAccount(account: Account | null) {
    const before = this.storage.getItem(ACTIVE_ACCOUNT_KEY);
    if (account) {
      this.rememberAccount(account);
      this.storage.setItem(ACTIVE_ACCOUNT_KEY, account.id);
    } else {
      this.storage.removeItem(ACTIVE_ACCOUNT_KEY);
    }
    if (before !== (account?.id ?? null)) this.emit({ type: 'ACTIVE_ACCOUNT_CHANGED' });
    this.setStatus(account ? 'active' : 'none');
  }

  // --- start-up ----------------------------------------------------------------------------------------

  /**
   * Called once at start with the current URL. On the redirect URI (`?code=` or `?error=`) it completes the
   * interactive login and returns the path to continue at (a failure is kept in the snapshot for the page to
   * show); on the way back from the provider's sign-out it checks the state and drops it from the address;
   * otherwise it restores the cached state.
   */
  async initialize(url: string, callbackPath: string): Promise<{ navigateTo?: string }> {
    const current = new URL(url);
    const isCallback =
      current.pathname === callbackPath &&
      (current.searchParams.has('code') || current.searchParams.has('error'));
    if (isCallback) {
      this.setStatus('interaction');
      try {
        const { tokens, returnTo } = await this.port.completeLogin(url);
        this.setActiveAccount(tokens.account);
        this.emit({ type: 'LOGIN_SUCCESS' });
        return { navigateTo: safeReturnPath(returnTo) };
      } catch (err) {
        const failure = err instanceof SignInError ? err.failure : signInFailureOf(err);
        // The event and the console get the catalogue's code for the original error; the page gets the failure.
        this.fail(toAuthError(err instanceof SignInError ? (err.cause ?? err) : err, 'login_failed'));
        this.setSignInFailure(failure);
        this.restoreActive(null);
        return { navigateTo: safeReturnPath(failure.returnTo) };
      }
    }
    let navigateTo: string | undefined;
    if (this.port.isLogoutReturn(url)) {
      try {
        await this.port.completeLogout(url);
      } catch (err) {
        // Not an answer to a sign-out started here: nothing to do but not trust it (signed out locally anyway).
        this.logger.warn('[auth] the way back from sign-out carries an unknown state; ignored:', err);
      }
      current.searchParams.delete('state');
      navigateTo = current.pathname + current.search + current.hash;
    }
    let cached: TokenSet | null = null;
    try {
      cached = await this.port.load();
    } catch (err) {
      this.logger.warn('[auth] cached tokens could not be read:', err);
    }
    this.restoreActive(cached);
    return navigateTo === undefined ? {} : { navigateTo };
  }

  private restoreActive(cached: TokenSet | null) {
    if (cached) this.rememberAccount(cached.account);
    let active = this.activeAccount();
    if (!active) {
      // No active account but cached ones: the first cached account becomes active.
      const [first] = this.cachedAccounts();
      if (first) {
        this.setActiveAccount(first);
        active = first;
      }
    }
    this.setStatus(active ? 'active' : 'none');
  }

  // --- interactive -------------------------------------------------------------------------------------

  async login(returnTo: string, prompt?: 'create'): Promise<void> {
    if (this.snapshot.status === 'interaction') return;
    this.setSignInFailure(null);
    const before = this.snapshot.status;
    this.setStatus('interaction');
    this.emit({ type: 'LOGIN_START' });
    try {
      await this.port.redirectToLogin({ prompt, returnTo });
    } catch (err) {
      this.fail(toAuthError(err, 'login_failed'));
      this.setStatus(before);
    }
  }

  async logout(): Promise<void> {
    const active = this.activeAccount();
    let idToken: string | undefined;
    try {
      idToken = (await this.port.load())?.idToken;
    } catch {
      idToken = undefined;
    }
    this.emit({ type: 'LOGOUT_START' });
    this.saveAccounts(this.cachedAccounts().filter((a) => a.id !== active?.id));
    this.storage.removeItem(ACTIVE_ACCOUNT_KEY);
    this.inFlight.clear();
    this.setStatus('none');
    try {
      await this.port.clear();
      await this.port.redirectToLogout(idToken);
    } catch (err) {
      this.logger.warn('[auth] sign-out at the identity provider failed:', err);
    }
  }

  // --- silent token acquisition ------------------------------------------------------------------------

  /**
   * An access token for the API scope, or null. Never throws: failures are reported (console + event); when only
   * an interactive sign-in can help, one is started (the page navigates away).
   */
  async getAccessToken(returnTo: string): Promise<string | null> {
    if (!this.activeAccount()) return null; // anonymous caller: public endpoints need no token
    try {
      return await this.acquireToken();
    } catch (err) {
      const error = toAuthError(err);
      if (
        error.code === 'interaction_required' ||
        error.code === 'bad_token' ||
        error.code === 'refresh_token_expired'
      ) {
        await this.login(returnTo);
      }
      return null;
    }
  }

  /** Strict variant: throws an AuthError (catalogue) when no token can be had silently. */
  acquireToken(scope: string = this.opts.apiScope): Promise<string> {
    const account = this.activeAccount();
    if (!account) return Promise.reject(this.fail(new AuthError('no_account')));
    const key = JSON.stringify([account.id, scope]);
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.acquire(account, scope).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private nowSeconds() {
    return Math.floor(this.clock.now() / 1000);
  }

  private async acquire(account: Account, scope: string): Promise<string> {
    this.emit({ type: 'ACQUIRE_TOKEN_START' });
    let cached: TokenSet | null = null;
    try {
      cached = await this.port.load();
    } catch (err) {
      this.logger.warn('[auth] cached tokens could not be read:', err);
    }
    if (cached && cached.account.id !== account.id) cached = null;
    const now = this.nowSeconds();

    // 1. The cached access token while it is valid (with a small renewal margin).
    if (cached && cached.scopes.includes(scope) && cached.expiresAt - this.atOffset > now) {
      this.emit({ type: 'ACQUIRE_TOKEN_SUCCESS', source: 'cache' });
      return cached.accessToken;
    }

    // 2. The refresh token, unless it expires within the offset.
    let lastError: AuthError | undefined;
    if (cached?.refreshToken) {
      if (cached.refreshExpiresAt !== undefined && cached.refreshExpiresAt - this.rtOffset <= now) {
        lastError = new AuthError('refresh_token_expired');
        this.logger.info(`[auth] ${lastError.message} Trying the hidden frame.`);
      } else {
        try {
          const renewed = await this.port.refresh(cached, scope);
          return this.succeeded(renewed, 'refresh_token');
        } catch (err) {
          lastError = toAuthError(err);
          // A refused refresh token (invalid_grant) or a needed interaction falls through to the frame; any other
          // failure (network, server) is not something a frame would fix.
          if (lastError.code !== 'bad_token' && lastError.code !== 'interaction_required') {
            throw this.fail(lastError);
          }
          this.logger.info(`[auth] refresh failed (${lastError.code}); trying the hidden frame.`);
        }
      }
    }

    // 3. Hidden-iframe renewal on the provider session.
    try {
      const renewed = await this.port.renewInFrame(cached, scope);
      return this.succeeded(renewed, 'iframe');
    } catch (err) {
      const error = toAuthError(err, 'interaction_required');
      // Whatever the frame reports (login_required, a timeout…), only an interactive sign-in remains.
      const final =
        error.code === 'unexpected_error' || error.code === 'bad_token'
          ? new AuthError('interaction_required', error.message, err)
          : error;
      if (lastError) this.logger.info(`[auth] earlier step: ${lastError.code}`);
      throw this.fail(final);
    }
  }

  private succeeded(tokens: TokenSet, source: 'refresh_token' | 'iframe'): string {
    // The account may carry fresher claims (name, groups) after a renewal.
    if (tokens.account.id === this.activeAccount()?.id) {
      this.rememberAccount(tokens.account);
      this.setStatus('active');
    }
    this.emit({ type: 'ACQUIRE_TOKEN_SUCCESS', source });
    return tokens.accessToken;
  }
}

/** Only same-origin paths are followed after sign-in (no open redirect through the state). */
export function safeReturnPath(returnTo: string | undefined): string {
  if (!returnTo || !returnTo.startsWith('/') || returnTo.startsWith('//') || returnTo.startsWith('/auth/')) {
    return '/';
  }
  return returnTo;
}

/** The account described by ID-token claims (oid falls back to sub, as the API does). */
export function accountFromClaims(claims: Record<string, unknown>): Account {
  const id = typeof claims.oid === 'string' && claims.oid ? claims.oid : String(claims.sub ?? '');
  return {
    id,
    name: typeof claims.name === 'string' ? claims.name : undefined,
    email:
      typeof claims.email === 'string'
        ? claims.email
        : typeof claims.preferred_username === 'string'
          ? claims.preferred_username
          : undefined,
    // A list, or one string of one or more groups (comma- or space-separated), as the API reads it.
    groups: groupsFromClaim(claims.groups),
  };
}

/** Ownership: the account's object id equals the race's DirectorId (the id the server stored when it was created). */
export function isOwner(
  account: Pick<Account, 'id'> | null | undefined,
  race: { DirectorId?: string | null } | null | undefined,
): boolean {
  return !!account?.id && !!race?.DirectorId && account.id === race.DirectorId;
}
