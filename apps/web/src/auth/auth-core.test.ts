import { describe, expect, it, vi } from 'vitest';
import {
  ACCOUNTS_KEY,
  ACTIVE_ACCOUNT_KEY,
  AuthCore,
  accountFromClaims,
  isOwner,
  safeReturnPath,
  type Account,
  type AuthEvent,
  type KeyValueStorage,
  type OidcPort,
  type TokenSet,
} from './auth-core';
import { AUTH_ERROR_MESSAGES, AuthError, SignInError, signInFailureOf } from './errors';

const SCOPE = 'api://racebeacon/races.manage';
const ADMINS = 'racebeacon-admins';
const T0 = Date.UTC(2026, 0, 1, 12) / 1000; // epoch seconds

const dana: Account = { id: 'oid-dana', name: 'Dana Director', email: 'dana@x.example', groups: [] };
const drew: Account = { id: 'oid-drew', name: 'Drew Director', groups: [] };
const avery: Account = { id: 'oid-avery', name: 'Avery Admin', groups: ['other', ADMINS] };

class MemoryStorage implements KeyValueStorage {
  map = new Map<string, string>();
  getItem = (k: string) => this.map.get(k) ?? null;
  setItem = (k: string, v: string) => void this.map.set(k, v);
  removeItem = (k: string) => void this.map.delete(k);
}

/** An OAuth-style error as oidc-client-ts's ErrorResponse carries it. */
const protocolError = (error: string) => Object.assign(new Error(error), { error });

function tokens(account: Account, over: Partial<TokenSet> = {}): TokenSet {
  return {
    account,
    accessToken: `at-${account.id}-0`,
    expiresAt: T0 + 600,
    scopes: ['openid', 'profile', SCOPE],
    idToken: `id-${account.id}`,
    refreshToken: `rt-${account.id}`,
    ...over,
  };
}

/** A scripted identity provider: counts each path and answers as told. */
function setup(opts: { cached?: TokenSet | null; accounts?: Account[]; active?: string; now?: number } = {}) {
  const storage = new MemoryStorage();
  if (opts.accounts) storage.setItem(ACCOUNTS_KEY, JSON.stringify(opts.accounts));
  if (opts.active) storage.setItem(ACTIVE_ACCOUNT_KEY, opts.active);
  let cached = opts.cached ?? null;
  let issued = 0;
  const renewed = (src: string) => {
    issued += 1;
    cached = tokens(cached!.account, {
      accessToken: `at-${src}-${issued}`,
      expiresAt: clock.seconds + 600,
      refreshToken: cached?.refreshToken,
    });
    return cached;
  };
  const clock = { seconds: opts.now ?? T0, now: () => clock.seconds * 1000 };
  const port = {
    load: vi.fn(async () => cached),
    refresh: vi.fn(async (_current: TokenSet, _scope: string): Promise<TokenSet> => {
      await new Promise((r) => setTimeout(r, 5)); // a real round trip takes time: lets callers pile up
      return renewed('rt');
    }),
    renewInFrame: vi.fn(async (_current: TokenSet | null, _scope: string): Promise<TokenSet> =>
      renewed('frame'),
    ),
    redirectToLogin: vi.fn(async (_o: { prompt?: 'create'; returnTo: string }) => undefined),
    completeLogin: vi.fn(async (_url: string) => ({ tokens: cached!, returnTo: '/my-races' })),
    redirectToLogout: vi.fn(async (_idToken: string | undefined) => undefined),
    isLogoutReturn: vi.fn(
      (url: string) => new URL(url).pathname === '/' && new URL(url).searchParams.has('state'),
    ),
    completeLogout: vi.fn(async (_url: string) => undefined),
    clear: vi.fn(async () => {
      cached = null;
    }),
  } satisfies OidcPort;
  const logger = { warn: vi.fn(), info: vi.fn() };
  const core = new AuthCore({ port, storage, clock, apiScope: SCOPE, adminGroupId: ADMINS, logger });
  const events: AuthEvent[] = [];
  core.addEventListener((e) => events.push(e));
  return {
    core,
    port,
    storage,
    clock,
    logger,
    events,
    setCached: (t: TokenSet | null) => {
      cached = t;
    },
  };
}

