import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import './security-headers';

/** The web app's hidden-frame token renewal page: framed by the app itself, so it may be framed by its own origin. */
const SILENT_RENEW_PATH = '/auth/silent-renew';
/** The pages made for an <iframe> on a race's own site (/embed/race/{id}?view=…): the web app's embed routes. */
export const EMBED_PREFIX = '/embed/';

/**
 * The path of a request URL as a browser resolves it: dot segments (`..`, `.`, `%2e%2e`) applied, backslashes read
 * as slashes, repeated slashes collapsed, the query left out. What headers a page gets is decided on this.
 */
export function normalisedPath(rawUrl: string): string {
  const raw = rawUrl.split('?')[0];
  try {
    return new URL(`http://h${raw.startsWith('/') ? '' : '/'}${raw}`).pathname.replace(/\/{2,}/g, '/');
  } catch {
    return '/';
  }
}

export const webDist = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Built assets (hashed names, never changed in place): cached for a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Files without a hash in their name (favicon, robots.txt…): kept an hour. */
const OTHER_FILES_MAX_AGE_MS = 3600_000;

/**
 * Serves the built web app; unknown non-API GETs get index.html so client-side routes load. index.html (and the SPA
 * fallback) is `no-cache`: revalidated on every visit (ETag), so a new release is seen at once, while its hashed
 * assets under /assets/ are immutable. Files with a precompressed .br/.gz beside them (written by the web build) are
 * sent as such to browsers that accept it; the rest is compressed on the fly (platform/compression.ts).
 */
export default fp<{ root?: string }>(async (app, opts) => {
  const root = opts.root ?? webDist;
  if (!existsSync(root)) {
    app.log.warn(`web app not built (${root} missing): run "npm run build"`);
    return;
  }
  await app.register(fastifyStatic, {
    root,
    // No route per file: every file goes through the catch-all below, which decides its caching.
    serve: false,
    index: false,
    maxAge: OTHER_FILES_MAX_AGE_MS,
    preCompressed: true,
  });
  const sendIndex = (reply: import('fastify').FastifyReply) =>
    reply
      .header('vary', 'Accept-Encoding')
      .header('cache-control', 'no-cache')
      .sendFile('index.html', { cacheControl: false });
  app.get('/', (_req, reply) => sendIndex(reply));
  app.get('/*', (request, reply) => {
    const url = request.url.split('?')[0];
    if (url.startsWith('/api/') || url.startsWith('/oidc')) {
      return reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${url}.` });
    }
    // Hashed assets and other files under dist are served as files; everything else is a client-side route.
    if (url.startsWith('/assets/')) {
      // send writes IMMUTABLE from these: 'public, max-age=31536000, immutable'
      return reply
        .header('vary', 'Accept-Encoding')
        .sendFile(url.slice(1), { maxAge: 31_536_000_000, immutable: true });
    }
    if (/\.[a-z0-9]+$/i.test(url)) return reply.header('vary', 'Accept-Encoding').sendFile(url.slice(1));
    // Headers are chosen on the path as a browser resolves it (`/embed/../admin/devices` is /admin/devices, and is
    // never framed), not on the raw text.
    const path = normalisedPath(request.url);
    if (path === SILENT_RENEW_PATH) reply.securityHeaders({ frameAncestors: ["'self'"] });
    // The embeddable race views: framed by the race's own site (EMBED_FRAME_ANCESTORS), and only they.
    if (path.startsWith(EMBED_PREFIX))
      reply.securityHeaders({ frameAncestors: app.config.EMBED_FRAME_ANCESTORS });
    return sendIndex(reply);
  });
});
