import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ALERT_KINDS,
  ALERT_SETTINGS_LIMITS,
  DEFAULT_ALERT_SETTINGS,
  DEFAULT_EXPECTED_INTERVAL_S,
  DEVICE_SOURCES,
  SELF_CLEARING_KINDS,
  alertActionSchema,
  alertFromSpotMessageType,
  alertHistoryWindowMs,
  alertLogEntrySchema,
  alertSchema,
  alertSettingsSchema,
  evaluateRunnerConditions,
  expectedIntervalMs,
  formatAlertDuration,
  ALERT_MESSAGE_KEYS,
  alertMessage,
  alertMessageEnglish,
  isAlertMessageKey,
  nextAlertTransitions,
  sosOrHelpFromText,
  staleAfterMs,
  sweepRaceAlerts,
  type ActiveCondition,
  type AlertFix,
  type AlertKind,
  type AlertRunnerStatus,
  type AlertSettings,
  type DeviceSource,
  type OpenAlertRef,
  type RunnerAlertInput,
} from '../src';
import {
  addFix,
  buildLeaderboard,
  computeRunnerState,
  refreshRunnerState,
  type LeaderboardRunner,
} from '../src/course';
import { fixAt, min, started, straight } from './support/course-fixtures';

const NOW = Date.UTC(2026, 5, 6, 12, 0, 0);
const MIN = 60_000;
const S: AlertSettings = alertSettingsSchema.parse({});

/** A fix `ago` minutes before NOW at `progressM` along the course. */
function fx(ago: number, progressM: number | null, offCourse = false): AlertFix {
  return { t: NOW - ago * MIN, progressM, offCourse, lat: 45 + (progressM ?? 0) / 1e6, lon: 6 };
}

/** Fixes every `every` minutes from `from` minutes ago to `to` minutes ago, progress by `progress(ago)`. */
function track(
  from: number,
  to: number,
  every: number,
  progress: (ago: number) => number | null,
): AlertFix[] {
  const out: AlertFix[] = [];
  for (let ago = from; ago >= to - 1e-9; ago -= every) out.push(fx(ago, progress(ago)));
  return out;
}

function input(over: Partial<RunnerAlertInput> = {}): RunnerAlertInput {
  return {
    status: 'racing',
    racing: true,
    expectedIntervalMs: expectedIntervalMs('osmand'),
    // Moving at 10 km/h (~167 m/min) for the last 90 minutes, one fix a minute, newest just now.
    fixes: track(90, 0, 1, (ago) => 20_000 - ago * 167),
    batteryPercent: 80,
    batteryLow: false,
    waypointDistancesM: [],
    ...over,
  };
}

const kinds = (c: ActiveCondition[]) => c.map((x) => x.kind).sort();
const evaluate = (over: Partial<RunnerAlertInput>, settings: Partial<AlertSettings> = {}, now = NOW) =>
  evaluateRunnerConditions(input(over), { ...S, ...settings }, now);

describe('constants', () => {
  it('self-clearing kinds are alert kinds, and sos/help are not among them', () => {
    for (const k of SELF_CLEARING_KINDS) expect(ALERT_KINDS).toContain(k);
    expect(SELF_CLEARING_KINDS).not.toContain('sos');
    expect(SELF_CLEARING_KINDS).not.toContain('help');
  });
  it('every device source has an expected interval', () => {
    expect(Object.keys(DEFAULT_EXPECTED_INTERVAL_S).sort()).toEqual([...DEVICE_SOURCES].sort());
  });
  it('the settings schema fills in DEFAULT_ALERT_SETTINGS', () => {
    expect(S).toEqual(DEFAULT_ALERT_SETTINGS);
  });
  it('the history window covers the aid-station rule (2 N)', () => {
    expect(alertHistoryWindowMs(S)).toBeGreaterThan(2 * S.NoMovementMinutes * MIN);
  });
});

