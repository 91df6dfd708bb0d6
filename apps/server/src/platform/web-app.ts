import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import './security-headers';

/** The web app's hidden-frame token renewal page: framed by the app itself, so it may be framed by its own origin. */
const SILENT_RENEW_PATH = '/auth/silent-renew';

export const webDist = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Serves the built web app; unknown non-API GETs get index.html so client-side routes load. */
export default fp(async (app) => {
  if (!existsSync(webDist)) {
    app.log.warn(`web app not built (${webDist} missing): run "npm run build"`);
    return;
  }
  await app.register(fastifyStatic, { root: webDist, wildcard: false, index: false, maxAge: '1h' });
  const sendIndex = (reply: import('fastify').FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', { maxAge: 0 });
  app.get('/', (_req, reply) => sendIndex(reply));
  app.get('/*', (request, reply) => {
    const url = request.url.split('?')[0];
    if (url.startsWith('/api/') || url.startsWith('/oidc')) {
      return reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${url}.` });
    }
    // Hashed assets and other files under dist are served as files; everything else is a client-side route.
    if (url.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(url)) {
      return reply.sendFile(url.slice(1));
    }
    if (url === SILENT_RENEW_PATH) reply.securityHeaders({ frameAncestors: ["'self'"] });
    return sendIndex(reply);
  });
});
