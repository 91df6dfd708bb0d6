import { describe, expect, it } from 'vitest';
import {
  AGE_GROUPS,
  buildLeaderboard,
  computeRunnerState,
  courseFromMetres,
  filterLeaderboard,
  parseAgeGroup,
  pointAtDistance,
  polylineMetres,
  prepareCourse,
  type LeaderboardRunner,
  type RunnerState,
} from '../src/course';
import { leaderboardRowSchema } from '../src/live-messages';
import { fixAt, min, START, started, straight } from './support/course-fixtures';

const course = straight(5000);
const state = (pts: [number, number][], now = min(30)): RunnerState =>
  computeRunnerState(
    course,
    pts.map(([d, m]) => fixAt(course, d, m)),
    started,
    now,
  );

let nextId = 1;
function runner(
  name: string,
  gender: 'M' | 'F',
  age: number | null,
  s: RunnerState,
  bib: string | null = String(nextId),
): LeaderboardRunner {
  const [FirstName, LastName] = name.split(' ');
  return {
    RunnerId: nextId++,
    BibNumber: bib,
    FirstName,
    LastName,
    Gender: gender,
    Age: age,
    BatteryState: 'GOOD',
    state: s,
  };
}

// Finishers: Ana (crosses at ~20 min), Ben (~22.5 min). Racing: Cleo 4.0 km, Dan 3.0 km (reached 3.0 km later than
// Eve), Eve 3.0 km. Not seen: Finn.
const ana = runner(
  'Ana Álvarez',
  'F',
  34,
  state([
    [4000, 16],
    [4500, 18],
    [5000, 21],
  ]),
);
const ben = runner(
  'Ben Brown',
  'M',
  45,
  state([
    [4000, 18],
    [4500, 20.25],
    [5000, 23.5],
  ]),
);
const cleo = runner(
  'Cleo Chen',
  'F',
  19,
  state([
    [2000, 10],
    [3000, 15],
    [4000, 20],
    [4000, 27.5],
  ]),
);
const dan = runner(
  'Dan Dunn',
  'M',
  61,
  state([
    [1500, 10],
    [3000, 25],
  ]),
);
const eve = runner(
  'Eve Evans',
  'F',
  29,
  state([
    [1500, 8],
    [3000, 20],
    [3000, 28],
  ]),
);
const finn = runner('Finn Fox', 'M', null, state([]), null);
const rows = buildLeaderboard([finn, dan, cleo, eve, ben, ana], course, started, min(30));

describe('buildLeaderboard', () => {
  it('finished by finish time, then by distance, earlier arrival first; unseen runners last, unranked', () => {
    expect(rows.map((r) => [r.FirstName, r.Rank, r.Status])).toEqual([
      ['Ana', 1, 'finished'],
      ['Ben', 2, 'finished'],
      ['Cleo', 3, 'racing'],
      ['Eve', 4, 'racing'],
      ['Dan', 5, 'racing'],
      ['Finn', null, 'not-started'],
    ]);
  });

  it('fills every leaderboard field, null where unknown', () => {
    const a = rows[0];
    expect(a).toMatchObject({
      RunnerId: ana.RunnerId,
      BibNumber: ana.BibNumber,
      Gender: 'F',
      Age: 34,
      DistanceKm: 5,
      Percent: 100,
      BatteryState: 'GOOD',
      EtaFinish: null,
    });
    expect(a.FinishTime).toMatch(/^2026-06-06T07:(19|20):\d\d\.\d{3}Z$/);
    expect(a.ElapsedSeconds).toBe((Date.parse(a.FinishTime!) - START) / 1000);
    expect(a.PaceSecondsPerKm).toBe(Math.round(a.ElapsedSeconds! / 5));
    expect(a.LastPingTime).toBe(new Date(min(21)).toISOString());
    expect(a.Latitude).toBeCloseTo(46.5, 3);

    const c = rows[2];
    expect(c.DistanceKm).toBeCloseTo(4, 1);
    expect(c.Percent).toBeCloseTo(80, 0);
    expect(c.ElapsedSeconds).toBe(1800);
    expect(c.FinishTime).toBeNull();
    expect(c.EtaFinish).not.toBeNull();

    const f = rows[5];
    expect(f).toMatchObject({
      Rank: null,
      DistanceKm: null,
      Percent: null,
      ElapsedSeconds: null,
      PaceSecondsPerKm: null,
      EtaFinish: null,
      FinishTime: null,
      LastPingTime: null,
      Latitude: null,
      Longitude: null,
      GapSeconds: null,
      GapKm: null,
      BibNumber: null,
    });
  });

  it('every row has exactly the wire shape the live endpoints publish', () => {
    for (const row of [...rows, ...filterLeaderboard(rows, { gender: 'F' })]) {
      expect(leaderboardRowSchema.strict().parse(row)).toEqual(row);
    }
  });

  it('gaps to the leader: finish-time difference, or time since the leader passed the same spot', () => {
    expect(rows[0].GapSeconds).toBe(0);
    expect(rows[1].GapSeconds).toBe(
      Math.round((Date.parse(rows[1].FinishTime!) - Date.parse(rows[0].FinishTime!)) / 1000),
    );
    // Ana passed 4 km at minute 16; Cleo reached it at 20.
    expect(rows[2].GapSeconds).toBeGreaterThan(230);
    expect(rows[2].GapSeconds).toBeLessThan(250);
    expect(rows[2].GapKm).toBeCloseTo(1, 1);
  });

  it('equal distance reached at the same moment shares a rank', () => {
    const x = runner('Xan X', 'M', 30, state([[2000, 10]]));
    const y = runner('Yul Y', 'M', 30, state([[2000, 10]]));
    expect(buildLeaderboard([x, y], course, started, min(11)).map((r) => r.Rank)).toEqual([1, 1]);
  });

  it('runners at the same whole metre: who got there first, not the centimetres between them', () => {
    // Yul reached 2,000.1 m at 10 min; Xan is 0.3 m further at 12 min: the same metre shown, Yul got there first.
    const x = runner('Xan X', 'M', 30, state([[2000.4, 12]]));
    const y = runner('Yul Y', 'M', 30, state([[2000.1, 10]]));
    expect(x.state!.distanceM).toBeGreaterThan(y.state!.distanceM);
    const board = buildLeaderboard([x, y], course, started, min(13));
    expect(board.map((r) => [r.FirstName, r.DistanceKm, r.Rank])).toEqual([
      ['Yul', 2.0, 1],
      ['Xan', 2.0, 2],
    ]);
  });

  it('stale and off-course runners keep their place by distance', () => {
    const stale = runner(
      'Sam S',
      'M',
      30,
      state([
        [3000, 10],
        [4500, 15],
      ]),
    );
    const off = runner(
      'Ola O',
      'F',
      30,
      computeRunnerState(
        course,
        [fixAt(course, 3500, 20), fixAt(course, 4000, 28, 0, 600)],
        started,
        min(30),
      ),
    );
    const r = buildLeaderboard([off, stale, cleo], course, started, min(30));
    expect(r.map((x) => [x.FirstName, x.Status])).toEqual([
      ['Sam', 'stale'],
      ['Cleo', 'racing'],
      ['Ola', 'off-course'],
    ]);
  });

  it('an empty race gives an empty board', () => {
    expect(buildLeaderboard([], course, started, min(1))).toEqual([]);
  });
});