describe('expected interval per source', () => {
  it.each<[DeviceSource, number | null | undefined, number]>([
    ['spot', undefined, 150_000],
    ['inreach', undefined, 600_000],
    ['osmand', undefined, 60_000],
    ['owntracks', undefined, 60_000],
    ['lorawan', undefined, 300_000],
    ['meshtastic', undefined, 300_000],
    ['lorawan', 120, 120_000],
    ['meshtastic', 900, 900_000],
    ['inreach', null, 600_000],
    ['inreach', 0, 600_000],
    ['inreach', -5, 600_000],
    ['inreach', Number.NaN, 600_000],
  ])('%s with override %s: %s ms', (source, override, ms) => {
    expect(expectedIntervalMs(source, override)).toBe(ms);
  });

  it('stale / lost after k × the expected interval', () => {
    expect(staleAfterMs('osmand', null, 3)).toBe(180_000);
    expect(staleAfterMs('spot', null, 2)).toBe(300_000);
    expect(staleAfterMs('inreach', null, 3)).toBe(1_800_000);
    expect(staleAfterMs('lorawan', 60, 1.5)).toBe(90_000);
    expect(staleAfterMs('inreach')).toBe(3 * 600_000);
  });
});

describe('leaderboard staleness per runner', () => {
  const course = straight(20_000);
  const k = DEFAULT_ALERT_SETTINGS.LostSignalFactor;
  const inreach = staleAfterMs('inreach', null, k);
  const phone = staleAfterMs('osmand', null, k);
  // Last fix at minute 10, 2 km along.
  const fixes = [fixAt(course, 500, 2), fixAt(course, 1000, 5), fixAt(course, 2000, 10)];

  it.each<[string, number | undefined, number, string]>([
    ['inReach runner silent 12 min', inreach, 22, 'racing'],
    ['inReach runner silent 31 min', inreach, 41, 'stale'],
    ['phone runner silent 2 min', phone, 12, 'racing'],
    ['phone runner silent 4 min', phone, 14, 'stale'],
    ['runner of unknown device silent 4 min (default 2 × 150 s)', undefined, 14, 'racing'],
    ['runner of unknown device silent 12 min (default 2 × 150 s)', undefined, 22, 'stale'],
  ])('%s: %s', (_, own, nowMin, status) => {
    const s = computeRunnerState(course, fixes, started, min(nowMin), { staleAfterMs: own });
    expect(s.status).toBe(status);
  });

  it('the state keeps its threshold through addFix, refreshes and the leaderboard', () => {
    let s = computeRunnerState(course, fixes.slice(0, 2), started, min(5), { staleAfterMs: inreach });
    s = addFix(course, s, fixes, fixes[2], started, min(10));
    expect(s.staleAfterMs).toBe(inreach);
    expect(refreshRunnerState(course, s, started, min(22)).status).toBe('racing');
    // A late fix recomputes from scratch: the threshold survives.
    const late = fixAt(course, 700, 3);
    const s2 = addFix(course, s, [...fixes.slice(0, 1), late, ...fixes.slice(1)], late, started, min(11));
    expect(s2.staleAfterMs).toBe(inreach);

    const p = computeRunnerState(course, fixes, started, min(10), { staleAfterMs: phone });
    const runners: LeaderboardRunner[] = [
      {
        RunnerId: 1,
        BibNumber: '1',
        FirstName: 'In',
        LastName: 'Reach',
        Gender: 'F',
        Age: 40,
        BatteryState: null,
        state: s,
      },
      {
        RunnerId: 2,
        BibNumber: '2',
        FirstName: 'Pho',
        LastName: 'Ne',
        Gender: 'M',
        Age: 30,
        BatteryState: null,
        state: p,
      },
    ];
    const rows = buildLeaderboard(runners, course, started, min(14));
    expect(Object.fromEntries(rows.map((r) => [r.RunnerId, r.Status]))).toEqual({ 1: 'racing', 2: 'stale' });
  });

  it('a refresh given a new threshold (device handed over, setting changed) uses and keeps it', () => {
    const s = computeRunnerState(course, fixes, started, min(14), { staleAfterMs: phone });
    expect(s.status).toBe('stale');
    const r = refreshRunnerState(course, s, started, min(14), { staleAfterMs: inreach });
    expect(r.status).toBe('racing');
    expect(r.staleAfterMs).toBe(inreach);
  });
});

