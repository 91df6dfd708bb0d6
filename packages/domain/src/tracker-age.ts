/**
 * The tracker check's wording of a fix's age — "last fix just now", "last fix 12 min ago", "last fix 3 h 5 min
 * ago", "last fix 2 days ago" — without zod, so a screen can import it (`@racebeacon/domain/tracker-age`) cheaply.
 */
export function fixAgeText(ageSeconds: number | null): string {
  if (ageSeconds === null) return 'no fix received yet';
  const s = Math.max(0, Math.round(ageSeconds));
  if (s < 60) return 'last fix just now';
  const min = Math.floor(s / 60);
  if (min < 60) return `last fix ${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `last fix ${h} h${min % 60 ? ` ${min % 60} min` : ''} ago`;
  return `last fix ${Math.floor(h / 24)} days ago`;
}
