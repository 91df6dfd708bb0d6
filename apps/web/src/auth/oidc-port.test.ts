import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InMemoryWebStorage, type INavigator } from 'oidc-client-ts';
import {
  authorizationScope,
  createOidcPort,
  LOGIN_SCOPES,
  newNonce,
  OIDC_SCOPES,
  type AuthSettings,
} from './oidc-port';
import { SignInError } from './errors';

/**
 * The port on the real oidc-client-ts, in Node: session storage is an in-memory Storage, navigation is captured
 * by injected navigators, and the provider's HTTP endpoints are answered by an injected fetch (the transport).
 */
const AUTHORITY = 'http://localhost:4321/oidc';
const settings: AuthSettings = {
  authority: AUTHORITY,
  clientId: 'racebeacon-web',
  scope: 'api://racebeacon/races.manage',
  adminGroupId: 'racebeacon-admins',
  redirectUri: 'http://localhost:4321/auth/callback',
  postLogoutRedirectUri: 'http://localhost:4321/',
};

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const idToken = (claims: object) =>
  `${b64({ alg: 'none' })}.${b64({ iss: AUTHORITY, aud: 'racebeacon-web', ...claims })}.`;

const discovery = {
  issuer: AUTHORITY,
  authorization_endpoint: `${AUTHORITY}/auth`,
  token_endpoint: `${AUTHORITY}/token`,
  end_session_endpoint: `${AUTHORITY}/session/end`,
  jwks_uri: `${AUTHORITY}/jwks`,
};

interface TokenCall {
  body: URLSearchParams;
}

function fakeProvider() {
  const tokenCalls: TokenCall[] = [];
  /** The nonce the provider puts in the ID token it issues for a code (as a provider does: the request's). */
  const nonces = new Map<string, string | null>();
  let n = 0;
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/.well-known/openid-configuration')) return Response.json(discovery);
    if (url === discovery.token_endpoint) {
      const body = new URLSearchParams(String(init?.body));
      tokenCalls.push({ body });
      n += 1;
      if (body.get('code') === 'used-code') {
        return Response.json(
          { error: 'invalid_grant', error_description: 'authorization code is invalid' },
          { status: 400 },
        );
      }
      if (body.get('refresh_token') === 'revoked') {
        return Response.json(
          { error: 'invalid_grant', error_description: 'grant request is invalid' },
          { status: 400 },
        );
      }
      return Response.json({
        access_token: `at-${n}`,
        token_type: 'Bearer',
        expires_in: 600,
        scope: settings.scope,
        refresh_token: `rt-${n}`,
        refresh_token_expires_in: 86_400,
        ...(body.get('grant_type') === 'authorization_code'
          ? {
              id_token: idToken({
                sub: 'u-1',
                oid: 'u-1',
                name: 'Dana Director',
                groups: ['g-1'],
                ...(nonces.get(body.get('code')!) ? { nonce: nonces.get(body.get('code')!) } : {}),
              }),
            }
          : {}),
      });
    }
    return new Response('not found', { status: 404 });
  });
  return { fetchMock, tokenCalls, nonces };
}

function capturingNavigator(answer?: (url: URL) => string) {
  const urls: URL[] = [];
  const navigator: INavigator = {
    prepare: async () => ({
      navigate: async (params) => {
        const url = new URL(params.url);
        urls.push(url);
        return { url: answer ? answer(url) : '' };
      },
      close: () => undefined,
    }),
    callback: async () => undefined,
  };
  return { navigator, urls };
}

