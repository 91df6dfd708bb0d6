import { describe, expect, it } from 'vitest';
import type { Race } from '@racebeacon/domain/entities';
import { byRelevance } from './race-order';

let nextId = 1;
const race = (name: string, o: Partial<Race> = {}): Race => ({
  RaceId: nextId++,
  Name: name,
  Description: '',
  Location: '',
  StartTime: null,
  HasStarted: false,
  HasFinished: false,
  Approved: true,
  DirectorId: 'd',
  ...o,
});

describe('byRelevance', () => {
  it('puts live races first, then upcoming soonest first (undated last), then finished most recent first', () => {
    const oldFinished = race('old finished', {
      StartTime: '2024-05-01T08:00:00Z',
      HasStarted: true,
      HasFinished: true,
    });
    const recentFinished = race('recent finished', {
      StartTime: '2026-09-01T08:00:00Z',
      HasStarted: true,
      HasFinished: true,
    });
    const undated = race('undated');
    const later = race('later', { StartTime: '2027-06-01T08:00:00Z' });
    const sooner = race('sooner', { StartTime: '2027-01-01T08:00:00Z' });
    const live = race('live', { StartTime: '2026-11-25T08:00:00Z', HasStarted: true });
    const input = [oldFinished, recentFinished, undated, later, sooner, live];
    expect(byRelevance(input).map((r) => r.Name)).toEqual([
      'live',
      'sooner',
      'later',
      'undated',
      'recent finished',
      'old finished',
    ]);
    // The input is not reordered in place.
    expect(input[0].Name).toBe('old finished');
  });

  it('keeps creation order among races with the same stage and time', () => {
    const a = race('a');
    const b = race('b');
    expect(byRelevance([b, a]).map((r) => r.Name)).toEqual(['a', 'b']);
  });
});