describe('lost-signal', () => {
  // k = 3: phone 3 min, SPOT 7.5 min, inReach 30 min, LoRaWAN 15 min.
  it.each<[DeviceSource, number, boolean]>([
    ['osmand', 2.9, false],
    ['osmand', 3.1, true],
    ['owntracks', 4, true],
    ['spot', 7, false],
    ['spot', 8, true],
    ['inreach', 12, false],
    ['inreach', 29, false],
    ['inreach', 31, true],
    ['lorawan', 14, false],
    ['lorawan', 16, true],
    ['meshtastic', 16, true],
  ])('%s silent %s min: lost %s', (source, silentMin, lost) => {
    const fixes = track(90, silentMin, 0.5, (ago) => 20_000 - ago * 167);
    const c = evaluate({ fixes, expectedIntervalMs: expectedIntervalMs(source) });
    expect(c.some((x) => x.kind === 'lost-signal')).toBe(lost);
  });

  it('follows the factor k and the device override', () => {
    const fixes = track(90, 10, 1, (ago) => 20_000 - ago * 167);
    expect(
      kinds(evaluate({ fixes, expectedIntervalMs: expectedIntervalMs('spot') }, { LostSignalFactor: 5 })),
    ).toEqual([]);
    expect(kinds(evaluate({ fixes, expectedIntervalMs: expectedIntervalMs('inreach', 120) }))).toEqual([
      'lost-signal',
    ]);
  });

  it('says how long and what was expected, at the last known position, since the last fix', () => {
    const fixes = track(90, 34, 1, (ago) => 20_000 - ago * 167);
    const [c] = evaluate({ fixes, expectedIntervalMs: expectedIntervalMs('spot') });
    expect(c).toEqual({
      kind: 'lost-signal',
      message: 'No fix for 34 min (expected every 2.5 min)',
      messageKey: 'lost-signal',
      messageParams: { silentMs: 34 * MIN, expectedMs: 150_000 },
      lat: fixes.at(-1)!.lat,
      lon: fixes.at(-1)!.lon,
      since: NOW - 34 * MIN,
    });
  });

  it('uses lastFix when the fixes given do not reach back to it', () => {
    const c = evaluate({ fixes: [], lastFix: { t: NOW - 50 * MIN, lat: 1, lon: 2 } });
    expect(c).toEqual([
      expect.objectContaining({ kind: 'lost-signal', lat: 1, lon: 2, since: NOW - 50 * MIN }),
    ]);
    expect(evaluate({ fixes: [], lastFix: null })).toEqual([]);
  });
});

describe('no-movement', () => {
  /** Stopped at 5000 m for `stopped` minutes (fixes every minute, newest now), moving before that. */
  const stoppedFor = (stopped: number, drift = 0) =>
    track(90, 0, 1, (ago) =>
      ago > stopped ? 5000 - (ago - stopped) * 167 : 5000 + drift * ((stopped - ago) / stopped),
    );

  it.each<[string, number, number, Partial<AlertSettings>, boolean]>([
    ['stopped 29 min', 29, 0, {}, false],
    ['stopped 31 min', 31, 0, {}, true],
    ['crept 90 m in 45 min', 45, 90, {}, true],
    ['crept 100 m in 45 min', 45, 100, {}, true],
    ['crept 150 m in 45 min (100 m in the last 30)', 45, 150, {}, true],
    ['walked 300 m in 45 min (200 m in the last 30)', 45, 300, {}, false],
    ['stopped 45 min with N = 60', 45, 0, { NoMovementMinutes: 60 }, false],
    ['stopped 61 min with N = 60', 61, 0, { NoMovementMinutes: 60 }, true],
    ['stopped 6 min with N = 5', 6, 0, { NoMovementMinutes: 5 }, true],
  ])('%s: %s', (_, stopped, drift, settings, raised) => {
    const c = evaluate({ fixes: stoppedFor(stopped, drift) }, settings);
    expect(c.some((x) => x.kind === 'no-movement')).toBe(raised);
  });

  it.each<[string, number[], number, Partial<AlertSettings>, boolean]>([
    ['at an aid station (100 m past it), stopped 31 min', [5100], 31, {}, false],
    ['at an aid station, stopped 59 min', [5100], 59, {}, false],
    ['at an aid station, stopped 61 min (2 N)', [5100], 61, {}, true],
    ['aid station 140 m ahead, stopped 45 min', [5140], 45, {}, false],
    ['aid station 200 m ahead (outside 150 m), stopped 31 min', [5200], 31, {}, true],
    [
      'aid station 200 m ahead with a 250 m zone, stopped 31 min',
      [5200],
      31,
      { AidStationRadiusM: 250 },
      false,
    ],
    ['zone radius 0, stopped 31 min exactly at the waypoint', [5000], 31, { AidStationRadiusM: 0 }, false],
    ['zone radius 0, stopped 31 min 1 m from the waypoint', [5001], 31, { AidStationRadiusM: 0 }, true],
    ['several waypoints, the second one holds the runner', [1000, 4950, 9000], 45, {}, false],
  ])('%s: raised %s', (_, waypoints, stopped, settings, raised) => {
    const c = evaluate({ fixes: stoppedFor(stopped), waypointDistancesM: waypoints }, settings);
    expect(c.some((x) => x.kind === 'no-movement')).toBe(raised);
  });

  it('says how long and where, since the stop began', () => {
    const c = evaluate({ fixes: stoppedFor(40) });
    expect(c).toEqual([
      expect.objectContaining({
        kind: 'no-movement',
        message: 'No movement for 40 min at km 5.0',
        since: NOW - 40 * MIN,
      }),
    ]);
    const aid = evaluate({ fixes: stoppedFor(70), waypointDistancesM: [5050] });
    expect(aid[0].message).toBe('No movement for 70 min at km 5.0 (at an aid station)');
  });

  it('needs fixes to keep arriving: a silent tracker is lost-signal, not no-movement', () => {
    const fixes = track(90, 10, 1, () => 5000);
    expect(kinds(evaluate({ fixes }))).toEqual(['lost-signal']);
    // An inReach every 10 min reporting the same place for 40 min is a stop.
    const slow = track(40, 0, 10, () => 5000);
    expect(kinds(evaluate({ fixes: slow, expectedIntervalMs: expectedIntervalMs('inreach') }))).toEqual([
      'no-movement',
    ]);
  });

  it('ignores fixes the matcher could not place, and is silent while the newest fix is off course', () => {
    const withGaps = stoppedFor(40).map((f, i) => (i % 3 === 0 ? { ...f, progressM: null } : f));
    expect(kinds(evaluate({ fixes: withGaps }))).toEqual(['no-movement']);
    const fixes = stoppedFor(40);
    fixes[fixes.length - 1] = { ...fixes[fixes.length - 1], offCourse: true };
    expect(kinds(evaluate({ fixes }))).toEqual([]);
  });
});

