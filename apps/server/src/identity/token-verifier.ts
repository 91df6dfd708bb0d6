import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { groupsFromClaim } from '@racebeacon/domain';
import type { AuthUser } from '../types';

/** Algorithms we accept; pinned so that `alg: none` or HMAC confusion can never pass. */
export const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256'];

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  apiScope: string;
  adminGroupId: string;
  /** Key lookup: a remote JWKS found through discovery, or the embedded provider's local key set. */
  getKey: JWTVerifyGetKey;
}

export class TokenError extends Error {
  constructor(
    message: string,
    public readonly code: 'invalid_token' | 'insufficient_scope' = 'invalid_token',
  ) {
    super(message);
  }
}

export type TokenVerifier = (token: string) => Promise<AuthUser>;

/** Scope matches by full value (api://…/races.manage) or short name (races.manage). */
function hasScope(scopes: string[], required: string): boolean {
  const short = required.split('/').pop();
  return scopes.some((s) => s === required || s === short);
}

export function claimsToUser(payload: JWTPayload, adminGroupId: string): AuthUser {
  const id = typeof payload.oid === 'string' && payload.oid ? payload.oid : payload.sub;
  if (!id) throw new TokenError('The token has neither an oid nor a sub claim.');
  const rawScope = (payload.scp ?? payload.scope) as unknown;
  const scopes = typeof rawScope === 'string' ? rawScope.split(' ').filter(Boolean) : [];
  // A list, or one string of one or more groups (comma- or space-separated), as some providers send it.
  const groups = groupsFromClaim(payload.groups);
  return {
    id,
    isAdmin: groups.includes(adminGroupId),
    name: typeof payload.name === 'string' ? payload.name : undefined,
    email: typeof payload.email === 'string' ? payload.email : undefined,
    scopes,
  };
}

/**
 * The token's audiences: a list, or one string. A string with spaces is read as a space-separated list: Glewlwyd
 * (2.7) names the audience by the granted scope list ("openid profile races.manage") when the client asks for no
 * `resource`. The configured audience must equal one member exactly.
 */
export function audiencesOf(aud: unknown): string[] {
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  if (typeof aud === 'string') return aud.split(/\s+/).filter(Boolean);
  return [];
}

/**
 * One verification path for every issuer (embedded or external): signature against the issuer's keys,
 * `iss`, `aud`, expiry, pinned algorithms, then the API scope.
 */
export function createTokenVerifier(opts: TokenVerifierOptions): TokenVerifier {
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, opts.getKey, {
        issuer: opts.issuer,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['exp'],
      }));
      if (!audiencesOf(payload.aud).includes(opts.audience)) {
        throw new TokenError(`The access token's "aud" claim is not valid here.`);
      }
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new TokenError('The access token has expired.');
      if (err instanceof joseErrors.JWTClaimValidationFailed)
        throw new TokenError(`The access token's "${err.claim}" claim is not valid here.`);
      if (err instanceof joseErrors.JOSEError)
        throw new TokenError('The access token could not be verified.');
      throw err;
    }
    const user = claimsToUser(payload, opts.adminGroupId);
    if (!hasScope(user.scopes, opts.apiScope)) {
      throw new TokenError(`The access token lacks the API scope ${opts.apiScope}.`, 'insufficient_scope');
    }
    return user;
  };
}

/** Discovery: read the issuer's openid-configuration once, then verify against its JWKS (cached, refetched on new kid). */
export async function discoverIssuer(issuer: string): Promise<{ issuer: string; getKey: JWTVerifyGetKey }> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`OIDC discovery failed: GET ${url} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: string; jwks_uri?: string };
  if (!doc.issuer || !doc.jwks_uri)
    throw new Error(`OIDC discovery document at ${url} lacks issuer or jwks_uri`);
  return { issuer: doc.issuer, getKey: createRemoteJWKSet(new URL(doc.jwks_uri)) };
}
