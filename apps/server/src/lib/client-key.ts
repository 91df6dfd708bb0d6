import { isIP } from 'node:net';

/**
 * The one rule every per-client limit counts under (live and HQ streams, open connections, push subscription
 * changes, password guessing): an IPv4 address as is (also when written IPv4-mapped, `::ffff:203.0.113.9`), an
 * IPv6 address by its /64 prefix — one subscriber line or host usually holds a whole /64, so counting single IPv6
 * addresses would give one client 2^64 keys. A zone id (`fe80::1%eth0`) is dropped. Anything that is not an
 * address is returned as is.
 */
export function clientKey(ip: string): string {
  const addr = ip.split('%')[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (mapped) return mapped[1];
  if (isIP(addr) !== 6) return ip;
  const groups = expandIpv6(addr);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/** The eight groups of an IPv6 address, each in lower-case hex without leading zeros; undefined if malformed. */
function expandIpv6(ip: string): string[] | undefined {
  const toGroups = (part: string): string[] => {
    if (!part) return [];
    const out: string[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const [a, b, c, d] = g.split('.').map(Number);
        out.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
      } else out.push(parseInt(g, 16).toString(16));
    }
    return out;
  };
  const [head, tail, ...more] = ip.split('::');
  if (more.length) return undefined;
  const h = toGroups(head);
  const t = tail === undefined ? [] : toGroups(tail);
  const missing = 8 - h.length - t.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...h, ...Array<string>(missing).fill('0'), ...t];
}