describe('off-course', () => {
  const offLast = (n: number, total = 30) =>
    track(total - 1, 0, 1, (ago) => 5000 - ago * 100).map((f, i, all) =>
      i >= all.length - n ? { ...f, offCourse: true } : f,
    );
  it.each<[number, Partial<AlertSettings>, boolean]>([
    [0, {}, false],
    [1, {}, false],
    [2, {}, false],
    [3, {}, true],
    [10, {}, true],
    [4, { OffCourseFixes: 4 }, false],
    [5, { OffCourseFixes: 4 }, true],
    [2, { OffCourseFixes: 1 }, true],
  ])('last %s fixes off course %j: raised %s', (n, settings, raised) => {
    expect(evaluate({ fixes: offLast(n) }, settings).some((x) => x.kind === 'off-course')).toBe(raised);
  });

  it('counts only the latest run: back on course clears it', () => {
    const fixes = offLast(6);
    fixes[fixes.length - 1] = { ...fixes[fixes.length - 1], offCourse: false };
    expect(kinds(evaluate({ fixes }))).toEqual([]);
  });

  it('starts at the first fix of the run and says how many', () => {
    const [c] = evaluate({ fixes: offLast(4) });
    expect(c).toMatchObject({
      kind: 'off-course',
      message: 'Off course for the last 4 fixes (3 min)',
      since: NOW - 3 * MIN,
    });
  });
});

describe('low-battery', () => {
  it.each<[number | null, boolean, Partial<AlertSettings>, string | null]>([
    [80, false, {}, null],
    [16, false, {}, null],
    [15, false, {}, 'Battery 15 %'],
    [3, false, {}, 'Battery 3 %'],
    [0, false, {}, 'Battery 0 %'],
    [null, false, {}, null],
    [null, true, {}, 'Battery reported LOW'],
    [90, true, {}, 'Battery reported LOW'],
    [25, false, { LowBatteryPercent: 30 }, 'Battery 25 %'],
    [1, false, { LowBatteryPercent: 0 }, null],
    [Number.NaN, false, {}, null],
  ])('%s %% (LOW %s) %j: %s', (pct, low, settings, message) => {
    const c = evaluate({ batteryPercent: pct, batteryLow: low }, settings);
    expect(c.find((x) => x.kind === 'low-battery')?.message ?? null).toBe(message);
  });

  it('is raised on the start line before the race, but nothing else is', () => {
    const c = evaluate({
      status: 'not-started',
      racing: false,
      batteryPercent: 5,
      fixes: track(90, 40, 1, () => 0),
    });
    expect(kinds(c)).toEqual(['low-battery']);
  });
});

