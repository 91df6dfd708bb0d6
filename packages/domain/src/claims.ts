/**
 * Reading identity-provider claims the same way on the server (the token verifier) and in the browser (the web
 * app's role detection). Pure; no zod.
 */

/**
 * The groups a token's `groups` claim names. Providers send it as a JSON array (Entra, the embedded provider,
 * LemonLDAP::NG) or as one string (Glewlwyd): a single group, or several separated by commas and/or white space.
 * Anything else (absent, a number, an object) names no group.
 */
export function groupsFromClaim(value: unknown): string[] {
  if (Array.isArray(value)) {
    return value
      .filter((g): g is string | number => typeof g === 'string' || typeof g === 'number')
      .map((g) => String(g).trim())
      .filter(Boolean);
  }
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}
