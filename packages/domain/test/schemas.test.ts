import { describe, expect, it } from 'vitest';
import { deviceCreateSchema, raceBodySchema, runnerBodySchema } from '../src';

describe('request schemas', () => {
  it('trims a device name and refuses an empty one', () => {
    expect(deviceCreateSchema.parse({ Name: '  Tracker 1 ' }).Name).toBe('Tracker 1');
    expect(deviceCreateSchema.safeParse({ Name: '   ' }).success).toBe(false);
  });
  it('defaults a runner to gender M and keeps bibs as strings', () => {
    const r = runnerBodySchema.parse({ FirstName: 'Ann', LastName: 'Lee', BibNumber: 12 });
    expect(r.Gender).toBe('M');
    expect(r.BibNumber).toBe('12');
    expect(runnerBodySchema.safeParse({ FirstName: 'A', LastName: 'B', Age: 121 }).success).toBe(false);
  });

  it.each([
    '2026-06-01T06:00:00.000Z', // what the web form sends (Date.toISOString)
    '2026-06-01T06:00:00Z',
    '2026-06-01T08:00:00+02:00',
    '2026-06-01T01:30:00-04:30',
    '2024-02-29T12:00:00Z',
    '2000-01-01T00:00:00Z',
    '2100-12-31T23:59:59.999Z',
  ])('accepts the StartTime %s', (StartTime) => {
    expect(raceBodySchema.parse({ Name: 'a', StartTime }).StartTime).toBe(StartTime);
  });
  it.each([
    ['year 0, which PostgreSQL refuses', '0000-01-01T00:00:00Z'],
    ['the smallest JavaScript date', '-271821-04-20T00:00:00Z'],
    ['the largest JavaScript date', '+275760-09-13T00:00:00Z'],
    ['a bare number (Date.parse reads "1" as 2001)', '1'],
    ['30 February (Date.parse rolls it over to 1 March)', '2024-02-30T10:00:00Z'],
    ['29 February of a common year', '2023-02-29T10:00:00Z'],
    ['a date without a time', '2024-06-01'],
    ['a local time without an offset', '2026-06-01T06:00:00'],
    ['an offset without a colon', '2026-06-01T06:00:00+0200'],
    ['hour 24', '2026-06-01T24:00:00Z'],
    ['before 2000', '1999-12-31T23:59:59Z'],
    ['after 2100', '2101-01-01T00:00:00Z'],
    ['an HTTP date', 'Mon, 01 Jun 2026 06:00:00 GMT'],
  ])('refuses %s', (_label, StartTime) => {
    const r = raceBodySchema.safeParse({ Name: 'a', StartTime });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/^must be an ISO 8601 date-time with an offset/);
  });
  it('keeps a missing StartTime as null', () => {
    expect(raceBodySchema.parse({ Name: 'a' }).StartTime).toBeNull();
    expect(raceBodySchema.parse({ Name: 'a', StartTime: null }).StartTime).toBeNull();
  });
});
