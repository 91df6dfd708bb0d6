import { describe, expect, it } from 'vitest';
import { liveElapsedSeconds, racePhase, serverOffset, shownStatus, type RaceClockView } from './live-clock';

const START = '2026-06-06T07:00:00.000Z';
const startMs = Date.parse(START);
const running: RaceClockView = { clockStartedAt: START, clockStoppedAt: null, serverOffsetMs: 0 };
const at = (minutes: number) => startMs + minutes * 60_000;

describe('liveElapsedSeconds', () => {
  it('moves a racing runner on with the race clock between their pings', () => {
    // The row was sent at 40 min; half a minute and then ten minutes later the browser shows the clock.
    const row = { Status: 'racing' as const, ElapsedSeconds: 40 * 60 };
    expect(liveElapsedSeconds(row, running, at(40.5))).toBe(40 * 60 + 30);
    expect(liveElapsedSeconds(row, running, at(50))).toBe(50 * 60);
  });

  it('stale and off-course runners are still out there: their clock runs too', () => {
    for (const Status of ['stale', 'off-course'] as const) {
      expect(liveElapsedSeconds({ Status, ElapsedSeconds: 600 }, running, at(30))).toBe(1800);
    }
  });

  it('finished and not-started runners keep the server value', () => {
    expect(liveElapsedSeconds({ Status: 'finished', ElapsedSeconds: 1234 }, running, at(90))).toBe(1234);
    expect(liveElapsedSeconds({ Status: 'not-started', ElapsedSeconds: null }, running, at(90))).toBeNull();
  });

  it('stops at End Race', () => {
    const ended = { ...running, clockStoppedAt: new Date(at(60)).toISOString() };
    expect(liveElapsedSeconds({ Status: 'racing', ElapsedSeconds: 3000 }, ended, at(75))).toBe(3600);
  });

  it('before Start Race, or with an unreadable clock, the server value stands', () => {
    const row = { Status: 'racing' as const, ElapsedSeconds: 77 };
    expect(liveElapsedSeconds(row, { ...running, clockStartedAt: null }, at(5))).toBe(77);
    expect(liveElapsedSeconds(row, { ...running, clockStartedAt: 'soon' }, at(5))).toBe(77);
  });

  it('reads the clock on the server time scale, and never goes below what the server sent', () => {
    // Browser clock two minutes behind the server.
    const skewed = { ...running, serverOffsetMs: 120_000 };
    expect(liveElapsedSeconds({ Status: 'racing', ElapsedSeconds: 600 }, skewed, at(10))).toBe(720);
    // Browser clock far behind with no offset known: the server's value is kept rather than going back.
    expect(liveElapsedSeconds({ Status: 'racing', ElapsedSeconds: 600 }, running, at(5))).toBe(600);
    expect(liveElapsedSeconds({ Status: 'racing', ElapsedSeconds: null }, running, at(-1))).toBe(0);
  });
});

describe('serverOffset', () => {
  it('is the send time minus the receive time; an unreadable send time keeps the previous estimate', () => {
    expect(serverOffset(new Date(at(10)).toISOString(), at(10) - 5000, 0)).toBe(5000);
    expect(serverOffset('', at(10), 42)).toBe(42);
  });
});

describe('racePhase and shownStatus', () => {
  const notStarted = { HasStarted: false, HasFinished: false };
  const started = { HasStarted: true, HasFinished: false };
  const ended = { HasStarted: true, HasFinished: true };
  const none = { clockStartedAt: null, clockStoppedAt: null };

  it('follows the race as loaded until the stream has spoken', () => {
    expect(racePhase(notStarted, none, false)).toBe('upcoming');
    expect(racePhase(started, none, false)).toBe('live');
    expect(racePhase(ended, none, false)).toBe('finished');
  });

  it('then follows the stream clock, so Start and End Race show without a reload', () => {
    expect(racePhase(notStarted, { clockStartedAt: START, clockStoppedAt: null }, true)).toBe('live');
    expect(racePhase(started, { clockStartedAt: START, clockStoppedAt: START }, true)).toBe('finished');
    expect(racePhase(started, none, true)).toBe('upcoming');
  });

  it('shows nobody as stale, racing or off course once the race is over', () => {
    for (const s of ['racing', 'stale', 'off-course'] as const) {
      expect(shownStatus(s, 'finished')).toBe('unfinished');
      expect(shownStatus(s, 'live')).toBe(s);
    }
    expect(shownStatus('finished', 'finished')).toBe('finished');
    expect(shownStatus('not-started', 'finished')).toBe('not-started');
  });
});
