/**
 * Phone numbers on the HQ alert cards as `tel:` links, so a director on a phone calls from the card. Pure functions
 * (unit-tested): the runner's Phone and the free-text EmergencyContact ("Maria (wife) +49 170 1234567").
 */

/** A piece of contact text; `href` set on the part that is a phone number. */
export interface ContactPart {
  text: string;
  href?: string;
}

/** Digits, spaces and the usual separators, starting with + or a digit and ending with a digit. */
const PHONE_RUN = /\+?\d[\d\s().\-/]*\d/g;
const MIN_DIGITS = 5;
const MAX_DIGITS = 15;

const digitCount = (s: string) => s.replace(/\D/g, '').length;

/** `tel:+491701234567` for text that is a phone number (its digits and a leading +), otherwise null. */
export function telHref(text: string): string | null {
  const t = text.trim();
  if (!/^\+?[\d\s().\-/]+$/.test(t)) return null;
  const n = digitCount(t);
  if (n < MIN_DIGITS || n > MAX_DIGITS) return null;
  return `tel:${t.startsWith('+') ? '+' : ''}${t.replace(/\D/g, '')}`;
}

/**
 * The text split so that each part looking like a phone number is a link: the whole text when it is a number,
 * otherwise each run of at least 5 digits (with separators) inside it. Text without a number is one plain part.
 */
export function contactParts(text: string | null | undefined): ContactPart[] {
  const t = text?.trim() ?? '';
  if (!t) return [];
  const whole = telHref(t);
  if (whole) return [{ text: t, href: whole }];
  const parts: ContactPart[] = [];
  let at = 0;
  for (const m of t.matchAll(PHONE_RUN)) {
    const run = m[0];
    const href = telHref(run);
    if (!href) continue;
    const start = m.index;
    if (start > at) parts.push({ text: t.slice(at, start) });
    parts.push({ text: run, href });
    at = start + run.length;
  }
  if (at < t.length) parts.push({ text: t.slice(at) });
  return parts;
}