describe('runners out of the race raise nothing', () => {
  // Silent for an hour, stopped, off course, flat battery: everything at once.
  const everything: Partial<RunnerAlertInput> = {
    fixes: track(120, 60, 1, () => 5000).map((f, i, all) =>
      i >= all.length - 5 ? { ...f, offCourse: true } : f,
    ),
    batteryPercent: 2,
    batteryLow: true,
  };
  it('a racing runner with all of it raises every self-clearing kind', () => {
    expect(kinds(evaluate(everything))).toEqual(['lost-signal', 'low-battery', 'off-course']);
  });
  it.each<[AlertRunnerStatus, boolean]>([
    ['finished', false],
    ['dns', false],
    ['dnf', false],
    ['dsq', false],
    ['finished', true],
    ['dnf', true],
    ['racing', false],
    ['stale', false],
  ])('%s (racing flag %s)', (status, racing) => {
    expect(evaluate({ ...everything, status, racing })).toEqual([]);
  });
  it('a stale or off-course leaderboard status still counts as racing', () => {
    expect(kinds(evaluate({ ...everything, status: 'stale' }))).toEqual([
      'lost-signal',
      'low-battery',
      'off-course',
    ]);
    expect(kinds(evaluate({ ...everything, status: 'off-course' }))).toEqual([
      'lost-signal',
      'low-battery',
      'off-course',
    ]);
  });
});

describe('nextAlertTransitions', () => {
  const cond = (kind: AlertKind): ActiveCondition => ({
    kind,
    message: kind,
    messageKey: 'battery-low',
    messageParams: {},
    lat: null,
    lon: null,
    since: NOW,
  });
  const open = (kind: AlertKind, state: OpenAlertRef['state'] = 'open'): OpenAlertRef => ({ kind, state });
  it.each<[string, OpenAlertRef[], AlertKind[], AlertKind[], AlertKind[], AlertKind[]]>([
    // name, open alerts, active conditions, raise, resolve, ongoing
    ['nothing', [], [], [], [], []],
    ['a new condition is raised', [], ['no-movement'], ['no-movement'], [], []],
    ['an open alert is not raised twice', [open('no-movement')], ['no-movement'], [], [], ['no-movement']],
    [
      'nor an acknowledged one',
      [open('lost-signal', 'acknowledged')],
      ['lost-signal'],
      [],
      [],
      ['lost-signal'],
    ],
    [
      'a resolved one does not count: raised again',
      [open('off-course', 'resolved')],
      ['off-course'],
      ['off-course'],
      [],
      [],
    ],
    ['a duplicate condition is raised once', [], ['low-battery', 'low-battery'], ['low-battery'], [], []],
    ['a cleared condition resolves', [open('no-movement')], [], [], ['no-movement'], []],
    ['an acknowledged one too', [open('low-battery', 'acknowledged')], [], [], ['low-battery'], []],
    ['an SOS stays open', [open('sos')], [], [], [], []],
    ['an acknowledged SOS stays too', [open('sos', 'acknowledged')], [], [], [], []],
    ['a help request stays open', [open('help')], [], [], [], []],
    ['cutoff-risk does not resolve itself', [open('cutoff-risk')], [], [], [], []],
    [
      'a mix',
      [open('sos'), open('lost-signal'), open('off-course', 'acknowledged')],
      ['off-course', 'no-movement'],
      ['no-movement'],
      ['lost-signal'],
      ['off-course'],
    ],
  ])('%s', (_, openAlerts, active, raise, resolve, ongoing) => {
    const t = nextAlertTransitions(openAlerts, active.map(cond));
    expect(t.raise.map((c) => c.kind)).toEqual(raise);
    expect(t.resolve).toEqual(resolve);
    expect(t.ongoing.map((c) => c.kind)).toEqual(ongoing);
  });

  it('over time: a stop raises once, keeps one alert, and resolves itself when the runner moves on', () => {
    let openAlerts: OpenAlertRef[] = [{ kind: 'sos', state: 'open' }];
    const raised: AlertKind[] = [];
    const resolved: AlertKind[] = [];
    // Minute by minute: moving until minute 60, stopped until minute 120, moving again.
    const progressAt = (m: number) => (m < 60 ? m * 150 : m < 120 ? 9000 : 9000 + (m - 120) * 150);
    for (let m = 30; m <= 130; m++) {
      const now = NOW + m * MIN;
      const fixes: AlertFix[] = [];
      for (let j = Math.max(0, m - 75); j <= m; j++)
        fixes.push({ t: NOW + j * MIN, progressM: progressAt(j), offCourse: false, lat: 0, lon: 0 });
      const active = evaluateRunnerConditions(input({ fixes }), S, now);
      const t = nextAlertTransitions(openAlerts, active);
      raised.push(...t.raise.map((c) => c.kind));
      resolved.push(...t.resolve);
      openAlerts = openAlerts.filter((a) => !t.resolve.includes(a.kind));
      openAlerts.push(...t.raise.map((c) => ({ kind: c.kind, state: 'open' as const })));
      if (m === 95) expect(openAlerts.map((a) => a.kind)).toEqual(['sos', 'no-movement']);
    }
    expect(raised).toEqual(['no-movement']);
    expect(resolved).toEqual(['no-movement']);
    expect(openAlerts).toEqual([{ kind: 'sos', state: 'open' }]);
  });
});