const failures = (events: AuthEvent[]) =>
  events.filter((e) => e.type.endsWith('FAILURE')).map((e) => [e.type, e.error?.code]);

describe('getAccessToken: cache → refresh token → hidden frame → interactive', () => {
  it('returns the cached access token while it is valid, without any network step', async () => {
    const t = setup({ cached: tokens(dana), accounts: [dana], active: dana.id });
    await expect(t.core.getAccessToken('/my-races')).resolves.toBe('at-oid-dana-0');
    expect(t.port.refresh).not.toHaveBeenCalled();
    expect(t.port.renewInFrame).not.toHaveBeenCalled();
    expect(t.events.at(-1)).toMatchObject({ type: 'ACQUIRE_TOKEN_SUCCESS', source: 'cache' });
  });

  it('renews an expired access token with the refresh token', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-rt-1');
    expect(t.port.refresh).toHaveBeenCalledTimes(1);
    expect(t.port.refresh.mock.calls[0][1]).toBe(SCOPE);
    expect(t.port.renewInFrame).not.toHaveBeenCalled();
    expect(t.events.at(-1)).toMatchObject({ type: 'ACQUIRE_TOKEN_SUCCESS', source: 'refresh_token' });
  });

  it('renews a token that expires within the renewal margin (30 s) rather than hand out a dying one', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 + 20 }), accounts: [dana], active: dana.id });
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-rt-1');
  });

  it.each([
    ['299 s left: skipped, hidden frame used', 299, 0, 1],
    ['300 s left: skipped (offset is inclusive)', 300, 0, 1],
    ['301 s left: used', 301, 1, 0],
    ['unknown expiry: used', undefined, 1, 0],
  ])('refresh token with %s', async (_label, left, refreshCalls, frameCalls) => {
    const t = setup({
      cached: tokens(dana, {
        expiresAt: T0 - 10,
        refreshExpiresAt: left === undefined ? undefined : T0 + left,
      }),
      accounts: [dana],
      active: dana.id,
    });
    const token = await t.core.getAccessToken('/');
    expect(t.port.refresh).toHaveBeenCalledTimes(refreshCalls);
    expect(t.port.renewInFrame).toHaveBeenCalledTimes(frameCalls);
    expect(token).toBe(refreshCalls ? 'at-rt-1' : 'at-frame-1');
    expect(t.port.redirectToLogin).not.toHaveBeenCalled();
  });

  it('falls back to the hidden frame when the refresh token is refused (bad or expired: invalid_grant)', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    t.port.refresh.mockRejectedValueOnce(protocolError('invalid_grant'));
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-frame-1');
    expect(t.port.renewInFrame).toHaveBeenCalledTimes(1);
    expect(failures(t.events)).toEqual([]);
  });

  it('uses the hidden frame directly when there is no refresh token', async () => {
    const t = setup({
      cached: tokens(dana, { expiresAt: T0 - 1, refreshToken: undefined }),
      accounts: [dana],
      active: dana.id,
    });
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-frame-1');
    expect(t.port.refresh).not.toHaveBeenCalled();
  });

  it('starts an interactive sign-in when every silent step fails, returning to the current page', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    t.port.refresh.mockRejectedValueOnce(protocolError('invalid_grant'));
    t.port.renewInFrame.mockRejectedValueOnce(protocolError('login_required'));
    await expect(t.core.getAccessToken('/race/7')).resolves.toBeNull();
    expect(t.port.redirectToLogin).toHaveBeenCalledWith({ prompt: undefined, returnTo: '/race/7' });
    expect(t.core.getSnapshot().status).toBe('interaction');
    // An account exists: acquire failure, not login failure.
    expect(failures(t.events)).toEqual([['ACQUIRE_TOKEN_FAILURE', 'interaction_required']]);
    expect(t.logger.warn).toHaveBeenCalledWith(
      expect.stringContaining(
        `ACQUIRE_TOKEN_FAILURE interaction_required: ${AUTH_ERROR_MESSAGES.interaction_required}`,
      ),
    );
  });

  it('treats a frame timeout like a needed interaction', async () => {
    const t = setup({
      cached: tokens(dana, { expiresAt: T0 - 1, refreshToken: undefined }),
      accounts: [dana],
      active: dana.id,
    });
    t.port.renewInFrame.mockRejectedValueOnce(new Error('IFrame timed out without a response'));
    await expect(t.core.acquireToken()).rejects.toMatchObject({ code: 'interaction_required' });
  });

  it('does not try the frame after an unexpected refresh failure (network): unexpected_error, no crash, no redirect', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    t.port.refresh.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(t.core.getAccessToken('/')).resolves.toBeNull();
    expect(t.port.renewInFrame).not.toHaveBeenCalled();
    expect(t.port.redirectToLogin).not.toHaveBeenCalled();
    const [event] = t.events.filter((e) => e.type === 'ACQUIRE_TOKEN_FAILURE');
    expect(event.error).toBeInstanceOf(AuthError);
    expect(event.error?.code).toBe('unexpected_error');
    expect(event.error?.message.startsWith('Unexpected error in authentication.')).toBe(true);
  });

  it('returns null for a signed-out caller without touching the provider (public pages)', async () => {
    const t = setup();
    await expect(t.core.getAccessToken('/races')).resolves.toBeNull();
    expect(t.port.load).not.toHaveBeenCalled();
    expect(t.events).toEqual([]);
  });

  it('refuses a strict acquisition without an account: no_account, as a login failure (no account exists)', async () => {
    const t = setup();
    await expect(t.core.acquireToken()).rejects.toMatchObject({
      code: 'no_account',
      message: AUTH_ERROR_MESSAGES.no_account,
    });
    expect(failures(t.events)).toEqual([['LOGIN_FAILURE', 'no_account']]);
  });

  it('ignores cached tokens of another account', async () => {
    const t = setup({ cached: tokens(drew), accounts: [dana, drew], active: dana.id });
    await t.core.getAccessToken('/');
    expect(t.port.renewInFrame).toHaveBeenCalledTimes(1);
    expect(t.port.renewInFrame.mock.calls[0][0]).toBeNull();
  });
});

