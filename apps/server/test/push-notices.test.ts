import type { LeaderboardRow, Split } from '@racebeacon/domain';
import { describe, expect, it } from 'vitest';
import { decideRunnerNotices, raceTime, type NoticeContext, type RunnerNews } from '../src/push/notices';
import type { RunnerSent } from '../src/push/repository';

/** The pure rule of what a follower is told about one runner (push/notices.ts), case by case. */

const MIN = 60_000;
const T0 = Date.UTC(2026, 5, 1, 6, 0, 0); // race clock start
const NOW = T0 + 180 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

const row = (over: Partial<LeaderboardRow> = {}): LeaderboardRow =>
  ({
    Rank: 1,
    RunnerId: 7,
    BibNumber: '42',
    FirstName: 'Ada',
    LastName: 'Lovelace',
    Gender: 'F',
    Age: 36,
    Status: 'racing',
    DistanceKm: 12.3,
    FinishTime: null,
    LastPingTime: iso(NOW - 5 * MIN),
    ...over,
  }) as LeaderboardRow;

const split = (checkpointId: number, ms: number): Split => ({
  CheckpointId: checkpointId,
  PassingTime: iso(ms),
  Source: 'gps',
  Estimated: true,
});

const news = (over: Partial<RunnerNews> = {}): RunnerNews => ({
  raceId: 3,
  row: row(),
  splits: [split(1, T0)],
  manualStatus: null,
  manualStatusAt: null,
  ...over,
});

const ctx = (over: Partial<NoticeContext> = {}): NoticeContext => ({
  nowMs: NOW,
  delayMs: 0,
  clockStartMs: T0,
  endedMs: null,
  checkpoints: new Map([
    [1, { name: 'Start', kind: 'start', distanceM: 0 }],
    [2, { name: 'Col', kind: 'waypoint', distanceM: 8000 }],
    [3, { name: 'Lac', kind: 'waypoint', distanceM: 12000 }],
    [4, { name: 'Finish', kind: 'finish', distanceM: 20000 }],
  ]),
  kinds: new Set(['checkpoint', 'finished', 'dnf', 'no-news']),
  ...over,
});

const fresh: RunnerSent = { since: 0, cps: [] };