describe('sweepRaceAlerts', () => {
  it('returns only runners with something to do', () => {
    const out = sweepRaceAlerts(
      [
        { runnerId: 1, input: input(), open: [] },
        { runnerId: 2, input: input({ batteryPercent: 5 }), open: [] },
        { runnerId: 3, input: input(), open: [{ kind: 'lost-signal', state: 'open' }] },
        { runnerId: 4, input: input(), open: [{ kind: 'sos', state: 'open' }] },
        { runnerId: 5, input: input({ status: 'finished', batteryPercent: 1 }), open: [] },
      ],
      S,
      NOW,
    );
    expect(out.map((r) => [r.runnerId, r.raise.map((c) => c.kind), r.resolve])).toEqual([
      [2, ['low-battery'], []],
      [3, [], ['lost-signal']],
    ]);
  });
});

describe('messages from devices', () => {
  it.each<[string | null, string | null, 'help' | null]>([
    ['Need HELP at km 30', 'help', 'help'],
    ['need help', 'HELP', 'help'],
    ['All fine', 'help', null],
    ['need help', null, null],
    ['need help', '   ', null],
    [null, 'help', null],
    ['SOS', 'help', null],
    ['Medic please', ' medic ', 'help'],
  ])('%j with keyword %j: %s', (text, keyword, kind) => {
    expect(sosOrHelpFromText(text, keyword)).toBe(kind);
  });

  it.each([
    ['SOS', { raise: 'sos' }],
    ['HELP', { raise: 'help' }],
    ['help', { raise: 'help' }],
    ['HELP-CANCEL', { cancel: 'help' }],
    ['OK', null],
    ['TRACK', null],
    ['CUSTOM', null],
    [null, null],
  ])('SPOT %s: %j', (type, result) => {
    expect(alertFromSpotMessageType(type)).toEqual(result);
  });
});

describe('formatAlertDuration', () => {
  it.each([
    [45_000, '45 s'],
    [60_000, '1 min'],
    [150_000, '2.5 min'],
    [600_000, '10 min'],
    [34 * MIN + 40_000, '34 min'],
    [125 * MIN, '2 h 5 min'],
  ])('%s ms: %s', (ms, text) => expect(formatAlertDuration(ms)).toBe(text));
});

