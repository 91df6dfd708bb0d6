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

/** Network errors of the connection to the database server (the server is down, restarting or unreachable). */
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs saying the server cannot serve now: connection exceptions (class 08), admin_shutdown (57P01),
 * crash_shutdown (57P02), cannot_connect_now (57P03, starting up or shutting down), too_many_connections (53300).
 */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300'
  );
}

/** node-postgres and pg-pool errors that carry no code but mean the connection is gone or cannot be made. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;

/**
 * Whether an error means "the database cannot be reached right now" (an outage, a restart, a failover), as opposed
 * to a bad query or a constraint: such a request is answered 503 with Retry-After. Looks through Drizzle's wrapping
 * (`cause`) and Node's AggregateError (several addresses tried).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length && seen.size < 20) {
    const e = stack.pop();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof o.code === 'string') {
      if (UNAVAILABLE_ERRNO.has(o.code)) return true;
      if (/^[0-9A-Z]{5}$/.test(o.code) && isUnavailableSqlState(o.code)) return true;
    }
    if (typeof o.message === 'string' && UNAVAILABLE_MESSAGE.test(o.message)) return true;
    stack.push(o.cause);
    if (Array.isArray(o.errors)) stack.push(...(o.errors as unknown[]));
  }
  return false;
}

/** A short, stack-free description of a database error for the log ("ECONNREFUSED: connect …"). */
export function describeDatabaseError(err: unknown): string {
  let e: unknown = err;
  // The innermost cause is the driver's own error; Drizzle's wrapper only repeats the query.
  for (let depth = 0; depth < 5 && e && typeof e === 'object' && (e as { cause?: unknown }).cause; depth++)
    e = (e as { cause?: unknown }).cause;
  const o = (e ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  let message = typeof o.message === 'string' ? o.message : String(e);
  if (!message && Array.isArray(o.errors) && o.errors.length)
    message = String((o.errors[0] as { message?: unknown }).message ?? '');
  return typeof o.code === 'string' ? `${o.code}: ${message}` : message;
}
