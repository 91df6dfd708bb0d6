import fp from 'fastify-plugin';
import { createLocalJWKSet } from 'jose';
import type Provider from 'oidc-provider';
import { createAccountStore, DEMO_ACCOUNTS } from './accounts';
import interactionRoutes from './interaction-routes';
import { loadProviderSecrets, publicJwks } from './keys';
import { createProvider } from './provider';
import { providerMount } from './provider-mount';
import { createTokenVerifier } from './token-verifier';

export interface OidcPluginOptions {
  /** Access token lifetime in seconds (default 600). */
  accessTokenTtl?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The embedded identity provider (only when no external OIDC_ISSUER is configured). */
    oidcProvider?: Provider;
  }
}

/**
 * Mounts the embedded OpenID Connect provider under /oidc when no external issuer is configured, with its
 * sign-in / sign-up pages, and installs the API's token verifier on the provider's own keys (the same
 * createTokenVerifier as for external issuers). With OIDC_ISSUER set nothing is mounted.
 */
export default fp<OidcPluginOptions>(
  async (app, opts) => {
    const { config } = app;
    if (!config.embeddedIdp) return;
    if (config.publicUrl.startsWith('https:') && !config.TRUST_PROXY) {
      app.log.warn(
        'PUBLIC_URL is https but TRUST_PROXY is off: the sign-in provider sees plain http requests (http:// endpoints ' +
          'in its discovery document, no Secure cookies). Behind a TLS-terminating proxy, set TRUST_PROXY.',
      );
    }

    const accounts = createAccountStore(app.db, {
      adminEmails: config.ADMIN_EMAILS,
      adminGroupId: config.adminGroupId,
    });
    if (config.demoAccounts) {
      await accounts.seedDemoAccounts(config.adminGroupId);
      const demoAdmin = (await accounts.demoAccounts()).find(
        (a) => a.email.toLowerCase() === DEMO_ACCOUNTS.admin.email,
      );
      if (demoAdmin) {
        app.log.warn(
          `DEMO_ACCOUNTS is on: anyone who reaches this server can sign in as the demo administrator ` +
            `(${DEMO_ACCOUNTS.admin.email}) with one click. Set DEMO_ACCOUNTS=off on a server others can reach.`,
        );
      }
    }
    const secrets = await loadProviderSecrets(app.db);
    const provider = createProvider({
      config,
      db: app.db,
      accounts,
      secrets,
      accessTokenTtl: opts.accessTokenTtl,
    });
    provider.on('server_error', (_ctx, err) => app.log.error({ err }, 'oidc provider error'));
    app.decorate('oidcProvider', provider);

    app.setTokenVerifier(
      createTokenVerifier({
        issuer: config.issuer,
        audience: config.audience,
        apiScope: config.apiScope,
        adminGroupId: config.adminGroupId,
        getKey: createLocalJWKSet(publicJwks(secrets)),
      }),
    );

    await app.register(interactionRoutes, { provider, accounts });
    await app.register(providerMount, { provider });
  },
  { name: 'oidc-provider', dependencies: [] },
);
