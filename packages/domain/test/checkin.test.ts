import { describe, expect, it } from 'vitest';
import { checkinBodySchema, checkinTimeProblem, CHECKIN_FUTURE_SKEW_MS, sameCheckin } from '../src/checkin';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const START = Date.parse('2026-06-01T06:00:00Z');

describe('checkinTimeProblem', () => {
  it.each([
    ['now', NOW, { startTimeMs: START, clockStartedMs: START }, null],
    [
      'within the skew ahead',
      NOW + CHECKIN_FUTURE_SKEW_MS,
      { startTimeMs: START, clockStartedMs: null },
      null,
    ],
    [
      'past the skew',
      NOW + CHECKIN_FUTURE_SKEW_MS + 1,
      { startTimeMs: START, clockStartedMs: null },
      'future',
    ],
    ['at the start', START, { startTimeMs: START, clockStartedMs: null }, null],
    ['before the scheduled start', START - 1, { startTimeMs: START, clockStartedMs: null }, 'before'],
    ['before the clock start', START - 1, { startTimeMs: null, clockStartedMs: START }, 'before'],
    // Clock started late: a check-in between the scheduled start and the gun is kept.
    ['clock started late', START + 60_000, { startTimeMs: START, clockStartedMs: START + 600_000 }, null],
    ['no start known', 0, { startTimeMs: null, clockStartedMs: null }, null],
    ['not a date', NaN, { startTimeMs: null, clockStartedMs: null }, 'valid'],
  ] as const)('%s', (_name, time, race, expected) => {
    const problem = checkinTimeProblem(time, NOW, race);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe('checkinBodySchema', () => {
  const ok = {
    EntryId: '0b7f0a3e-6f1c-4c55-9a7e-2f3f5d2b9e11',
    BibNumber: ' 42 ',
    Kind: 'in',
    Time: '2026-06-01T10:00:00.000Z',
  };
  it('accepts a phone entry and trims the bib', () => {
    expect(checkinBodySchema.parse(ok)).toEqual({ ...ok, BibNumber: '42' });
  });
  it.each([
    ['short EntryId', { EntryId: 'abc' }],
    ['EntryId with spaces', { EntryId: 'a b c d e f g h' }],
    ['empty bib', { BibNumber: '  ' }],
    ['numeric bib', { BibNumber: 42 }],
    ['unknown kind', { Kind: 'through' }],
    ['local time', { Time: '2026-06-01T10:00:00' }],
    ['missing time', { Time: undefined }],
  ])('refuses %s', (_name, change) => {
    expect(checkinBodySchema.safeParse({ ...ok, ...change }).success).toBe(false);
  });
});

describe('sameCheckin', () => {
  const a = { BibNumber: '42', Kind: 'in', Time: '2026-06-01T10:00:00Z' };
  it('is the same entry when bib, kind and instant agree (offsets may differ)', () => {
    expect(sameCheckin(a, { ...a, Time: '2026-06-01T12:00:00+02:00' })).toBe(true);
  });
  it.each([{ BibNumber: '43' }, { Kind: 'out' }, { Time: '2026-06-01T10:00:01Z' }])('differs: %o', (c) => {
    expect(sameCheckin(a, { ...a, ...c })).toBe(false);
  });
});