describe('identical simultaneous requests share one renewal', () => {
  it('a burst of 20 calls performs one refresh and all get the same token', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    const results = await Promise.all(Array.from({ length: 20 }, () => t.core.getAccessToken('/')));
    expect(t.port.refresh).toHaveBeenCalledTimes(1);
    expect(new Set(results)).toEqual(new Set(['at-rt-1']));
    // Afterwards the renewed token is cached.
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-rt-1');
    expect(t.port.refresh).toHaveBeenCalledTimes(1);
  });

  it('a burst that needs the frame opens one frame', async () => {
    const t = setup({
      cached: tokens(dana, { expiresAt: T0 - 1, refreshToken: undefined }),
      accounts: [dana],
      active: dana.id,
    });
    t.port.renewInFrame.mockImplementation(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return tokens(dana, { accessToken: 'at-frame', expiresAt: T0 + 600 });
    });
    const results = await Promise.all(Array.from({ length: 20 }, () => t.core.acquireToken()));
    expect(t.port.renewInFrame).toHaveBeenCalledTimes(1);
    expect(new Set(results)).toEqual(new Set(['at-frame']));
  });

  it('different scopes are different requests', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    await Promise.all([t.core.acquireToken(SCOPE), t.core.acquireToken(SCOPE), t.core.acquireToken('other')]);
    expect(t.port.refresh).toHaveBeenCalledTimes(2);
  });

  it('a failed renewal is not cached: the next call tries again', async () => {
    const t = setup({ cached: tokens(dana, { expiresAt: T0 - 1 }), accounts: [dana], active: dana.id });
    t.port.refresh.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const burst = await Promise.allSettled(Array.from({ length: 5 }, () => t.core.acquireToken()));
    expect(burst.every((r) => r.status === 'rejected')).toBe(true);
    expect(t.port.refresh).toHaveBeenCalledTimes(1);
    await expect(t.core.acquireToken()).resolves.toBe('at-rt-1');
    expect(t.port.refresh).toHaveBeenCalledTimes(2);
  });
});