describe('decideRunnerNotices', () => {
  it('tells the latest new checkpoint once, with the race time; the start is never news', () => {
    const n = news({ splits: [split(1, T0), split(2, T0 + 60 * MIN), split(3, T0 + 95 * MIN + 4000)] });
    const first = decideRunnerNotices(n, fresh, ctx());
    expect(first.notices).toEqual([
      {
        kind: 'checkpoint',
        title: 'Ada Lovelace (bib 42)',
        body: 'Ada Lovelace (bib 42) passed Lac at km 12.0, 1:35:04 into the race.',
        url: '/race/3/runner/42',
        tag: 'runner-3-7',
        raceId: 3,
        runnerId: 7,
      },
    ]);
    expect(first.sent.cps).toEqual([2, 3]);
    expect(decideRunnerNotices(n, first.sent, ctx()).notices).toEqual([]);
  });

  it('waits for the public delay, and what was public before following began is recorded, not told', () => {
    const n = news({ splits: [split(2, NOW - 10 * MIN)] });
    const delayed = ctx({ delayMs: 30 * MIN });
    const early = decideRunnerNotices(n, fresh, delayed);
    expect(early.notices).toEqual([]);
    expect(early.sent.cps).toEqual([]); // not yet public: decided later
    const later = decideRunnerNotices(n, early.sent, { ...delayed, nowMs: NOW + 21 * MIN });
    expect(later.notices.map((x) => x.kind)).toEqual(['checkpoint']);
    // Following began after it became public: recorded as sent, nothing told.
    const old = decideRunnerNotices(n, { since: NOW, cps: [] }, ctx());
    expect(old.notices).toEqual([]);
    expect(old.sent.cps).toEqual([2]);
  });

  it('tells the finish instead of the finish checkpoint and a checkpoint of the same pass', () => {
    const finish = T0 + 170 * MIN + 30_000;
    const n = news({
      row: row({ Status: 'finished', FinishTime: iso(finish), DistanceKm: 20 }),
      splits: [split(1, T0), split(3, T0 + 150 * MIN), split(4, finish)],
    });
    const d = decideRunnerNotices(n, fresh, ctx());
    expect(d.notices.map((x) => [x.kind, x.body])).toEqual([
      ['finished', 'Ada Lovelace (bib 42) finished in 2:50:30.'],
    ]);
    expect(d.sent).toMatchObject({ finished: true, cps: [3] });
  });

  it('tells a DNF with the distance reached; a DNF runner is never "no news"', () => {
    const n = news({
      row: row({ Status: 'dnf', LastPingTime: iso(NOW - 90 * MIN), DistanceKm: 9.25 }),
      manualStatus: 'DNF',
      manualStatusAt: new Date(NOW - 2 * MIN),
    });
    const d = decideRunnerNotices(n, fresh, ctx());
    expect(d.notices.map((x) => [x.kind, x.body])).toEqual([
      ['dnf', 'Ada Lovelace (bib 42) did not finish (DNF), recorded at km 9.3.'],
    ]);
    expect(decideRunnerNotices(n, d.sent, ctx()).notices).toEqual([]);
  });

  it('tells an hour of silence once per last ping, not after the race clock stopped, not for DNS', () => {
    const silent = news({ row: row({ Status: 'stale', LastPingTime: iso(NOW - 61 * MIN) }) });
    const d = decideRunnerNotices(silent, fresh, ctx());
    expect(d.notices).toHaveLength(1);
    expect(d.notices[0].title).toBe('No news of Ada Lovelace (bib 42) for 1 hour');
    expect(d.notices[0].body).toBe(
      'Last heard at km 12.3, 1:59:00 into the race. Satellite trackers are often silent in deep valleys and ' +
        'under thick forest; the silence alone does not mean anything is wrong.',
    );
    expect(decideRunnerNotices(silent, d.sent, ctx()).notices).toEqual([]);
    // A new ping, then silence again: told again.
    const again = news({ row: row({ Status: 'stale', LastPingTime: iso(NOW - 60 * MIN) }) });
    expect(decideRunnerNotices(again, d.sent, ctx({ nowMs: NOW + MIN })).notices).toHaveLength(1);
    // 59 min: not yet.
    const quiet = news({ row: row({ LastPingTime: iso(NOW - 59 * MIN) }) });
    expect(decideRunnerNotices(quiet, fresh, ctx()).notices).toEqual([]);
    // The race ended before the hour was up.
    expect(decideRunnerNotices(silent, fresh, ctx({ endedMs: NOW - 30 * MIN })).notices).toEqual([]);
    // Did not start.
    const dns = news({ row: row({ Status: 'dns', LastPingTime: iso(NOW - 90 * MIN) }), manualStatus: 'DNS' });
    expect(decideRunnerNotices(dns, fresh, ctx()).notices).toEqual([]);
  });

  it('sends only the kinds asked for, and still records the others as seen', () => {
    const n = news({ splits: [split(2, NOW - MIN)], row: row({ LastPingTime: iso(NOW - 70 * MIN) }) });
    const d = decideRunnerNotices(n, fresh, ctx({ kinds: new Set(['no-news']) }));
    expect(d.notices.map((x) => x.kind)).toEqual(['no-news']);
    expect(d.sent.cps).toEqual([2]);
  });

  it('speaks the subscription’s language, with its decimal comma', () => {
    const n = news({ splits: [split(2, T0 + 60 * MIN)] });
    const say = (locale: string) => decideRunnerNotices(n, fresh, ctx({ locale })).notices[0];
    expect(say('fr')).toMatchObject({
      title: 'Ada Lovelace (dossard 42)',
      body: 'Ada Lovelace (dossard 42) a franchi Col au km 8,0, après 1:00:00 de course.',
    });
    expect(say('de').body).toBe(
      'Ada Lovelace (Startnr. 42) hat Col bei km 8,0 passiert, 1:00:00 nach dem Start.',
    );
    expect(say('es').body).toBe('Ada Lovelace (dorsal 42) pasó por Col en el km 8,0, a 1:00:00 de carrera.');
    expect(say('it').body).toBe(
      'Passaggio di Ada Lovelace (pettorale 42) a Col al km 8,0, dopo 1:00:00 di gara.',
    );
    expect(say('xx').body).toBe('Ada Lovelace (bib 42) passed Col at km 8.0, 1:00:00 into the race.');
    const silent = news({ row: row({ Status: 'stale', LastPingTime: iso(NOW - 61 * MIN) }) });
    const fr = decideRunnerNotices(silent, fresh, ctx({ locale: 'fr' })).notices[0];
    expect(fr.title).toBe('Pas de nouvelles de Ada Lovelace (dossard 42) depuis 1 heure');
    expect(fr.body).toContain('Les balises satellite restent souvent muettes au fond des vallées');
  });

  it('formats race times as h:mm:ss', () => {
    expect(raceTime(0)).toBe('0:00:00');
    expect(raceTime(3_599_600)).toBe('1:00:00');
    expect(raceTime(36 * 3600_000 + 61_000)).toBe('36:01:01');
    expect(raceTime(-5000)).toBe('0:00:00');
  });
});
