import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Db } from '../db/client';
import { settings } from '../db/schema';

export interface ProviderSecrets {
  /** Private signing keys (JWK) for ID and access tokens. */
  jwks: { keys: JWK[] };
  /** Keys that sign the provider's session cookies. */
  cookieKeys: string[];
}

const KEY = 'oidc.secrets';

/**
 * The embedded provider's signing and cookie keys, generated once and kept in table settings, so tokens and
 * browser sessions stay valid across restarts and across server processes on the same database.
 */
export async function loadProviderSecrets(db: Db): Promise<ProviderSecrets> {
  const read = async () => {
    const [row] = await db.select().from(settings).where(eq(settings.key, KEY)).limit(1);
    return row?.value as ProviderSecrets | undefined;
  };
  const existing = await read();
  if (existing) return existing;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const fresh: ProviderSecrets = {
    jwks: { keys: [{ ...jwk, alg: 'RS256', use: 'sig', kid: randomBytes(8).toString('hex') }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  // First writer wins when two processes start at once; everyone then reads the stored value.
  await db.insert(settings).values({ key: KEY, value: fresh }).onConflictDoNothing();
  return (await read()) ?? fresh;
}

/** The public half of the signing keys, for verifying our own access tokens. */
export function publicJwks(secrets: ProviderSecrets): { keys: JWK[] } {
  return {
    keys: secrets.jwks.keys.map(({ kty, n, e, crv, x, y, kid, alg, use }) =>
      Object.fromEntries(
        Object.entries({ kty, n, e, crv, x, y, kid, alg, use }).filter(([, v]) => v !== undefined),
      ),
    ),
  };
}
