import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { OIDC_MOUNT } from './provider';

/**
 * oidc-provider is a Koa app: it gets the raw request with the mount prefix stripped from `url` and kept in
 * `originalUrl` (how oidc-provider computes its own URLs when mounted, see its "Mounting" docs). Bodies are
 * left unread for it: it parses its own.
 */
export async function providerMount(app: FastifyInstance, { provider }: { provider: Provider }) {
  app.addHook('onRequest', forwardFastifyView);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  const callback = provider.callback();
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const req = request.raw as IncomingMessage & { originalUrl?: string };
    const full = req.url ?? OIDC_MOUNT;
    const rest = full.slice(OIDC_MOUNT.length);
    req.originalUrl = full;
    req.url = rest.startsWith('/') ? rest : `/${rest}`;
    await callback(req, reply.raw);
  };
  app.all(OIDC_MOUNT, handler);
  app.all(`${OIDC_MOUNT}/*`, handler);
}

/**
 * oidc-provider is a Koa app with `proxy = true` (provider.ts): it takes the scheme (Secure cookies), host and client
 * address from X-Forwarded-*, believing any client and the leftmost address. Hand it what Fastify derived under
 * TRUST_PROXY instead, so those headers count only when a trusted proxy set them, exactly as for the rest of the app.
 */
export async function forwardFastifyView(request: FastifyRequest) {
  const { protocol, host, ip } = request;
  const headers = request.raw.headers;
  headers['x-forwarded-proto'] = protocol;
  if (host) headers['x-forwarded-host'] = host;
  else delete headers['x-forwarded-host'];
  headers['x-forwarded-for'] = ip;
}
