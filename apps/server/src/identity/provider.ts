import Provider, {
  errors,
  interactionPolicy,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { createAdapterClass } from './adapter';
import type { AccountStore } from './accounts';
import type { ProviderSecrets } from './keys';
import { logoutPage, messagePage } from './pages';

/** Where the embedded provider is served: its issuer is `${PUBLIC_URL}/oidc`. */
export const OIDC_MOUNT = '/oidc';

/** OIDC scopes of our own web client. The API scope comes on top, from the resource server below. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

export interface ProviderOptions {
  config: Config;
  db: Db;
  accounts: AccountStore;
  secrets: ProviderSecrets;
  /** Access token lifetime in seconds (short: 10 minutes). */
  accessTokenTtl?: number;
}

export function apiResourceIndicator(audience: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(audience) ? audience : `urn:racebeacon:resource:${audience}`;
}

/**
 * The embedded OpenID Connect provider (oidc-provider 8). Issuer `${PUBLIC_URL}/oidc`; one public client (the
 * web app) doing authorization code + PKCE S256 with rotating refresh tokens; JWT access tokens for the API
 * audience through resource indicators (RFC 8707; the API is the default resource, as clients written for Entra
 * never send one); consent implicit for our own client.
 */
export function createProvider(opts: ProviderOptions): Provider {
  const { config, accounts, secrets } = opts;
  const accessTokenTtl = opts.accessTokenTtl ?? 600;
  const isOwnClient = (clientId: string | undefined) => clientId === config.clientId;
  // A resource indicator must be an absolute URI (RFC 8707); the audience need not be ('racebeacon-api').
  const resource = apiResourceIndicator(config.audience);

  // prompt=create (OIDC "Initiating User Registration") opens the sign-up form; it must be a requestable
  // prompt or the provider rejects it as unsupported. It goes first so it wins over login.
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: 'create', requestable: true }), 0);

  const configuration: Configuration = {
    adapter: createAdapterClass(opts.db),
    clients: [
      {
        client_id: config.clientId,
        client_name: config.PRODUCT_NAME,
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // The code comes back in the query (oidc-client-ts's default); form_post and fragment are refused.
        response_modes: ['query'],
        redirect_uris: [
          `${config.publicUrl}/`,
          `${config.publicUrl}/auth/callback`,
          `${config.publicUrl}/auth/silent-renew`,
        ],
        post_logout_redirect_uris: [`${config.publicUrl}/`],
      },
    ],
    // Authorization code only: no implicit or hybrid response types (and so no implicit grant) are offered.
    responseTypes: ['code'],
    jwks: secrets.jwks as Configuration['jwks'],
    // HttpOnly and SameSite=Lax (the sign-in form posts back to the provider, then the code goes to the app by a
    // top-level redirect); Secure is set by oidc-provider whenever the request is https (its own scheme, or
    // X-Forwarded-Proto from a proxy TRUST_PROXY names).
    cookies: {
      keys: secrets.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    pkce: { methods: ['S256'], required: () => true },
    // The browser calls the token endpoint with an Origin header: allow the origins of the client's own
    // redirect URIs (the web app), nobody else.
    clientBasedCORS(_ctx, origin, client) {
      return client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false;
    },
    scopes: OIDC_SCOPES,
    claims: {
      openid: ['sub', 'oid', 'groups'],
      profile: ['name'],
      email: ['email'],
    },
    // ID tokens carry name/email/oid/groups whatever the access token's audience: by default oidc-provider keeps
    // only `sub` in an ID token issued beside an access token for a resource.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const account = await accounts.findById(sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        async claims() {
          return {
            sub: account.id,
            oid: account.id,
            name: account.name,
            email: account.email,
            groups: account.groups,
          };
        },
      };
    },
    async extraTokenClaims(_ctx, token) {
      const accountId = 'accountId' in token ? token.accountId : undefined;
      if (!accountId) return undefined;
      const account = await accounts.findById(accountId);
      if (!account) return undefined;
      return { oid: account.id, groups: account.groups, name: account.name, email: account.email };
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          // oidc-provider has validated an id_token_hint before this runs (an invalid one is an error page): it
          // proves the request came from the app only when it names the signed-in account. Otherwise: a click.
          const hint = ctx.oidc.entities.IdTokenHint as { payload?: { sub?: unknown } } | undefined;
          const auto =
            !!ctx.oidc.params?.id_token_hint &&
            hint?.payload?.sub !== undefined &&
            hint.payload.sub === ctx.oidc.session?.accountId;
          ctx.type = 'html';
          ctx.body = logoutPage(config.PRODUCT_NAME, form, auto);
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = messagePage(
            config.PRODUCT_NAME,
            'Signed out',
            'You are signed out.',
            `${config.publicUrl}/`,
          );
        },
      },
      resourceIndicators: {
        enabled: true,
        // Clients that follow Entra conventions never send `resource`: the API is the default (and only) one.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        async getResourceServerInfo(_ctx, resourceIndicator) {
          if (resourceIndicator !== resource) throw new errors.InvalidTarget();
          return {
            scope: config.apiScope,
            audience: config.audience,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // Refresh tokens for our public client even when a prompt was sent: oidc-provider drops offline_access from a
    // request with a prompt other than consent (prompt=create, prompt=none). They end with the session, so signing
    // out revokes them.
    async issueRefreshToken(_ctx, client, code) {
      if (!client.grantTypeAllowed('refresh_token')) return false;
      return code.scopes.has('offline_access') || client.clientAuthMethod === 'none';
    },
    expiresWithSession: async () => true,
    // Consent is implicit for our own client: a grant covering what it asks for is created on the fly.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) {
        const grant = await ctx.oidc.provider.Grant.find(grantId);
        if (grant) return grant;
      }
      if (!isOwnClient(ctx.oidc.client?.clientId) || !ctx.oidc.session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope(OIDC_SCOPES.join(' '));
      grant.addOIDCClaims(['oid', 'groups', 'name', 'email']);
      grant.addResourceScope(resource, config.apiScope);
      await grant.save();
      return grant;
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `${OIDC_MOUNT}/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = messagePage(
        config.PRODUCT_NAME,
        'Sign-in problem',
        `${out.error}: ${out.error_description ?? ''}`,
        `${config.publicUrl}/`,
      );
    },
  };

  const provider = new Provider(config.issuer, configuration);
  // Like Entra, tell the client when its (rotated) refresh token expires, so it can stop using one that is
  // about to (the web app's 300 s refresh-token offset).
  provider.use(async (ctx, next) => {
    await next();
    // The discovery document offers what the one client may use: the code in the query, nothing else.
    if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200 && ctx.body) {
      (ctx.body as Record<string, unknown>).response_modes_supported = ['query'];
      return;
    }
    const body = ctx.body as { refresh_token?: unknown } | undefined;
    if (ctx.path !== '/token' || ctx.status !== 200 || typeof body?.refresh_token !== 'string') return;
    const refreshToken = await provider.RefreshToken.find(body.refresh_token);
    if (refreshToken?.exp) {
      (body as Record<string, unknown>).refresh_token_expires_in =
        refreshToken.exp - Math.floor(Date.now() / 1000);
    }
  });
  // The public scheme/host and client address come from X-Forwarded-*: the plugin rewrites those headers to what
  // Fastify derived under TRUST_PROXY before every /oidc request, so a client cannot set them itself.
  provider.proxy = true;
  return provider;
}
