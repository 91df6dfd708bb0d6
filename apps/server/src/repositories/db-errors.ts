/**
 * Driver errors come wrapped (Drizzle's DrizzleQueryError has the pg/PGlite error as `cause`); look through the chain
 * for the SQLSTATE and constraint name.
 */
function pgErrorFields(err: unknown): { code?: string; constraint?: string } | null {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const o = e as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      return { code: o.code, constraint: typeof o.constraint === 'string' ? o.constraint : undefined };
    }
    e = o.cause;
  }
  return null;
}

/** A unique_violation (23505), optionally of one named constraint/index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const f = pgErrorFields(err);
  if (!f || f.code !== '23505') return false;
  return constraint === undefined || f.constraint === undefined || f.constraint === constraint;
}