describe('sign-in state', () => {
  it('no account: status none', () => {
    const t = setup();
    expect(t.core.getSnapshot()).toEqual({
      status: 'none',
      account: null,
      isAdmin: false,
      signInFailure: null,
    });
  });

  it('at start, with cached accounts but no active one, the first cached account becomes active', async () => {
    const t = setup({ accounts: [drew, dana] });
    expect(t.core.getSnapshot()).toMatchObject({ status: 'active', account: drew });
    expect(t.storage.getItem(ACTIVE_ACCOUNT_KEY)).toBe(drew.id);
    await t.core.initialize('http://localhost/my-races', '/auth/callback');
    expect(t.core.getSnapshot().account).toEqual(drew);
  });

  it('keeps an active account that is set', () => {
    const t = setup({ accounts: [drew, dana], active: dana.id });
    expect(t.core.getSnapshot().account).toEqual(dana);
  });

  it('restores the account from cached tokens when the account list is empty', async () => {
    const t = setup({ cached: tokens(dana) });
    expect(t.core.getSnapshot().status).toBe('none');
    await t.core.initialize('http://localhost/', '/auth/callback');
    expect(t.core.getSnapshot()).toMatchObject({ status: 'active', account: dana });
  });

  it('every successful interactive login makes its account active and returns to where the user was', async () => {
    const t = setup({ accounts: [dana], active: dana.id, cached: tokens(avery) });
    const seen: string[] = [];
    t.core.subscribe(() => seen.push(t.core.getSnapshot().status));
    const { navigateTo } = await t.core.initialize(
      'http://localhost/auth/callback?code=abc&state=xyz',
      '/auth/callback',
    );
    expect(t.port.completeLogin).toHaveBeenCalledWith('http://localhost/auth/callback?code=abc&state=xyz');
    expect(navigateTo).toBe('/my-races');
    expect(seen[0]).toBe('interaction');
    expect(t.core.getSnapshot()).toEqual({
      status: 'active',
      account: avery,
      isAdmin: true,
      signInFailure: null,
    });
    expect(t.core.cachedAccounts().map((a) => a.id)).toEqual([dana.id, avery.id]);
    expect(t.events.map((e) => e.type)).toContain('LOGIN_SUCCESS');
    expect(t.events.map((e) => e.type)).toContain('ACTIVE_ACCOUNT_CHANGED');
  });

  it('login() is an interaction: redirect with the current page as return address; signup() asks prompt=create', async () => {
    const t = setup();
    await t.core.login('/races?x=1');
    expect(t.port.redirectToLogin).toHaveBeenLastCalledWith({ prompt: undefined, returnTo: '/races?x=1' });
    expect(t.core.getSnapshot().status).toBe('interaction');
    const u = setup();
    await u.core.login('/', 'create');
    expect(u.port.redirectToLogin).toHaveBeenLastCalledWith({ prompt: 'create', returnTo: '/' });
  });

  it('admin = the configured group id in the ID token groups', () => {
    expect(setup({ accounts: [avery] }).core.getSnapshot().isAdmin).toBe(true);
    expect(setup({ accounts: [dana] }).core.getSnapshot().isAdmin).toBe(false);
    const lookalike = { ...dana, groups: ['racebeacon-admins-2', 'RACEBEACON-ADMINS'] };
    expect(setup({ accounts: [lookalike] }).core.getSnapshot().isAdmin).toBe(false);
  });

  it('logout forgets the account and tokens and ends the provider session with the ID token', async () => {
    const t = setup({ cached: tokens(dana), accounts: [dana], active: dana.id });
    await t.core.logout();
    expect(t.port.clear).toHaveBeenCalled();
    expect(t.port.redirectToLogout).toHaveBeenCalledWith('id-oid-dana');
    expect(t.core.getSnapshot()).toEqual({
      status: 'none',
      account: null,
      isAdmin: false,
      signInFailure: null,
    });
    expect(t.core.cachedAccounts()).toEqual([]);
    await expect(t.core.getAccessToken('/')).resolves.toBeNull();
  });
});