describe('oidc-client-ts port', () => {
  let provider: ReturnType<typeof fakeProvider>;
  beforeEach(() => {
    provider = fakeProvider();
    vi.stubGlobal('fetch', provider.fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('login scope list is empty: the authorization request asks only OIDC scopes plus the API scope', () => {
    expect(LOGIN_SCOPES).toEqual([]);
    expect(OIDC_SCOPES).toEqual(['openid', 'profile', 'email', 'offline_access']);
    expect(authorizationScope(settings)).toBe(
      'openid profile email offline_access api://racebeacon/races.manage',
    );
  });

  it('redirect sign-in: code flow with PKCE S256, state in session storage; the callback stores tokens there', async () => {
    const storage = new InMemoryWebStorage();
    const redirect = capturingNavigator();
    const port = createOidcPort(settings, { storage, redirectNavigator: redirect.navigator });
    await port.redirectToLogin({ returnTo: '/my-races' });
    const [url] = redirect.urls;
    expect(url.origin + url.pathname).toBe(`${AUTHORITY}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'racebeacon-web',
      redirect_uri: settings.redirectUri,
      response_type: 'code',
      scope: 'openid profile email offline_access api://racebeacon/races.manage',
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.has('prompt')).toBe(false);
    const state = url.searchParams.get('state')!;
    expect(storage.getItem(`oidc.${state}`)).toContain('code_verifier');
    // A nonce, kept with the state and the PKCE verifier; the ID token must carry it.
    const nonce = url.searchParams.get('nonce')!;
    expect(nonce).toMatch(/^[\w-]{43}$/);
    expect(JSON.parse(storage.getItem(`oidc.${state}`)!)).toMatchObject({ nonce });
    provider.nonces.set('c-1', nonce);

    const { tokens, returnTo } = await port.completeLogin(`${settings.redirectUri}?code=c-1&state=${state}`);
    expect(returnTo).toBe('/my-races');
    expect(provider.tokenCalls[0].body.get('grant_type')).toBe('authorization_code');
    expect(provider.tokenCalls[0].body.get('code_verifier')).toMatch(/^[\w-]{43,}$/);
    expect(tokens).toMatchObject({
      account: { id: 'u-1', name: 'Dana Director', groups: ['g-1'] },
      accessToken: 'at-1',
      refreshToken: 'rt-1',
      scopes: [settings.scope],
    });
    // refresh_token_expires_in is kept (for the 300 s offset).
    expect(tokens.refreshExpiresAt! - Math.floor(Date.now() / 1000)).toBeGreaterThan(86_390);
    expect(storage.getItem(`oidc.user:${AUTHORITY}:racebeacon-web`)).toContain('"access_token":"at-1"');
    expect(storage.getItem(`oidc.${state}`) ?? null).toBeNull(); // state consumed
  });

  it('sign-up asks the provider to create an account (prompt=create)', async () => {
    const redirect = capturingNavigator();
    const port = createOidcPort(settings, {
      storage: new InMemoryWebStorage(),
      redirectNavigator: redirect.navigator,
    });
    await port.redirectToLogin({ prompt: 'create', returnTo: '/' });
    expect(redirect.urls[0].searchParams.get('prompt')).toBe('create');
  });

  async function signedIn() {
    const storage = new InMemoryWebStorage();
    const redirect = capturingNavigator();
    const frame = capturingNavigator((url) => {
      provider.nonces.set('frame-code', url.searchParams.get('nonce'));
      return `http://localhost:4321/auth/silent-renew?code=frame-code&state=${url.searchParams.get('state')}`;
    });
    const port = createOidcPort(settings, {
      storage,
      redirectNavigator: redirect.navigator,
      iframeNavigator: frame.navigator,
    });
    await port.redirectToLogin({ returnTo: '/' });
    const state = redirect.urls[0].searchParams.get('state');
    provider.nonces.set('c', redirect.urls[0].searchParams.get('nonce'));
    const { tokens } = await port.completeLogin(`${settings.redirectUri}?code=c&state=${state}`);
    return { port, storage, frame, tokens };
  }

  it('refresh: refresh-token grant with the granted scope; keeps the ID token and account; rotates the refresh token', async () => {
    const { port, tokens } = await signedIn();
    const renewed = await port.refresh(tokens, settings.scope);
    const call = provider.tokenCalls.at(-1)!.body;
    expect(call.get('grant_type')).toBe('refresh_token');
    expect(call.get('refresh_token')).toBe('rt-1');
    expect(call.get('scope')).toBe(settings.scope);
    expect(renewed).toMatchObject({ accessToken: 'at-2', refreshToken: 'rt-2', idToken: tokens.idToken });
    expect(renewed.account).toEqual(tokens.account);
    await expect(port.load()).resolves.toMatchObject({ accessToken: 'at-2' });
  });

  it('a refused refresh token surfaces as invalid_grant (mapped to bad_token by the core)', async () => {
    const { port, storage, tokens } = await signedIn();
    const key = `oidc.user:${AUTHORITY}:racebeacon-web`;
    storage.setItem(key, storage.getItem(key)!.replace('"rt-1"', '"revoked"'));
    await expect(port.refresh(tokens, settings.scope)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('hidden-frame renewal: prompt=none on the silent-renew page, never the refresh token', async () => {
    const { port, frame, tokens } = await signedIn();
    const before = provider.tokenCalls.length;
    const renewed = await port.renewInFrame(tokens, settings.scope);
    expect(frame.urls).toHaveLength(1);
    expect(frame.urls[0].searchParams.get('prompt')).toBe('none');
    expect(frame.urls[0].searchParams.get('redirect_uri')).toBe('http://localhost:4321/auth/silent-renew');
    expect(frame.urls[0].searchParams.get('nonce')).toMatch(/^[\w-]{43}$/);
    // The ID token as a hint (OIDC Core: SHOULD with prompt=none). Glewlwyd 2.7 answers interaction_required
    // "id_token mandatory" without it, so every frame renewal there fell back to an interactive sign-in.
    expect(tokens.idToken).toBeTruthy();
    expect(frame.urls[0].searchParams.get('id_token_hint')).toBe(tokens.idToken);
    const calls = provider.tokenCalls.slice(before).map((c) => c.body.get('grant_type'));
    expect(calls).toEqual(['authorization_code']);
    expect(renewed.accessToken).toBe(`at-${before + 1}`);
  });

  it('logout ends the provider session with the ID token and a state, and checks the state on the way back to /', async () => {
    const { port, tokens, storage } = await signedIn();
    const redirect = capturingNavigator();
    const out = createOidcPort(settings, { storage, redirectNavigator: redirect.navigator });
    await out.redirectToLogout(tokens.idToken);
    const [url] = redirect.urls;
    expect(url.origin + url.pathname).toBe(`${AUTHORITY}/session/end`);
    expect(url.searchParams.get('id_token_hint')).toBe(tokens.idToken);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('http://localhost:4321/');
    const state = url.searchParams.get('state')!;
    expect(state).toMatch(/^\w{32}$/);
    await expect(port.load()).resolves.toBeNull();

    // The provider comes back to / with the state: known once, then consumed; a forged one is refused.
    const back = `http://localhost:4321/?state=${state}`;
    expect(out.isLogoutReturn(back)).toBe(true);
    expect(out.isLogoutReturn('http://localhost:4321/')).toBe(false);
    expect(out.isLogoutReturn(`http://localhost:4321/races?state=${state}`)).toBe(false);
    await expect(out.completeLogout('http://localhost:4321/?state=forged')).rejects.toThrow(
      'No matching state found in storage',
    );
    await expect(out.completeLogout(back)).resolves.toBeUndefined();
    await expect(out.completeLogout(back)).rejects.toThrow('No matching state found in storage');
  });

  describe('a failed sign-in says why (SignInError), and where it started', () => {
    async function started() {
      const storage = new InMemoryWebStorage();
      const redirect = capturingNavigator();
      const port = createOidcPort(settings, { storage, redirectNavigator: redirect.navigator });
      await port.redirectToLogin({ returnTo: '/races/7' });
      const url = redirect.urls[0];
      return { port, state: url.searchParams.get('state')!, nonce: url.searchParams.get('nonce')! };
    }
    const failureOf = (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error('expected the sign-in to fail');
        },
        (err: unknown) => {
          expect(err).toBeInstanceOf(SignInError);
          return (err as SignInError).failure;
        },
      );

    it('the provider refused (error, error_description on the callback)', async () => {
      const { port, state } = await started();
      const failure = await failureOf(
        port.completeLogin(
          `${settings.redirectUri}?error=access_denied&error_description=The+user+said+no&state=${state}`,
        ),
      );
      expect(failure).toEqual({
        kind: 'provider',
        error: 'access_denied',
        description: 'The user said no',
        returnTo: '/races/7',
      });
      expect(provider.tokenCalls).toHaveLength(0);
    });

    it('an ID token with another nonce, or none, is refused', async () => {
      for (const nonce of ['someone-elses-nonce', null]) {
        const { port, state } = await started();
        provider.nonces.set('c-n', nonce);
        const failure = await failureOf(
          port.completeLogin(`${settings.redirectUri}?code=c-n&state=${state}`),
        );
        expect(failure).toMatchObject({ kind: 'nonce', returnTo: '/races/7' });
        await expect(port.load()).resolves.toBeNull();
      }
    });

    it('the right nonce is accepted', async () => {
      const { port, state, nonce } = await started();
      provider.nonces.set('c-ok', nonce);
      await expect(
        port.completeLogin(`${settings.redirectUri}?code=c-ok&state=${state}`),
      ).resolves.toMatchObject({
        returnTo: '/races/7',
      });
    });

    it('the token endpoint refused the code', async () => {
      const { port, state } = await started();
      const failure = await failureOf(
        port.completeLogin(`${settings.redirectUri}?code=used-code&state=${state}`),
      );
      expect(failure).toEqual({
        kind: 'token',
        error: 'invalid_grant',
        description: 'authorization code is invalid',
        returnTo: '/races/7',
      });
    });

    it("an answer to no sign-in started here: state, and the provider's words are not repeated", async () => {
      const { port } = await started();
      const failure = await failureOf(
        port.completeLogin(
          `${settings.redirectUri}?error=access_denied&error_description=Call+us&state=forged`,
        ),
      );
      expect(failure.kind).toBe('state');
      expect(failure.returnTo).toBeUndefined();
      expect(JSON.stringify(failure)).not.toContain('Call us');
    });
  });

  it('a nonce is 32 random bytes, base64url, never the same twice', () => {
    const seen = new Set(Array.from({ length: 50 }, () => newNonce()));
    expect(seen.size).toBe(50);
    for (const n of seen) expect(n).toMatch(/^[\w-]{43}$/);
  });

  it('clear forgets the cached user', async () => {
    const { port } = await signedIn();
    await port.clear();
    await expect(port.load()).resolves.toBeNull();
  });
});
