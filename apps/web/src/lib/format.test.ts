import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime, fromLocalInput, startTimeEditorValue, toLocalIso, yn } from './format';

// A zone with an offset (and daylight saving) so local/UTC mix-ups show up.
const originalTz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'America/Denver';
});
afterAll(() => {
  process.env.TZ = originalTz;
});

describe('start time editor', () => {
  it.each([
    ['2027-03-20T15:15:00.000Z', '2027-03-20T09:15'], // MDT, UTC-6
    ['2027-01-10T07:05:00Z', '2027-01-10T00:05'], // MST, UTC-7
    ['2027-01-10T07:05:00+02:00', '2027-01-09T22:05'], // another offset: shown in the viewer's zone
  ])('%s shows as the first 16 characters of its local value: %s', (iso, expected) => {
    expect(toLocalIso(iso).slice(0, 16)).toBe(expected);
    expect(startTimeEditorValue(iso)).toBe(expected);
  });

  it('keeps the local offset in the full value', () => {
    expect(toLocalIso('2027-03-20T15:15:00.000Z')).toBe('2027-03-20T09:15:00-06:00');
  });

  it('is empty for a missing or broken value', () => {
    expect(startTimeEditorValue(null)).toBe('');
    expect(startTimeEditorValue('not a date')).toBe('');
  });

  it('round-trips through the datetime-local input unchanged', () => {
    const iso = '2027-03-20T15:15:00.000Z';
    expect(fromLocalInput(startTimeEditorValue(iso))).toBe(iso);
  });

  it('sends an empty input as null', () => {
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('garbage')).toBeNull();
  });
});

describe('display', () => {
  it('Y/N flags', () => {
    expect(yn(true)).toBe('Y');
    expect(yn(false)).toBe('N');
  });

  it('start time in local format, or a dash', () => {
    expect(formatDateTime(null)).toBe('-');
    expect(formatDateTime('nope')).toBe('-');
    expect(formatDateTime('2027-03-20T15:15:00Z')).toBe(
      new Date('2027-03-20T15:15:00Z').toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
    );
    expect(formatDateTime('2027-03-20T15:15:00Z')).toMatch(/9:15/);
  });
});
