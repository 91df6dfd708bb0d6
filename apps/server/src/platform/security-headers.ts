import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config';
import { COURSE_MAP_STYLE } from '../courses/map-page';
import { LOGOUT_SCRIPT, PAGE_STYLE } from '../identity/pages';
import { TEXT_PAGE_STYLE } from '../spectators/text-page';

/**
 * Security headers on every answer: pages, API answers, static files, and the embedded OIDC provider's pages
 * (which it writes itself, after Fastify hands it the raw response: so the headers are put on the raw response in
 * onRequest, not in onSend, which does not run for hijacked replies).
 *
 * The Content-Security-Policy allows our own origin, the tile server (TILE_URL) for images, and an external OIDC
 * issuer (OIDC_ISSUER and the endpoints of its discovery document) for the web app's token calls and its
 * hidden-frame renewal — nothing else external. Inline code is refused except fixed snippets allowed by hash: the
 * sign-in pages' stylesheet, the sign-out page's auto-submit and the course map page's stylesheet. Leaflet needs no inline styles (it
 * positions through element.style, which CSP does not restrict).
 *
 * frame-ancestors 'none' by default; a route may open it for itself with `config: { securityHeaders:
 * { frameAncestors: [...] } }`, or a handler with `reply.securityHeaders({ frameAncestors: [...] })`.
 */

export interface SecurityHeaderOverrides {
  /** CSP frame-ancestors sources, e.g. ["'self'"] or ['https://club.example.org']. Default ["'none'"]. */
  frameAncestors?: string[];
  /**
   * style-src 'unsafe-inline' instead of the hashes (a page whose library injects <style> elements: the API docs'
   * Swagger UI). Only where no user content is shown.
   */
  inlineStyles?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    securityHeaders?: SecurityHeaderOverrides;
  }
  interface FastifyReply {
    /** Replaces this answer's security headers with the defaults changed by `overrides`. */
    securityHeaders(overrides: SecurityHeaderOverrides): FastifyReply;
  }
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** HSTS lifetime under an https PUBLIC_URL: one year (no includeSubDomains: other hosts of the domain are not ours). */
export const HSTS_VALUE = 'max-age=31536000';

/**
 * The CSP source for a Leaflet tile URL template: its origin, with a `{s}` subdomain label turned into a wildcard
 * host (`https://{s}.tile.example.org/{z}/{x}/{y}.png` → `https://*.tile.example.org`). null for a same-origin URL
 * (`/tiles/{z}/{x}/{y}.png`), which 'self' covers.
 */