describe('next waypoint (aid station)', () => {
  // The same straight 5 km course, with aid stations at 2 km and 4 km (given out of order, as a GPX may).
  const input = courseFromMetres(
    polylineMetres(
      [
        [0, 0],
        [5000, 0],
      ],
      20,
    ),
  );
  const at = (d: number) => pointAtDistance(course, d);
  const withAid = prepareCourse({
    ...input,
    waypoints: [
      { name: 'Aid 2', ...at(4000) },
      { name: 'Aid 1', ...at(2000) },
    ],
  });
  const board = (pts: [number, number][], now: number) => {
    const s = computeRunnerState(
      withAid,
      pts.map(([d, m]) => fixAt(withAid, d, m)),
      started,
      now,
    );
    return buildLeaderboard([runner('Wil W', 'M', 30, s)], withAid, started, now)[0];
  };

  it('before the first aid station: its name, km and an ETA at the runner’s pace', () => {
    // 1.5 km in 10 min: 400 s/km, so the remaining 500 m to Aid 1 take ~200 s after the last fix.
    const row = board(
      [
        [500, 10 / 3],
        [1000, 20 / 3],
        [1500, 10],
      ],
      min(11),
    );
    expect(row.NextWaypoint).toBe('Aid 1');
    expect(row.NextWaypointKm).toBeCloseTo(2, 2);
    const eta = Date.parse(row.EtaNextWaypoint!);
    expect(eta).toBeGreaterThan(min(10) + 190_000);
    expect(eta).toBeLessThan(min(10) + 210_000);
    // Same pace to the finish: the aid station comes before it.
    expect(eta).toBeLessThan(Date.parse(row.EtaFinish!));
  });

  it('past an aid station: the next one', () => {
    const row = board(
      [
        [1500, 10],
        [2500, 16],
      ],
      min(17),
    );
    expect(row.NextWaypoint).toBe('Aid 2');
    expect(row.NextWaypointKm).toBeCloseTo(4, 2);
    expect(Date.parse(row.EtaNextWaypoint!)).toBeGreaterThan(min(16));
  });

  it('past the last aid station, finished or not seen: nulls', () => {
    const past = board([[4500, 30]], min(31));
    expect(past.Status).toBe('racing');
    expect([past.NextWaypoint, past.NextWaypointKm, past.EtaNextWaypoint]).toEqual([null, null, null]);
    const done = board(
      [
        [4000, 16],
        [4500, 18],
        [5000, 20],
      ],
      min(21),
    );
    expect(done.Status).toBe('finished');
    expect(done.NextWaypoint).toBeNull();
    const unseen = board([], min(5));
    expect([unseen.NextWaypoint, unseen.NextWaypointKm, unseen.EtaNextWaypoint]).toEqual([null, null, null]);
  });

  it('a course without waypoints gives nulls', () => {
    for (const r of rows) {
      expect([r.NextWaypoint, r.NextWaypointKm, r.EtaNextWaypoint]).toEqual([null, null, null]);
    }
  });
});

