import { describe, expect, it } from 'vitest';
import { pinFollowed, toggled } from './followed';
import { momentFromSearch, replayRange, urlAtMoment } from './use-replay';

describe('followed runners', () => {
  it.each([
    { ids: [], id: 3, want: [3] },
    { ids: [1, 3], id: 3, want: [1] },
    { ids: [1], id: 2, want: [1, 2] },
  ])('toggle $id in $ids', ({ ids, id, want }) => {
    expect(toggled(ids, id)).toEqual(want);
  });

  it('pins followed rows at the top in their leaderboard order', () => {
    const rows = [1, 2, 3, 4, 5].map((RunnerId) => ({ RunnerId }));
    expect(pinFollowed(rows, new Set([4, 2])).map((r) => r.RunnerId)).toEqual([2, 4, 1, 3, 5]);
    expect(pinFollowed(rows, new Set()).map((r) => r.RunnerId)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('replay moment in the address', () => {
  it.each([
    { search: '?t=2026-06-01T10:00:00.000Z', want: Date.UTC(2026, 5, 1, 10) },
    { search: '?t=2026-06-01T12:00:00%2B02:00', want: Date.UTC(2026, 5, 1, 10) },
    { search: '?t=nonsense', want: null },
    { search: '', want: null },
  ])('$search', ({ search, want }) => {
    expect(momentFromSearch(search)).toBe(want);
  });

  it('sets and removes ?t= keeping the rest of the address', () => {
    const at = Date.UTC(2026, 5, 1, 10);
    const url = urlAtMoment('https://x.test/race/4?view=map', at);
    expect(url).toBe('https://x.test/race/4?view=map&t=2026-06-01T10%3A00%3A00.000Z');
    expect(momentFromSearch(new URL(url).search)).toBe(at);
    expect(urlAtMoment(url, null)).toBe('https://x.test/race/4?view=map');
  });

  it.each([
    {
      start: '2026-06-01T06:00:00Z',
      stop: null,
      now: Date.UTC(2026, 5, 1, 9),
      want: [Date.UTC(2026, 5, 1, 6), Date.UTC(2026, 5, 1, 9)],
    },
    {
      start: '2026-06-01T06:00:00Z',
      stop: '2026-06-01T08:00:00Z',
      now: Date.UTC(2026, 5, 2),
      want: [Date.UTC(2026, 5, 1, 6), Date.UTC(2026, 5, 1, 8)],
    },
    { start: null, stop: null, now: 5, want: [null, 5] },
  ])('range from $start to $stop', ({ start, stop, now, want }) => {
    const r = replayRange(start, stop, now);
    expect([r.from, r.to]).toEqual(want);
  });
});
