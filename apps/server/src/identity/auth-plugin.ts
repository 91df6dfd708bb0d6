import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../lib/errors';
import { createTokenVerifier, discoverIssuer, TokenError, type TokenVerifier } from './token-verifier';
import type { AuthUser } from '../types';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Installs the verifier. With an external OIDC_ISSUER this plugin does it through discovery; the embedded
     * provider plugin calls it with its own key set (same verification code, different key source).
     */
    setTokenVerifier(verifier: TokenVerifier): void;
  }
}

/** Paths that carry their own credentials (device webhooks) or none (the identity provider itself). */
const SKIP_PREFIXES = ['/api/ingest/', '/oidc'];

export default fp(async (app) => {
  const { config } = app;
  let verifier: TokenVerifier | null = null;
  let pending: Promise<TokenVerifier> | null = null;

  app.decorate('setTokenVerifier', (v: TokenVerifier) => {
    verifier = v;
  });
  app.decorateRequest('user', null);

  async function getVerifier(): Promise<TokenVerifier> {
    if (verifier) return verifier;
    if (config.embeddedIdp)
      throw new Error('The embedded identity provider has not installed a token verifier.');
    // External issuer: discovery once (retried on the next request if it failed).
    pending ??= discoverIssuer(config.issuer)
      .then(({ issuer, getKey }) => {
        verifier = createTokenVerifier({
          issuer,
          audience: config.audience,
          apiScope: config.apiScope,
          adminGroupId: config.adminGroupId,
          getKey,
        });
        return verifier;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  }

  async function authenticate(request: FastifyRequest, reply: FastifyReply, header: string): Promise<void> {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      reply.header('WWW-Authenticate', 'Bearer error="invalid_request"');
      throw new HttpError(401, 'invalid_token', 'The Authorization header must be "Bearer <access token>".');
    }
    let v: TokenVerifier;
    try {
      v = await getVerifier();
    } catch (err) {
      request.log.error({ err }, 'token verification unavailable');
      throw new HttpError(503, 'auth_unavailable', 'Sign-in verification is temporarily unavailable.');
    }
    try {
      request.user = await v(match[1]);
    } catch (err) {
      if (err instanceof TokenError) {
        const status = err.code === 'insufficient_scope' ? 403 : 401;
        reply.header('WWW-Authenticate', `Bearer error="${err.code}"`);
        throw new HttpError(status, err.code, err.message);
      }
      throw err;
    }
  }

  // Synchronous for the requests without a token (devices, anonymous pages): no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.authorization;
    if (!header || SKIP_PREFIXES.some((p) => request.url.startsWith(p))) return done();
    authenticate(request, reply, header).then(() => done(), done);
  });
});

export function requireUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new HttpError(401, 'unauthorized', 'Sign-in required.');
  return request.user;
}

export function requireAdmin(request: FastifyRequest): AuthUser {
  const user = requireUser(request);
  if (!user.isAdmin) throw new HttpError(403, 'forbidden', 'Administrators only.');
  return user;
}
