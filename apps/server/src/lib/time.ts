/** A timestamp as the API writes it: ISO 8601 in UTC with its offset (`toISOString()`), or null. */
export const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);