export function tileSource(tileUrl: string): string | null {
  const trimmed = tileUrl.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    if (trimmed.startsWith('/') && !trimmed.startsWith('//')) return null;
    throw new Error(`TILE_URL must be an http(s) URL or a path on this server, not "${tileUrl}"`);
  }
  const marker = 'rbsubdomain';
  const url = new URL(trimmed.replace(/\{s\}/g, marker));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`TILE_URL must be an http(s) URL, not "${tileUrl}"`);
  }
  const labels = url.hostname.split('.');
  const last = labels.map((l) => l.includes(marker)).lastIndexOf(true);
  // CSP allows a wildcard only as the leftmost label: everything up to the templated label becomes `*`.
  const host = last === -1 ? url.hostname : ['*', ...labels.slice(last + 1)].join('.');
  if (host === '*' || /[{}]/.test(host))
    throw new Error(`TILE_URL has a host CSP cannot express: "${tileUrl}"`);
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`;
}

/** Origins an external OIDC issuer's discovery document names for what the browser calls or opens. */
const BROWSER_ENDPOINTS = [
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'end_session_endpoint',
  'revocation_endpoint',
  'check_session_iframe',
] as const;

export function discoveryOrigins(doc: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const key of BROWSER_ENDPOINTS) {
    const value = doc[key];
    if (typeof value !== 'string') continue;
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') out.add(url.origin);
    } catch {
      // not a URL: nothing to allow
    }
  }
  return [...out];
}

export interface PolicyInput {
  tile: string | null;
  /** External issuer origins (OIDC_ISSUER's, then those of its discovery document). */
  issuerOrigins: string[];
  publicOrigin: string;
  frameAncestors: string[];
  inlineStyles?: boolean;
}

export function contentSecurityPolicy(p: PolicyInput): string {
  const list = (...sources: (string | null | undefined)[]) => [...new Set(sources.filter(Boolean))].join(' ');
  const issuers = p.issuerOrigins;
  // The public origin is 'self' when browsers use PUBLIC_URL's host; listed for redirects after a form post
  // (sign-in → /auth/callback), which Chromium checks against form-action too.
  const publicOrigin = p.publicOrigin;
  return [
    `default-src 'self'`,
    `base-uri 'self'`,
    `object-src 'none'`,
    `script-src ${list("'self'", SCRIPT_HASH)}`,
    // 'unsafe-inline' must come without hashes: a browser that sees a hash ignores it.
    `style-src ${p.inlineStyles ? "'self' 'unsafe-inline'" : list("'self'", ...STYLE_HASHES)}`,
    `img-src ${list("'self'", 'data:', p.tile)}`,
    `font-src 'self' data:`,
    `connect-src ${list("'self'", ...issuers)}`,
    `frame-src ${list("'self'", ...issuers)}`,
    `form-action ${list("'self'", publicOrigin, ...issuers)}`,
    `frame-ancestors ${p.frameAncestors.join(' ')}`,
  ].join('; ');
}

/**
 * The course map page's own policy (a page of our markup, no script, no request of its own): nothing but its
 * stylesheet, by hash, and data: images; no base, no form, never framed.
 */
export const COURSE_MAP_CSP = [
  `default-src 'none'`,
  `style-src ${sha256(COURSE_MAP_STYLE)}`,
  `img-src data:`,
  `base-uri 'none'`,
  `form-action 'none'`,
  `frame-ancestors 'none'`,
].join('; ');

const SCRIPT_HASH = sha256(LOGOUT_SCRIPT);
const STYLE_HASHES = [sha256(PAGE_STYLE), sha256(COURSE_MAP_STYLE), sha256(TEXT_PAGE_STYLE)];

export interface SecurityHeadersOptions {
  /** Fetches an external issuer's discovery document (tests pass a stub); default: fetch. */
  fetchDiscovery?: (url: string) => Promise<Record<string, unknown>>;
}

async function defaultFetchDiscovery(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

export function securityHeaderValues(
  config: Config,
  issuerOrigins: string[],
  o: SecurityHeaderOverrides = {},
) {
  const headers: Record<string, string> = {
    'content-security-policy': contentSecurityPolicy({
      tile: tileSource(config.TILE_URL),
      issuerOrigins,
      publicOrigin: new URL(config.publicUrl).origin,
      frameAncestors: o.frameAncestors?.length ? o.frameAncestors : ["'none'"],
      inlineStyles: o.inlineStyles,
    }),
    'x-content-type-options': 'nosniff',
    // Origin only, to other sites: OpenStreetMap's tile policy wants a Referer; paths (codes, race ids) stay here.
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
  // For browsers without frame-ancestors; only expressible for 'none' and 'self'.
  const fa = o.frameAncestors?.length ? o.frameAncestors : ["'none'"];
  if (fa.length === 1 && fa[0] === "'none'") headers['x-frame-options'] = 'DENY';
  else if (fa.length === 1 && fa[0] === "'self'") headers['x-frame-options'] = 'SAMEORIGIN';
  if (config.publicUrl.startsWith('https:')) headers['strict-transport-security'] = HSTS_VALUE;
  return headers;
}

export default fp<SecurityHeadersOptions>(
  async (app, opts) => {
    const { config } = app;
    // Fails at boot on a TILE_URL CSP cannot express, instead of on the first request.
    tileSource(config.TILE_URL);
    const issuerOrigins = config.embeddedIdp ? [] : [new URL(config.issuer).origin];
    // Header values computed once (and again only when discovery adds issuer origins), set on every answer by a
    // synchronous hook: no per-request policy building, closure or promise.
    let generation = 0;
    let defaults = Object.entries(securityHeaderValues(config, issuerOrigins));
    const relearn = () => {
      defaults = Object.entries(securityHeaderValues(config, issuerOrigins));
      generation++;
    };

    const apply = (raw: ServerResponse, values: [string, string][]) => {
      raw.removeHeader('x-frame-options');
      for (let i = 0; i < values.length; i++) raw.setHeader(values[i][0], values[i][1]);
    };

    app.decorateReply('securityHeaders', function (this: FastifyReply, overrides: SecurityHeaderOverrides) {
      apply(this.raw, Object.entries(securityHeaderValues(config, issuerOrigins, overrides)));
      return this;
    });
    app.addHook('onRequest', (_request, reply, done) => {
      const raw = reply.raw;
      for (let i = 0; i < defaults.length; i++) raw.setHeader(defaults[i][0], defaults[i][1]);
      done();
    });
    // A route's own overrides (`config.securityHeaders`): its own hook, after the defaults, with its values
    // computed once per issuer-origin set; routes without overrides pay nothing for it.
    app.addHook('onRoute', (route) => {
      const overrides = route.config?.securityHeaders;
      if (!overrides) return;
      let seen = -1;
      let values: [string, string][] = [];
      const hook = (_request: unknown, reply: FastifyReply, done: () => void) => {
        if (seen !== generation) {
          values = Object.entries(securityHeaderValues(config, issuerOrigins, overrides));
          seen = generation;
        }
        apply(reply.raw, values);
        done();
      };
      const own = route.onRequest;
      route.onRequest = own ? [...(Array.isArray(own) ? own : [own]), hook] : [hook];
    });

    if (!config.embeddedIdp) {
      // The web app calls the issuer's token endpoint, which may be on another host than the issuer (Entra names
      // a tenant-id host): learn the endpoints from discovery, in the background, retried at most every minute.
      const fetchDiscovery = opts.fetchDiscovery ?? defaultFetchDiscovery;
      const url = `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      let known = false;
      let lastTry = 0;
      const learn = () => {
        if (known || Date.now() - lastTry < 60_000) return;
        lastTry = Date.now();
        fetchDiscovery(url).then(
          (doc) => {
            known = true;
            for (const origin of discoveryOrigins(doc)) {
              if (!issuerOrigins.includes(origin)) issuerOrigins.push(origin);
            }
            relearn();
          },
          (err: unknown) =>
            app.log.warn(
              { err },
              'OIDC discovery for the Content-Security-Policy failed: only the issuer origin is allowed until it succeeds',
            ),
        );
      };
      app.addHook('onReady', async () => learn());
      app.addHook('onRequest', (_request, _reply, done) => {
        learn();
        done();
      });
    }
  },
  { name: 'security-headers' },
);
