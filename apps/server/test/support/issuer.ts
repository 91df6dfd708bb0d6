import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A real issuer shape for tests: an HTTP server on 127.0.0.1 serving an OpenID discovery document and a JWKS,
 * and a signer for access tokens. The server under test verifies through discovery + JWKS, not a bypass.
 */
export const TEST_AUDIENCE = 'api://racebeacon-test';
export const TEST_SCOPE = 'api://racebeacon-test/races.manage';
export const TEST_ADMIN_GROUP = 'group-admins-0001';

export interface TokenClaims {
  oid?: string;
  sub?: string;
  /** A list, or one string as some providers send it (Glewlwyd: "a,b" or "a b"). */
  groups?: string[] | string;
  name?: string;
  scp?: string;
  aud?: string;
  /** Seconds from now; negative = already expired. */
  expiresIn?: number;
  /** Sign with a key the issuer does not publish. */
  foreignKey?: boolean;
  iss?: string;
}

export interface TestIssuer {
  url: string;
  sign(claims: TokenClaims): Promise<string>;
  /** Convenience tokens. */
  director(id: string): Promise<string>;
  admin(id?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const kid = 'test-key-1';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks`, authorization_endpoint: `${base}/auth` }),
      );
    } else if (req.url === '/jwks') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function sign(c: TokenClaims): Promise<string> {
    const key: CryptoKey = c.foreignKey ? foreign.privateKey : privateKey;
    const now = Math.floor(Date.now() / 1000);
    const exp = now + (c.expiresIn ?? 600);
    const payload: Record<string, unknown> = {
      scp: c.scp ?? TEST_SCOPE,
      groups: c.groups ?? [],
    };
    if (c.oid) payload.oid = c.oid;
    if (c.name) payload.name = c.name;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(c.iss ?? url)
      .setAudience(c.aud ?? TEST_AUDIENCE)
      .setSubject(c.sub ?? c.oid ?? 'subject')
      .setIssuedAt(Math.min(now, exp - 60))
      .setExpirationTime(exp)
      .sign(key);
  }

  return {
    url,
    sign,
    director: (id) => sign({ oid: id, name: `Director ${id}` }),
    admin: (id = 'admin-1') => sign({ oid: id, groups: [TEST_ADMIN_GROUP], name: 'Admin' }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
