import fp from 'fastify-plugin';
import { HttpError } from '../lib/errors';
import { ID_RULE, parseId } from '../lib/http-schemas';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Streaming uploads (multipart) are not bound by Fastify's bodyLimit: a route sets its own ceiling here and a
     * request whose Content-Length exceeds it is refused on the header, before a byte of the body is read.
     */
    maxUploadBytes?: number;
  }
}

/** A route parameter holding an id: `id`, `raceId`, `runnerId`, `deviceId`, … */
const isIdParam = (name: string) => name === 'id' || /^[a-z][A-Za-z]*Id$/.test(name);

const printable = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** 400 invalid_text: PostgreSQL text cannot hold U+0000, and no field of this API has a use for it. */
export function nulError(field: string): HttpError {
  return new HttpError(
    400,
    'invalid_text',
    `${field} contains a NUL character (U+0000), which is not allowed in any text.`,
  );
}

/** Throws invalid_text when a multipart text field (or a file name) carries a NUL. */
export function assertNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) throw nulError(field);
}

/**
 * Where a NUL sits in a parsed value (strings, and the keys and values of objects and arrays at any depth), as a
 * dotted path under `root`; null when there is none. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function findNul(value: unknown, root: string): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\u0000')) return path ? `A field name in ${path}` : 'A field name';
        stack.push([item, path ? `${path}.${k}` : k]);
      }
    }
  }
  return null;
}

/** A body some routes read as raw text and parse themselves (device webhooks): JSON inside is checked too. */
function nulInText(text: string): string | null {
  if (text.includes('\u0000')) return 'body';
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return null;
  try {
    return findNul(JSON.parse(text), 'body');
  } catch {
    return null;
  }
}

/** Whether a parsed query or body holds a NUL anywhere (fast path: no field paths built unless it does). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasNul(value[i])) return true;
    return false;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (k.includes('\u0000') || hasNul((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/** Whether an object is empty (no own enumerable key). */
function isEmpty(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

/**
 * Input rules every route shares, in one place, before any route code or schema runs:
 * - an upload whose Content-Length exceeds its route's `maxUploadBytes` → 413 at once (onRequest, before the
 *   auth hook and before the body is read; the connection is closed instead of draining the body);
 * - an id-named path parameter that is not a decimal id in the column's range → 400 `invalid_id`;
 * - a NUL character in any path parameter, query parameter or parsed body (JSON, form, raw text) → 400
 *   `invalid_text` naming the field. Multipart fields are read by their route, which calls assertNoNul.
 * Register before the auth plugin so the size check runs first.
 *
 * Synchronous hooks (no promise per request): the size check looks at the route only for a request declaring more
 * than the smallest `maxUploadBytes` of any route; the NUL check walks the input without building field paths, and names the field only when it found one.
 */
export default fp(
  async (app) => {
    // The smallest `maxUploadBytes` of any route: a request declaring no more than it needs no look at its route.
    let smallestMax = Infinity;
    app.addHook('onRoute', (route) => {
      const max = route.config?.maxUploadBytes;
      if (max) smallestMax = Math.min(smallestMax, max);
    });
    app.addHook('onRequest', (request, reply, done) => {
      const length = request.headers['content-length'];
      if (length === undefined) return done();
      const declared = Number(length);
      if (!(declared > smallestMax)) return done();
      const max = request.routeOptions.config?.maxUploadBytes;
      if (!max || !(declared > max)) return done();
      reply.header('connection', 'close');
      done(
        new HttpError(
          413,
          'file_too_large',
          `The upload is ${(declared / 1024 / 1024).toFixed(1)} MB; at most ${Math.floor(max / 1024 / 1024)} MB is accepted.`,
        ),
      );
    });

    app.addHook('preValidation', (request, _reply, done) => {
      const params = request.params as Record<string, unknown> | undefined;
      if (params && typeof params === 'object') {
        for (const name in params) {
          const value = params[name];
          if (typeof value !== 'string') continue;
          if (isIdParam(name) && parseId(value) === null) {
            return done(new HttpError(400, 'invalid_id', `${name} ${ID_RULE}; got ${printable(value)}.`));
          }
          if (value.includes('\u0000')) return done(nulError(name));
        }
      }
      const query = request.query;
      if (query && typeof query === 'object' && !isEmpty(query) && hasNul(query)) {
        return done(nulError(`Query parameter ${findNul(query, '')}`));
      }
      const body = request.body;
      if (body !== undefined && body !== null) {
        const inBody = typeof body === 'string' ? nulInText(body) : hasNul(body) ? findNul(body, '') : null;
        if (inBody !== null) return done(nulError(inBody || 'The body'));
      }
      done();
    });
  },
  { name: 'input-guard' },
);
