import { describe, expect, it } from 'vitest';
import {
  checkinBodySchema,
  checkinDecision,
  checkinTimeProblem,
  CHECKIN_FUTURE_SKEW_MS,
  CHECKIN_MAX_AGE_WITHOUT_START_MS,
  sameCheckin,
} from '../src/checkin';

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
    ['no start known, an hour ago', NOW - 3600_000, { startTimeMs: null, clockStartedMs: null }, null],
    // A phone whose clock was reset: 2000-01-01 for a race with no start time (issue 24.6).
    [
      'no start known, 2000-01-01',
      Date.parse('2000-01-01T00:00:00Z'),
      { startTimeMs: null, clockStartedMs: null },
      'day ago',
    ],
    [
      'no start known, just over a day ago',
      NOW - CHECKIN_MAX_AGE_WITHOUT_START_MS - 1,
      { startTimeMs: null, clockStartedMs: null },
      'day ago',
    ],
    ['not a date', NaN, { startTimeMs: null, clockStartedMs: null }, 'valid'],
  ] as const)('%s', (_name, time, race, expected) => {
    const problem = checkinTimeProblem(time, NOW, race);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe('checkinDecision', () => {
  const running = { startTimeMs: START, clockStartedMs: START, endedMs: null };
  const ended = { ...running, endedMs: NOW - 60_000 };
  const none = { status: null, finished: false };
  it.each([
    ['in, running', 'in', running, none, { refused: null, setsDnf: false }],
    ['dnf, running', 'dnf', running, none, { refused: null, setsDnf: true }],
    [
      'dnf of a runner a director made DNF: kept, nothing written',
      'dnf',
      running,
      { status: 'DNF', finished: false },
      { refused: null, setsDnf: false },
    ],
    ['dnf of a DSQ runner', 'dnf', running, { status: 'DSQ', finished: false }, 'status_kept'],
    ['dnf of a DNS runner', 'dnf', running, { status: 'DNS', finished: false }, 'status_kept'],
    ['dnf of a finisher', 'dnf', running, { status: null, finished: true }, 'status_kept'],
    [
      'in of a DSQ runner: a passing, the DSQ stays',
      'in',
      running,
      { status: 'DSQ', finished: false },
      { refused: null, setsDnf: false },
    ],
    ['in of a finisher', 'out', running, { status: null, finished: true }, { refused: null, setsDnf: false }],
    ['in after End Race', 'in', ended, none, 'race_ended'],
    ['dnf after End Race', 'dnf', ended, none, 'race_ended'],
    ['before the start', 'in', running, none, 'checkin_time', START - 1],
    [
      '2000-01-01, no start known',
      'in',
      { startTimeMs: null, clockStartedMs: null, endedMs: null },
      none,
      'checkin_time',
      Date.parse('2000-01-01T00:00:00Z'),
    ],
  ] as const)('%s', (_name, kind, race, runner, expected, timeMs: number = NOW - 60_000) => {
    const d = checkinDecision({ kind, timeMs, nowMs: NOW, race, runner });
    if (typeof expected === 'string') {
      expect(d.refused?.error).toBe(expected);
      expect(d.refused?.status).toBe(expected === 'checkin_time' ? 400 : 409);
      expect(d.refused?.message.length).toBeGreaterThan(20);
    } else expect(d).toEqual(expected);
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
