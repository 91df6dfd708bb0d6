import { isIP } from 'node:net';

/**
 * TRUST_PROXY: who may tell the server the client's address, scheme and host (X-Forwarded-For / -Proto / -Host).
 * - `false` (default): nobody; the client is the TCP peer, whatever headers it sends.
 * - a hop count `n`: the `n` nearest hops are proxies, so the client is the n-th address counted from the right of
 *   X-Forwarded-For (1 = one proxy in front). Only safe when the server cannot be reached except through them.
 * - a list of proxy addresses / CIDR ranges (`127.0.0.1,10.0.0.0/8,::1`, or proxy-addr's `loopback`, `linklocal`,
 *   `uniquelocal`): X-Forwarded-* is believed only from those peers, and only back to the first untrusted hop.
 *
 * `true` (trust every hop, so the leftmost address any client writes) is refused: it is the hole this setting closes.
 */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/** Parses TRUST_PROXY; throws an Error whose message says what is accepted. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  const lower = value.toLowerCase();
  if (lower === '' || lower === 'false' || lower === 'off' || lower === '0') return false;
  if (lower === 'true' || lower === 'on' || lower === 'yes') {
    throw new Error(
      `"${value}" would believe any X-Forwarded-For a client sends (the sign-in limits could be dodged); ` +
        'give the number of proxies in front of the server (e.g. 1) or their addresses/CIDRs (e.g. 10.0.0.0/8,::1)',
    );
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) throw new Error(`a hop count must be between 0 and ${MAX_HOPS}, got ${value}`);
    return hops;
  }
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !validEntry(e));
  if (bad.length || entries.length === 0) {
    throw new Error(
      `expected off, a hop count (e.g. 1) or comma-separated IP addresses/CIDRs (e.g. 127.0.0.1,10.0.0.0/8,::1); ` +
        `not valid: ${bad.map((b) => JSON.stringify(b)).join(', ') || JSON.stringify(value)}`,
    );
  }
  return entries;
}

function validEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry.toLowerCase())) return true;
  if (entry.includes('%')) return false; // IPv6 zone ids: not matched by proxy-addr
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  // /0 would trust every address: the same as `true`.
  return bits >= 1 && bits <= (family === 4 ? 32 : 128);
}

/** What Fastify's `trustProxy` option gets. A hop count becomes a function: Fastify 5 ignores a bare number. */
export function fastifyTrustProxy(
  setting: TrustProxy | undefined,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (setting === undefined || setting === false || setting === 0) return false;
  if (typeof setting === 'number') return (_address: string, hop: number) => hop < setting;
  return setting;
}