describe('filterLeaderboard', () => {
  const names = (f: Parameters<typeof filterLeaderboard>[1]) =>
    filterLeaderboard(rows, f).map((r) => r.FirstName);

  it.each([
    [{}, ['Ana', 'Ben', 'Cleo', 'Eve', 'Dan', 'Finn']],
    [{ gender: 'F' as const }, ['Ana', 'Cleo', 'Eve']],
    [{ gender: 'M' as const }, ['Ben', 'Dan', 'Finn']],
    [{ ageGroup: '20-29' }, ['Eve']],
    [{ ageGroup: '40+' }, ['Ben', 'Dan']],
    [{ ageGroup: 'U20' }, ['Cleo']],
    [{ ageGroup: '60-69' }, ['Dan']],
    [{ ageGroup: 'adults' }, []],
    [{ gender: 'F' as const, ageGroup: '30-39' }, ['Ana']],
    [{ search: 'alvarez' }, ['Ana']],
    [{ search: 'ÁNA' }, ['Ana']],
    [{ search: 'brown ben' }, ['Ben']],
    [{ search: String(ben.BibNumber) }, ['Ben']],
    [{ search: 'n' }, ['Ana', 'Ben', 'Cleo', 'Eve', 'Dan', 'Finn']],
    [{ search: 'nobody' }, []],
    [{ search: '   ' }, ['Ana', 'Ben', 'Cleo', 'Eve', 'Dan', 'Finn']],
  ])('%j → %j', (f, expected) => {
    expect(names(f)).toEqual(expected);
  });

  it('keeps the overall rank on each row', () => {
    expect(filterLeaderboard(rows, { gender: 'M' }).map((r) => r.Rank)).toEqual([2, 5, null]);
  });

  it('adds the rank within the category when a gender or age-group filter is on', () => {
    const ranks = (f: Parameters<typeof filterLeaderboard>[1]) =>
      filterLeaderboard(rows, f).map((r) => [r.FirstName, r.Rank, r.CategoryRank]);
    expect(ranks({ gender: 'M' })).toEqual([
      ['Ben', 2, 1],
      ['Dan', 5, 2],
      ['Finn', null, null],
    ]);
    expect(ranks({ gender: 'F' })).toEqual([
      ['Ana', 1, 1],
      ['Cleo', 3, 2],
      ['Eve', 4, 3],
    ]);
    expect(ranks({ ageGroup: '40+' })).toEqual([
      ['Ben', 2, 1],
      ['Dan', 5, 2],
    ]);
    expect(ranks({ gender: 'F', ageGroup: 'U20' })).toEqual([['Cleo', 3, 1]]);
  });

  it('a search within a category keeps the category rank; a search alone adds none', () => {
    expect(filterLeaderboard(rows, { gender: 'F', search: 'eve' }).map((r) => r.CategoryRank)).toEqual([3]);
    const searched = filterLeaderboard(rows, { search: 'eve' });
    expect(searched.map((r) => r.FirstName)).toEqual(['Eve']);
    expect('CategoryRank' in searched[0]).toBe(false);
    expect(rows.some((r) => 'CategoryRank' in r)).toBe(false);
  });

  it('equal overall ranks share the category rank, whatever the row order', () => {
    const x = runner('Xan X', 'M', 30, state([[2000, 10]]));
    const y = runner('Yul Y', 'M', 30, state([[2000, 10]]));
    const z = runner('Zed Z', 'M', 30, state([[1000, 10]]));
    const w = runner('Wanda W', 'F', 30, state([[3000, 10]]));
    const board = buildLeaderboard([x, y, z, w], course, started, min(11));
    expect(board.map((r) => r.Rank)).toEqual([1, 2, 2, 4]);
    const cat = filterLeaderboard(board.slice().reverse(), { gender: 'M' });
    expect(cat.map((r) => [r.FirstName, r.CategoryRank])).toEqual([
      ['Zed', 3],
      ['Yul', 1],
      ['Xan', 1],
    ]);
  });
});

describe('age groups', () => {
  it.each([
    ['U20', { min: 0, max: 19 }],
    ['20-29', { min: 20, max: 29 }],
    ['40+', { min: 40, max: Infinity }],
    ['70+', { min: 70, max: Infinity }],
    ['29-20', null],
    ['old', null],
    ['', null],
  ])('%s → %j', (g, expected) => {
    expect(parseAgeGroup(g)).toEqual(expected);
  });

  it('every listed group parses', () => {
    for (const g of AGE_GROUPS) expect(parseAgeGroup(g)).not.toBeNull();
  });
});
