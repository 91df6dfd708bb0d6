/**
 * Which push services the server sends to (PUSH_ENDPOINT_HOSTS). A subscription's endpoint comes from an anonymous
 * browser and the server POSTs to it: without a list, anyone could make the server call any URL (an internal
 * address included). An entry is a host name, allowed over https on port 443 for itself and its subdomains, or an
 * exact origin (`http://127.0.0.1:8123`, for a push service of one's own or a test).
 */

export const DEFAULT_PUSH_ENDPOINT_HOSTS = [
  'fcm.googleapis.com', // Chrome, Edge on Android, Opera
  'android.googleapis.com',
  'push.services.mozilla.com', // Firefox: updates.push.services.mozilla.com
  'notify.windows.com', // Edge on Windows: *.notify.windows.com
  'push.apple.com', // Safari: web.push.apple.com
];

export interface PushEndpointRules {
  hosts: string[];
  origins: string[];
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Parses the comma/space-separated list; throws naming the bad entry. Empty or unset: the known push services. */
export function parsePushEndpointHosts(value: string | undefined): PushEndpointRules {
  const entries = (value ?? '')
    .split(/[\s,]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const rules: PushEndpointRules = { hosts: [], origins: [] };
  for (const e of entries.length ? entries : DEFAULT_PUSH_ENDPOINT_HOSTS) {
    if (e.includes('://')) {
      let url: URL;
      try {
        url = new URL(e);
      } catch {
        throw new Error(`"${e}" is neither a host name nor an origin such as https://push.example.org`);
      }
      if (
        (url.protocol !== 'https:' && url.protocol !== 'http:') ||
        url.origin.toLowerCase() !== e.replace(/\/$/, '')
      )
        throw new Error(`"${e}" must be an origin (http(s)://host[:port], no path)`);
      rules.origins.push(url.origin);
    } else if (HOST.test(e)) rules.hosts.push(e);
    else throw new Error(`"${e}" is not a host name`);
  }
  return rules;
}

/** Whether the server may send to this endpoint. */
export function endpointAllowed(rules: PushEndpointRules, endpoint: string): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (rules.origins.includes(url.origin)) return true;
  if (url.protocol !== 'https:' || url.port !== '') return false;
  const host = url.hostname.toLowerCase();
  return rules.hosts.some((h) => host === h || host.endsWith(`.${h}`));
}
