/**
 * EMBED_FRAME_ANCESTORS: which sites may put the /embed/ pages in a frame, as CSP frame-ancestors sources. Space- or
 * comma-separated; unset or empty: `*` (any site). Accepted: `*`, `'self'`, a scheme (`https:`), an origin
 * (`https://club.example.org`, `https://*.example.org`, with a port if any). Anything else stops the boot, because
 * a typo here would silently block (or open) every race site's embed.
 */
const SOURCE = /^(\*|'self'|'none'|https?:|https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?)$/i;

export function parseFrameAncestors(value: string | undefined): string[] {
  const sources = (value ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => (s.toLowerCase() === 'self' ? "'self'" : s.replace(/\/+$/, '')));
  if (!sources.length) return ['*'];
  const bad = sources.filter((s) => !SOURCE.test(s));
  if (bad.length) {
    throw new Error(
      `not a frame-ancestors source: ${bad.join(', ')} (use *, 'self', https: or origins like https://club.example.org)`,
    );
  }
  if (sources.includes("'none'")) return ["'none'"];
  return [...new Set(sources)];
}