describe('error catalogue and events', () => {
  it('a failed login with no account yet emits LOGIN_FAILURE (login_failed), logs it and lands on /', async () => {
    const t = setup();
    t.port.completeLogin.mockRejectedValueOnce(new Error('No matching state found in storage'));
    const { navigateTo } = await t.core.initialize(
      'http://localhost/auth/callback?code=abc&state=nope',
      '/auth/callback',
    );
    expect(navigateTo).toBe('/');
    expect(failures(t.events)).toEqual([['LOGIN_FAILURE', 'login_failed']]);
    expect(t.core.getSnapshot().status).toBe('none');
    expect(t.logger.warn).toHaveBeenCalledWith(expect.stringContaining('LOGIN_FAILURE login_failed'));
  });

  it('a failed login while an account exists emits ACQUIRE_TOKEN_FAILURE and keeps that account active', async () => {
    const t = setup({ accounts: [dana], active: dana.id });
    t.port.completeLogin.mockRejectedValueOnce(protocolError('access_denied'));
    await t.core.initialize('http://localhost/auth/callback?error=access_denied', '/auth/callback');
    expect(failures(t.events)).toEqual([['ACQUIRE_TOKEN_FAILURE', 'login_failed']]);
    expect(t.core.getSnapshot()).toMatchObject({ status: 'active', account: dana });
  });

  it('a provider answer of interaction_required on the callback maps to interaction_required', async () => {
    const t = setup();
    t.port.completeLogin.mockRejectedValueOnce(protocolError('login_required'));
    await t.core.initialize('http://localhost/auth/callback?error=login_required', '/auth/callback');
    expect(failures(t.events)).toEqual([['LOGIN_FAILURE', 'interaction_required']]);
  });

  it('a redirect that cannot start (e.g. discovery unreachable) is reported, not thrown, and the state restored', async () => {
    const t = setup();
    t.port.redirectToLogin.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(t.core.login('/')).resolves.toBeUndefined();
    expect(failures(t.events)).toEqual([['LOGIN_FAILURE', 'login_failed']]);
    expect(t.core.getSnapshot().status).toBe('none');
  });

  it('a throwing event listener does not break token acquisition', async () => {
    const t = setup({ cached: tokens(dana), accounts: [dana], active: dana.id });
    t.core.addEventListener(() => {
      throw new Error('listener bug');
    });
    await expect(t.core.getAccessToken('/')).resolves.toBe('at-oid-dana-0');
  });

  it('a failed sign-in is kept for the page with its reason and lands where it started; login() or dismiss clears it', async () => {
    const t = setup();
    const failure = {
      kind: 'provider',
      error: 'access_denied',
      description: 'The user said no',
      returnTo: '/races/7',
    } as const;
    t.port.completeLogin.mockRejectedValueOnce(new SignInError(failure));
    const seen: unknown[] = [];
    t.core.subscribe(() => seen.push(t.core.getSnapshot().signInFailure));
    const { navigateTo } = await t.core.initialize(
      'http://localhost/auth/callback?error=access_denied&state=s',
      '/auth/callback',
    );
    expect(navigateTo).toBe('/races/7');
    expect(t.core.getSnapshot()).toMatchObject({ status: 'none', signInFailure: failure });
    expect(seen).toContainEqual(failure); // subscribers (the page) are told
    expect(failures(t.events)).toEqual([['LOGIN_FAILURE', 'login_failed']]);

    await t.core.login('/races/7'); // "Try again"
    expect(t.core.getSnapshot().signInFailure).toBeNull();
    expect(t.port.redirectToLogin).toHaveBeenLastCalledWith({ prompt: undefined, returnTo: '/races/7' });

    const again = setup();
    again.port.completeLogin.mockRejectedValueOnce(new SignInError({ kind: 'state' }));
    expect(
      (await again.core.initialize('http://localhost/auth/callback?code=c&state=x', '/auth/callback'))
        .navigateTo,
    ).toBe('/');
    expect(again.core.getSnapshot().signInFailure).toEqual({ kind: 'state' });
    again.core.dismissSignInFailure();
    expect(again.core.getSnapshot().signInFailure).toBeNull();
  });

  it('an unsafe return address of a failed sign-in is not followed', async () => {
    const t = setup();
    t.port.completeLogin.mockRejectedValueOnce(
      new SignInError({ kind: 'nonce', returnTo: '//evil.example/' }),
    );
    const { navigateTo } = await t.core.initialize(
      'http://localhost/auth/callback?code=c&state=s',
      '/auth/callback',
    );
    expect(navigateTo).toBe('/');
    expect(t.core.getSnapshot().signInFailure).toMatchObject({ kind: 'nonce' });
  });

  it("classifies oidc-client-ts's failures: provider error, token endpoint error, nonce, state", () => {
    const provider = Object.assign(new Error('no'), {
      name: 'ErrorResponse',
      error: 'access_denied',
      error_description: 'no',
      state: { returnTo: '/x' },
    });
    expect(signInFailureOf(provider)).toEqual({
      kind: 'provider',
      error: 'access_denied',
      description: 'no',
      returnTo: '/x',
    });
    const token = Object.assign(new Error('bad'), {
      name: 'ErrorResponse',
      error: 'invalid_grant',
      form: new URLSearchParams(),
    });
    expect(signInFailureOf(token)).toEqual({ kind: 'token', error: 'invalid_grant' });
    expect(
      signInFailureOf(new Error('nonce in id_token does not match nonce in client storage')),
    ).toMatchObject({
      kind: 'nonce',
    });
    expect(signInFailureOf(new Error('No matching state found in storage'))).toMatchObject({ kind: 'state' });
    expect(signInFailureOf(new TypeError('Failed to fetch'))).toEqual({
      kind: 'token',
      description: 'Failed to fetch',
    });
  });

  it("the way back from the provider's sign-out: its state is checked and dropped from the address", async () => {
    const t = setup();
    const { navigateTo } = await t.core.initialize('http://localhost/?lang=fr&state=s-1', '/auth/callback');
    expect(t.port.completeLogout).toHaveBeenCalledWith('http://localhost/?lang=fr&state=s-1');
    expect(navigateTo).toBe('/?lang=fr');
    expect(t.logger.warn).not.toHaveBeenCalled();

    const forged = setup();
    forged.port.completeLogout.mockRejectedValueOnce(new Error('No matching state found in storage'));
    expect((await forged.core.initialize('http://localhost/?state=x', '/auth/callback')).navigateTo).toBe(
      '/',
    );
    expect(forged.logger.warn).toHaveBeenCalledWith(
      expect.stringContaining('unknown state'),
      expect.any(Error),
    );
    expect(forged.core.getSnapshot()).toMatchObject({ status: 'none', signInFailure: null });

    const plain = setup();
    expect(await plain.core.initialize('http://localhost/races', '/auth/callback')).toEqual({});
    expect(plain.port.completeLogout).not.toHaveBeenCalled();
  });

  it('the catalogue texts', () => {
    expect(new AuthError('unexpected_error').message).toBe('Unexpected error in authentication.');
    expect(Object.keys(AUTH_ERROR_MESSAGES).sort()).toEqual(
      [
        'bad_token',
        'interaction_required',
        'login_failed',
        'no_account',
        'refresh_token_expired',
        'unexpected_error',
      ].sort(),
    );
  });
});

