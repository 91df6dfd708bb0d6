import { BlockList, isIP, type Socket } from 'node:net';
import fp from 'fastify-plugin';
import { clientKey } from '../lib/client-key';
import type { TrustProxy } from '../lib/trust-proxy';
import { openFileLimit } from '../live/sse-hub';

/**
 * Open connections per client (MAX_CONNECTIONS_PER_CLIENT), on every route: each connection holds a file
 * descriptor, so one client holding hundreds (live streams, refused or idle keep-alive connections) could leave
 * none for tracker pings and readers. Counted per `clientKey` of the TCP peer (an IPv4 address, an IPv6 /64) from
 * the moment the connection is accepted until it closes. A connection past the cap is answered on its first
 * request with 429 `too_many_connections` (Retry-After, `Connection: close`, the security headers and the
 * `{error, message}` body) and closed; one that sends nothing is closed after REFUSED_IDLE_MS, and past
 * REFUSED_BACKLOG of them at once the client's further connections are closed at once without an answer, so a
 * flood never holds more than cap + backlog descriptors.
 *
 * Peers that TRUST_PROXY names are not counted (a reverse proxy carries every client's connections; it limits
 * them itself); with a hop count every peer is a proxy, so nothing is counted.
 */

/** Connections above the stream cap a client may hold by default: a browser's page, API calls and assets. */
const CONNECTIONS_BESIDE_STREAMS = 50;
/** Connections past the cap still answered with a 429 (the rest are closed unanswered). */
export const REFUSED_BACKLOG = 16;
/** A refused connection that sends no request is closed after this. */
export const REFUSED_IDLE_MS = 2_000;
/** Retry-After of a refused connection. */
export const CONNECTION_RETRY_AFTER_S = 10;

/**
 * Default MAX_CONNECTIONS_PER_CLIENT: the live streams a client may hold and 50 more, but no more than a quarter of
 * the open-file limit (at least 16), so two clients at their cap cannot take half the descriptors. With no
 * per-client stream cap (LIVE_MAX_STREAMS_PER_CLIENT=0: a venue, a bench, one address for many viewers) no
 * connection cap either, unless MAX_CONNECTIONS_PER_CLIENT asks for one.
 */
export function defaultMaxConnectionsPerClient(
  streamsPerClient: number,
  fdLimit: number | null = openFileLimit(),
): number {
  if (streamsPerClient <= 0) return 0;
  const wanted = streamsPerClient + CONNECTIONS_BESIDE_STREAMS;
  if (fdLimit === null || !Number.isFinite(fdLimit)) return wanted;
  return Math.min(wanted, Math.max(16, Math.floor(fdLimit / 4)));
}

/** Whether a TCP peer is a proxy TRUST_PROXY names (proxy-addr's named ranges included). */
export function proxyPeer(setting: TrustProxy | undefined): (address: string) => boolean {
  if (setting === undefined || setting === false || setting === 0) return () => false;
  if (typeof setting === 'number') return () => true;
  const list = new BlockList();
  const add = (cidr: string) => {
    const [address, bits] = cidr.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  };
  const named: Record<string, string[]> = {
    loopback: ['127.0.0.0/8', '::1/128'],
    linklocal: ['169.254.0.0/16', 'fe80::/10'],
    uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  };
  for (const entry of setting) for (const cidr of named[entry.toLowerCase()] ?? [entry]) add(cidr);
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const ip = mapped ? mapped[1] : address.split('%')[0];
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Open connections counted per client (tests, health); `clientKey` of the peer. */
    openConnections(client?: string): number;
  }
}

export default fp(
  async (app) => {
    const max = app.config.maxConnectionsPerClient;
    const isProxy = proxyPeer(app.config.TRUST_PROXY);
    const open = new Map<string, number>();
    const refusedOpen = new Map<string, number>();
    /** Sockets past their client's cap: their requests get the 429. */
    const refused = new WeakSet<Socket>();
    let total = 0;
    app.decorate('openConnections', (client?: string) =>
      client === undefined ? total : (open.get(client) ?? 0),
    );
    if (max <= 0) return;

    const bump = (m: Map<string, number>, key: string, by: number) => {
      const n = (m.get(key) ?? 0) + by;
      if (n > 0) m.set(key, n);
      else m.delete(key);
      return n;
    };
    app.server.on('connection', (socket: Socket) => {
      const peer = socket.remoteAddress;
      if (!peer || isProxy(peer)) return;
      const key = clientKey(peer);
      const n = bump(open, key, 1);
      total++;
      let over = false;
      socket.once('close', () => {
        bump(open, key, -1);
        total--;
        if (over) bump(refusedOpen, key, -1);
      });
      if (n <= max) return;
      over = true;
      if (bump(refusedOpen, key, 1) > REFUSED_BACKLOG) {
        socket.destroy();
        return;
      }
      refused.add(socket);
      socket.setTimeout(REFUSED_IDLE_MS, () => socket.destroy());
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (!refused.has(request.raw.socket)) return done();
      void reply
        .code(429)
        .header('connection', 'close')
        .header('retry-after', String(CONNECTION_RETRY_AFTER_S))
        .header('cache-control', 'no-store')
        .send({
          error: 'too_many_connections',
          message: `This address already has ${max} connections open, the most allowed. Close some, or try again later.`,
        });
    });
  },
  { name: 'connection-limit', dependencies: ['security-headers'] },
);
