import webpush from 'web-push';

/**
 * Sends one Web Push message (RFC 8030) with VAPID (RFC 8292), its payload encrypted for the browser (RFC 8291,
 * aes128gcm): web-push builds the request (encryption, JWT), fetch sends it (http too, for a push service of one's
 * own; the endpoint was checked against PUSH_ENDPOINT_HOSTS when the browser subscribed).
 */

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type SendResult =
  | { ok: true }
  /** 404/410: the push service says the subscription is gone. */
  | { ok: false; gone: true; status: number }
  | { ok: false; gone: false; status: number | null; error: string };

export interface PushSender {
  send(
    target: PushTarget,
    payload: string,
    opts: { ttlSeconds: number; topic?: string },
  ): Promise<SendResult>;
}

/** A VAPID JWT is valid for 12 h; one is signed per push service and reused until 1 h before it expires. */
const VAPID_VALID_S = 12 * 3600;
const VAPID_RENEW_S = 3600;

export function webPushSender(
  vapid: () => Promise<VapidKeys>,
  subject: string,
  timeoutMs = 10_000,
): PushSender {
  // Signing costs more than encrypting (web-push encodes the key with a pure-JS ASN.1 library each time).
  const signed = new Map<string, { authorization: string; expires: number; publicKey: string }>();
  const authorization = (audience: string, keys: VapidKeys): string => {
    const nowS = Math.floor(Date.now() / 1000);
    const have = signed.get(audience);
    if (have && have.publicKey === keys.publicKey && have.expires - VAPID_RENEW_S > nowS)
      return have.authorization;
    const expires = nowS + VAPID_VALID_S;
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      subject,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
      expires,
    );
    if (signed.size > 100) signed.clear();
    signed.set(audience, { authorization: Authorization, expires, publicKey: keys.publicKey });
    return Authorization;
  };
  return {
    async send(target, payload, { ttlSeconds, topic }) {
      const keys = await vapid();
      let details;
      let headers: Record<string, string>;
      try {
        details = webpush.generateRequestDetails(
          { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
          payload,
          { TTL: ttlSeconds, contentEncoding: 'aes128gcm', urgency: 'normal', ...(topic ? { topic } : {}) },
        );
        headers = {
          ...(details.headers as Record<string, string>),
          Authorization: authorization(new URL(target.endpoint).origin, keys),
        };
      } catch (err) {
        return { ok: false, gone: false, status: null, error: (err as Error).message };
      }
      try {
        const res = await fetch(details.endpoint, {
          method: details.method,
          headers,
          body: details.body ? new Uint8Array(details.body) : undefined,
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status === 404 || res.status === 410) return { ok: false, gone: true, status: res.status };
        if (res.status >= 200 && res.status < 300) return { ok: true };
        return { ok: false, gone: false, status: res.status, error: `push service answered ${res.status}` };
      } catch (err) {
        return { ok: false, gone: false, status: null, error: (err as Error).message };
      }
    },
  };
}
