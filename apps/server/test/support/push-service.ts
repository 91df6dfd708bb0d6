import {
  createECDH,
  createDecipheriv,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
  type ECDH,
} from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A push service of our own for tests, speaking the Web Push protocol (RFC 8030) as a browser vendor's does: it
 * takes `POST /push/{id}` with a VAPID Authorization header (RFC 8292, checked: ES256 signature by the `k` key,
 * audience = this origin, not expired) and an aes128gcm body (RFC 8188), answers 201, or 410 for a subscription
 * marked gone. Its browser side (`newBrowser`) holds what a browser holds: the P-256 key pair and auth secret of
 * the subscription, and decrypts what arrived (RFC 8291) — written here from the RFCs with node:crypto, not with
 * the library the server sends with.
 */

export interface ReceivedPush {
  id: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  vapid: { subject: string; audience: string; publicKey: string; expiresAt: number };
}

export interface TestBrowser {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** The subscription as PushSubscription.toJSON() gives it. */
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  /** Decrypts a message sent to this subscription (throws when it is not for it). */
  decrypt(body: Buffer): string;
  /** Every message that arrived for this subscription, decrypted and parsed as JSON. */
  messages(): unknown[];
}

export interface TestPushService {
  origin: string;
  received: ReceivedPush[];
  /** A browser's subscription at this push service, with its own keys (or the given ones). */
  newBrowser(keys?: { ecdh: ECDH; auth: Buffer }): TestBrowser;
  /** From now on, answer 410 Gone for this subscription (the browser unsubscribed). */
  gone(id: string): void;
  /** Resolves when `n` messages have arrived for this subscription. */
  waitFor(id: string, n: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

/** RFC 8291 §3.4 + RFC 8188 §2: decrypt an aes128gcm Web Push message body. */
export function decryptWebPush(body: Buffer, uaPrivate: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  if (idlen !== 65 || asPublic[0] !== 4) throw new Error('keyid is not an uncompressed P-256 key');
  const uaPublic = uaPrivate.getPublicKey();
  const ecdhSecret = uaPrivate.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const records = body.subarray(21 + idlen);
  const parts: Buffer[] = [];
  for (let seq = 0, at = 0; at < records.length; seq++, at += rs) {
    const record = records.subarray(at, Math.min(at + rs, records.length));
    const iv = Buffer.from(nonce);
    iv.writeUInt32BE((iv.readUInt32BE(8) ^ seq) >>> 0, 8); // records < 2^32: the upper bytes stay
    const decipher = createDecipheriv('aes-128-gcm', cek, iv);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    // Padding: the data, a delimiter (2 in the last record, 1 before), then zeros.
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    const last = at + rs >= records.length;
    if (plain[end] !== (last ? 2 : 1)) throw new Error('bad padding delimiter');
    parts.push(plain.subarray(0, end));
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Checks a `vapid t=…, k=…` Authorization header (ES256 JWT); throws naming what is wrong. */
export function verifyVapid(header: string | undefined, origin: string, nowS = Date.now() / 1000) {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [jwt, k] = [m[1], m[2]];
  const [h, p, s] = jwt.split('.');
  const head = JSON.parse(Buffer.from(h, 'base64url').toString());
  if (head.alg !== 'ES256') throw new Error(`JWT alg ${head.alg}`);
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(s, 'base64url'),
  );
  if (!ok) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  if (claims.aud !== origin) throw new Error(`VAPID aud ${claims.aud}, expected ${origin}`);
  if (!(claims.exp > nowS) || claims.exp > nowS + 24 * 3600) throw new Error(`VAPID exp ${claims.exp}`);
  return {
    subject: claims.sub as string,
    audience: claims.aud as string,
    publicKey: k,
    expiresAt: claims.exp,
  };
}

export async function startTestPushService(): Promise<TestPushService> {
  const received: ReceivedPush[] = [];
  // A sender reuses its JWT: its signature is checked once (its expiry every time).
  const verified = new Map<string, ReturnType<typeof verifyVapid>>();
  const checkVapid = (header: string | undefined) => {
    const known = header ? verified.get(header) : undefined;
    if (known && known.expiresAt > Date.now() / 1000) return known;
    const claims = verifyVapid(header, origin);
    verified.set(header!, claims);
    return claims;
  };
  const goneIds = new Set<string>();
  const waiters: (() => void)[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/push\/([\w-]+)$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res.writeHead(404).end();
        return;
      }
      if (goneIds.has(m[1])) {
        res.writeHead(410).end();
        return;
      }
      try {
        if (req.headers['content-encoding'] !== 'aes128gcm')
          throw new Error('Content-Encoding must be aes128gcm');
        if (!/^\d+$/.test(String(req.headers.ttl ?? ''))) throw new Error('TTL header missing');
        const vapid = checkVapid(req.headers.authorization);
        received.push({ id: m[1], headers: req.headers, body: Buffer.concat(chunks), vapid });
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end((err as Error).message);
        return;
      }
      res.writeHead(201, { location: `${origin}/message/${received.length}` }).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const service: TestPushService = {
    origin,
    received,
    newBrowser(given) {
      const ecdh = given?.ecdh ?? createECDH('prime256v1');
      if (!given) ecdh.generateKeys();
      const auth = given?.auth ?? randomBytes(16);
      const id = randomBytes(12).toString('base64url');
      const endpoint = `${origin}/push/${id}`;
      const keys = { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') };
      const decrypt = (body: Buffer) => decryptWebPush(body, ecdh, auth);
      return {
        id,
        endpoint,
        keys,
        subscription: { endpoint, expirationTime: null, keys },
        decrypt,
        messages: () => received.filter((r) => r.id === id).map((r) => JSON.parse(decrypt(r.body))),
      };
    },
    gone: (id) => void goneIds.add(id),
    async waitFor(id, n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mine = received.filter((r) => r.id === id);
        if (mine.length >= n) return mine;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`push service: ${mine.length} of ${n} messages for ${id} arrived`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 500));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return service;
}
