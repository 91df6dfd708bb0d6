// The image's HEALTHCHECK (and compose's): exits 0 when GET /api/ready answers 200 within 4 s, 1 otherwise.
// Readiness, not liveness: 503 while the database is unreachable, its migrations are behind or the event bus is down.
const host =
  !process.env.HOST || ['0.0.0.0', '::'].includes(process.env.HOST) ? '127.0.0.1' : process.env.HOST;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT || 3000}/api/ready`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