describe('alert messages: English from key and params', () => {
  // The sentences the rules and device messages wrote before keys existed, verbatim.
  const cases: [string, ReturnType<typeof alertMessage>, string][] = [
    [
      'lost-signal',
      alertMessage('lost-signal', { silentMs: 34 * MIN + 40_000, expectedMs: 150_000 }),
      'No fix for 34 min (expected every 2.5 min)',
    ],
    [
      'off-course',
      alertMessage('off-course', { fixes: 4, durationMs: 3 * MIN }),
      'Off course for the last 4 fixes (3 min)',
    ],
    [
      'no-movement',
      alertMessage('no-movement', { durationMs: 40 * MIN, progressM: 5000 }),
      'No movement for 40 min at km 5.0',
    ],
    [
      'no-movement-aid',
      alertMessage('no-movement-aid', { durationMs: 70 * MIN, progressM: 5020 }),
      'No movement for 70 min at km 5.0 (at an aid station)',
    ],
    [
      'cutoff-passed',
      alertMessage('cutoff-passed', { checkpoint: 'Col du Bonhomme', lateMs: 125 * MIN }),
      'Cutoff at Col du Bonhomme passed 2 h 5 min ago, not there yet',
    ],
    [
      'cutoff-late',
      alertMessage('cutoff-late', { checkpoint: 'CP2', lateMs: 45_000 }),
      'Expected at CP2 45 s after its cutoff',
    ],
    ['battery-percent', alertMessage('battery-percent', { percent: 16 }), 'Battery 16 %'],
    ['battery-low', alertMessage('battery-low', {}), 'Battery reported LOW'],
    ['sos', alertMessage('sos', {}), 'SOS sent from the device'],
    [
      'sos-text',
      alertMessage('sos-text', { text: 'ankle, km 12' }),
      'SOS sent from the device: ankle, km 12',
    ],
    ['help', alertMessage('help', {}), 'Help requested from the device'],
    [
      'help-text',
      alertMessage('help-text', { text: 'need HELP here' }),
      'Help requested from the device: need HELP here',
    ],
    [
      'sos-cancelled',
      alertMessage('sos-cancelled', { cancelledAt: '2026-06-06T12:00:00.000Z', text: 'fall' }),
      'SOS sent from the device: fall — cancelled on the device at 2026-06-06T12:00:00.000Z; confirm with the runner before resolving.',
    ],
  ];
  it.each(cases)('%s', (key, m, english) => {
    expect(m.messageKey).toBe(key);
    expect(m.message).toBe(english);
    expect(alertMessageEnglish(m.messageKey, m.messageParams)).toBe(english);
  });
  it('covers every key, and only those are keys', () => {
    expect(cases.map(([k]) => k).sort()).toEqual([...ALERT_MESSAGE_KEYS].sort());
    expect(isAlertMessageKey('sos')).toBe(true);
    expect(isAlertMessageKey('fire')).toBe(false);
    expect(isAlertMessageKey(null)).toBe(false);
  });
  it('an SOS cancelled without text', () => {
    expect(alertMessageEnglish('sos-cancelled', { cancelledAt: 'T' })).toBe(
      'SOS sent from the device — cancelled on the device at T; confirm with the runner before resolving.',
    );
  });
  it('every condition a rule raises says its English through its key and params', () => {
    const fixes = track(90, 34, 1, (ago) => 20_000 - ago * 167);
    const all = [
      ...evaluate({ fixes, expectedIntervalMs: expectedIntervalMs('spot'), batteryPercent: 7 }),
      ...evaluate({
        fixes: track(29, 0, 1, (ago) => 5000 - ago * 100).map((f, i, all) =>
          i >= all.length - 4 ? { ...f, offCourse: true } : f,
        ),
        batteryLow: true,
      }),
      ...evaluate({ fixes: track(60, 0, 1, () => 5000) }),
    ];
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const c of all) expect(alertMessageEnglish(c.messageKey, c.messageParams)).toBe(c.message);
  });
});

