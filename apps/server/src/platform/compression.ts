import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Light on the wire: every buffered answer (API JSON, pages, static files) is compressed with brotli or gzip as the
 * browser accepts (@fastify/compress); answers above 1 KB only. A GET answer whose body is in memory carries a weak
 * ETag (a hash of the body) and is answered 304 to a matching If-None-Match, before anything is compressed.
 *
 * Bodies the server sends again and again as the same Buffer (the live leaderboard, serialised once per race
 * version) are hashed and compressed once: both are kept beside the Buffer (WeakMap, so they go with it).
 *
 * Not touched: hijacked replies — the live SSE streams (compressed in live/sse-compression.ts) and the OIDC
 * provider's pages — and the web app's files that have a precompressed .br/.gz beside them (platform/web-app.ts).
 */

/** Brotli quality for answers compressed on the fly: 4 is ~gzip-6 speed with smaller output (11 is for build time). */
export const DYNAMIC_BROTLI_QUALITY = 4;
export const COMPRESS_THRESHOLD = 1024;

export type WireEncoding = 'br' | 'gzip';

/** Whether an Accept-Encoding header accepts `encoding` (q=0 means "not acceptable"; `*` stands for the rest). */
export function acceptsEncoding(header: string | string[] | undefined, encoding: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const q = new Map<string, number>();
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(weight) ? weight : 0);
  }
  return q.has(encoding) ? q.get(encoding)! > 0 : (q.get('*') ?? 0) > 0;
}

/** The encoding to answer with for an Accept-Encoding header: brotli when accepted, else gzip, else none. */
export function pickEncoding(header: string | string[] | undefined): WireEncoding | null {
  if (acceptsEncoding(header, 'br')) return 'br';
  if (acceptsEncoding(header, 'gzip')) return 'gzip';
  return null;
}

/** Weak ETag of a body. */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Whether If-None-Match names this ETag (weak comparison, `*` matches anything). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  const wanted = bare(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === wanted);
}

interface BufferWire {
  etag?: string;
  br?: Buffer;
  gzip?: Buffer;
}
const bufferWire = new WeakMap<Buffer, BufferWire>();

function wireOf(body: Buffer): BufferWire {
  let w = bufferWire.get(body);
  if (!w) bufferWire.set(body, (w = {}));
  return w;
}

export function compressBody(body: Buffer | string, encoding: WireEncoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
        },
      })
    : gzipSync(body, { level: 6 });
}

const ETAG_TYPES = /^(application\/(json|geo\+json|gpx\+xml)|text\/html)/i;
/** Types worth compressing (text of any kind, JSON, JS, SVG, GPX/GeoJSON, source maps, web manifests). */
export const COMPRESSIBLE_TYPES =
  /^(text\/(?!event-stream)|application\/(json|javascript|xml|geo\+json|gpx\+xml|manifest\+json|ld\+json)|image\/svg\+xml)/i;

function addVary(reply: FastifyReply) {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/accept-encoding/i.test(vary))
    reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
}

function etagAndCache(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): string | Buffer | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (reply.statusCode !== 200) return undefined;
  const type = String(reply.getHeader('content-type') ?? '');
  if (!ETAG_TYPES.test(type)) return undefined;
  if (/no-store/i.test(String(reply.getHeader('cache-control') ?? ''))) return undefined;
  if (reply.getHeader('content-encoding')) return undefined;

  const wire = Buffer.isBuffer(payload) ? wireOf(payload) : null;
  let etag = reply.getHeader('etag') as string | undefined;
  if (!etag) {
    etag = wire ? (wire.etag ??= weakEtag(payload)) : weakEtag(payload);
    reply.header('etag', etag);
  }
  addVary(reply);
  if (etagMatches(request.headers['if-none-match'], etag)) {
    reply.code(304);
    reply.removeHeader('content-length');
    return '';
  }
  // A Buffer sent again as is: compress it once.
  if (wire && Buffer.isBuffer(payload) && payload.length >= COMPRESS_THRESHOLD) {
    const encoding = pickEncoding(request.headers['accept-encoding']);
    if (!encoding) return undefined;
    const compressed = (wire[encoding] ??= compressBody(payload, encoding));
    reply.header('content-encoding', encoding);
    reply.header('content-length', compressed.length);
    return compressed;
  }
  return undefined;
}

export default fp(
  async (app) => {
    // Global onSend: runs before @fastify/compress's per-route hook, so a 304 or a cached encoding skips it.
    // Synchronous (no promise per answer), and what is not a GET/HEAD 200 with a body in memory leaves at once.
    app.addHook('onSend', (request, reply, payload, done) => {
      done(null, etagAndCache(request, reply, payload) ?? payload);
    });
    await app.register(fastifyCompress, {
      global: true,
      // Request bodies stay as they are (device webhooks are plain; a compressed body is not worth a zip bomb).
      globalDecompression: false,
      encodings: ['br', 'gzip'],
      threshold: COMPRESS_THRESHOLD,
      customTypes: COMPRESSIBLE_TYPES,
      brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
      zlibOptions: { level: 6 },
    });
  },
  { name: 'compression' },
);