describe('helpers', () => {
  it('account from ID token claims: oid (or sub), name, email, groups', () => {
    expect(accountFromClaims({ sub: 's', oid: 'o', name: 'N', email: 'e@x', groups: ['g'] })).toEqual({
      id: 'o',
      name: 'N',
      email: 'e@x',
      groups: ['g'],
    });
    // groups as one string (Glewlwyd): one group, or several comma- or space-separated.
    expect(accountFromClaims({ sub: 's', groups: 'g1' }).groups).toEqual(['g1']);
    expect(accountFromClaims({ sub: 's', groups: 'g1, g2 g3' }).groups).toEqual(['g1', 'g2', 'g3']);
    expect(accountFromClaims({ sub: 's', groups: 7 }).groups).toEqual([]);
    expect(accountFromClaims({ sub: 's', preferred_username: 'u@x' })).toEqual({
      id: 's',
      name: undefined,
      email: 'u@x',
      groups: [],
    });
  });

  it('ownership: oid equals DirectorId', () => {
    expect(isOwner(dana, { DirectorId: 'oid-dana' })).toBe(true);
    expect(isOwner(dana, { DirectorId: 'oid-drew' })).toBe(false);
    expect(isOwner(null, { DirectorId: 'oid-dana' })).toBe(false);
    expect(isOwner({ id: '' }, { DirectorId: '' })).toBe(false);
  });

  it('only same-site paths are followed after sign-in', () => {
    expect(safeReturnPath('/race/3?x=1')).toBe('/race/3?x=1');
    expect(safeReturnPath('//evil.example/')).toBe('/');
    expect(safeReturnPath('https://evil.example/')).toBe('/');
    expect(safeReturnPath('/auth/callback?code=1')).toBe('/');
    expect(safeReturnPath(undefined)).toBe('/');
  });
});