describe('schemas', () => {
  const L = ALERT_SETTINGS_LIMITS;
  it.each<[string, unknown, boolean]>([
    ['NoMovementMinutes', L.NoMovementMinutes.min, true],
    ['NoMovementMinutes', L.NoMovementMinutes.min - 1, false],
    ['NoMovementMinutes', L.NoMovementMinutes.max, true],
    ['NoMovementMinutes', L.NoMovementMinutes.max + 1, false],
    ['NoMovementMinutes', 30.5, false],
    ['NoMovementMinutes', '30', false],
    ['LostSignalFactor', 1.5, true],
    ['LostSignalFactor', 1.49, false],
    ['LostSignalFactor', 2.5, true],
    ['LostSignalFactor', 20, true],
    ['LostSignalFactor', 20.01, false],
    ['LowBatteryPercent', 0, true],
    ['LowBatteryPercent', -1, false],
    ['LowBatteryPercent', 100, true],
    ['LowBatteryPercent', 101, false],
    ['OffCourseFixes', 0, false],
    ['OffCourseFixes', 1, true],
    ['OffCourseFixes', 20, true],
    ['OffCourseFixes', 21, false],
    ['AidStationRadiusM', 0, true],
    ['AidStationRadiusM', 2000, true],
    ['AidStationRadiusM', 2001, false],
    ['AidStationRadiusM', -1, false],
    ['HelpKeyword', null, true],
    ['HelpKeyword', 'x'.repeat(50), true],
    ['HelpKeyword', 'x'.repeat(51), false],
    ['HelpKeyword', 'a\u0000b', false],
    ['HelpKeyword', 5, false],
  ])('alert settings %s = %j: valid %s', (field, value, ok) => {
    expect(alertSettingsSchema.safeParse({ [field]: value }).success).toBe(ok);
  });

  it('alert settings: missing fields take their defaults, text is trimmed, unknown fields dropped', () => {
    expect(alertSettingsSchema.parse({ NoMovementMinutes: 45, HelpKeyword: '  medic ', Other: 1 })).toEqual({
      ...DEFAULT_ALERT_SETTINGS,
      NoMovementMinutes: 45,
      HelpKeyword: 'medic',
    });
  });

  it.each<[unknown, boolean, unknown]>([
    [{}, true, undefined],
    [{ Note: '  on my way  ' }, true, 'on my way'],
    [{ Note: 'x'.repeat(2000) }, true, 'x'.repeat(2000)],
    [{ Note: 'x'.repeat(2001) }, false, null],
    [{ Note: ` ${'x'.repeat(2000)}  ` }, true, 'x'.repeat(2000)],
    [{ Note: 'a\u0000b' }, false, null],
    [{ Note: 5 }, false, null],
  ])('alert action %j: valid %s', (body, ok, note) => {
    const r = alertActionSchema.safeParse(body);
    expect(r.success).toBe(ok);
    if (r.success) expect(r.data.Note).toEqual(note);
  });

  const alert = {
    AlertId: 1,
    RaceId: 2,
    RunnerId: 3,
    BibNumber: '42',
    RunnerName: 'Ann Lee',
    DeviceId: 4,
    DeviceName: 'inReach 7',
    Kind: 'sos',
    State: 'open',
    RaisedAt: '2026-06-06T12:00:00.000Z',
    LastSeenAt: '2026-06-06T12:00:00.000Z',
    Latitude: 45.1,
    Longitude: 6.2,
    Message: 'SOS from inReach 7',
    MessageKey: 'sos-text',
    MessageParams: { text: 'from inReach 7' },
    AcknowledgedBy: null,
    AcknowledgedAt: null,
    ResolvedBy: null,
    ResolvedAt: null,
    Note: null,
  };
  it('an alert parses; an unknown kind or state does not; a device without a race is allowed', () => {
    expect(alertSchema.parse(alert)).toEqual(alert);
    expect(alertSchema.safeParse({ ...alert, Kind: 'fire' }).success).toBe(false);
    expect(alertSchema.safeParse({ ...alert, State: 'closed' }).success).toBe(false);
    expect(
      alertSchema.safeParse({ ...alert, RaceId: null, RunnerId: null, BibNumber: null, RunnerName: null })
        .success,
    ).toBe(true);
    expect(alertSchema.safeParse({ ...alert, Message: undefined }).success).toBe(false);
    expect(alertSchema.safeParse({ ...alert, MessageKey: null, MessageParams: null }).success).toBe(true);
    expect(alertSchema.safeParse({ ...alert, MessageKey: 'fire' }).success).toBe(false);
    expect(alertSchema.safeParse({ ...alert, MessageParams: { text: true } }).success).toBe(false);
  });

  it('a log entry parses', () => {
    const e = {
      AlertId: 1,
      State: 'acknowledged',
      At: '2026-06-06T12:01:00Z',
      By: 'director@example.org',
      Note: 'ok',
    };
    expect(alertLogEntrySchema.parse(e)).toEqual(e);
    expect(alertLogEntrySchema.safeParse({ ...e, By: null, Note: null }).success).toBe(true);
  });

  it('every schema has a JSON Schema for the OpenAPI document (request and response)', () => {
    for (const schema of [alertSchema, alertLogEntrySchema, alertActionSchema, alertSettingsSchema]) {
      expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
    }
  });
});
