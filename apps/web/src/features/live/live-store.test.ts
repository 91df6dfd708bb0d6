import { describe, expect, it } from 'vitest';
import {
  compactBaseline,
  compactDeltaRows,
  courseLine,
  encodeCompactDelta,
  encodeCompactSnapshot,
  encodeCourseLine,
  pointOnLine,
  type LeaderboardRow,
} from '@racebeacon/domain/live';
import {
  applyCompactDelta,
  applyCompactSnapshot,
  applySnapshot,
  applyUpdate,
  MAX_TRAIL,
  sortRows,
  type LiveState,
} from './live-store';

const row = (RunnerId: number, Rank: number | null, DistanceKm: number | null): LeaderboardRow => ({
  Rank,
  RunnerId,
  BibNumber: String(RunnerId),
  FirstName: 'F',
  LastName: 'L',
  Gender: 'M',
  Age: 30,
  Status: Rank === null ? 'not-started' : 'racing',
  DistanceKm,
  Percent: null,
  ElapsedSeconds: null,
  PaceSecondsPerKm: null,
  EtaFinish: null,
  FinishTime: null,
  LastPingTime: null,
  Latitude: null,
  Longitude: null,
  BatteryState: null,
  GapSeconds: null,
  GapKm: null,
  NextWaypoint: null,
  NextWaypointKm: null,
  EtaNextWaypoint: null,
});

const snapshot = applySnapshot(
  {
    Seq: 4,
    At: '2026-06-01T08:00:00Z',
    RaceId: 1,
    ClockStartedAt: '2026-06-01T07:00:00Z',
    ClockStoppedAt: null,
    HasCourse: true,
    Rows: [row(1, 1, 5), row(2, 2, 4), row(3, null, null)],
    Trails: [
      { RunnerId: 1, Trail: [[1000, 46, 7]] },
      { RunnerId: 2, Trail: [] },
    ],
  },
  0,
);

describe('live store', () => {
  it('applies an update: whole rows, rank-only changes, and fixes in time order without duplicates', () => {
    const next = applyUpdate(
      snapshot,
      {
        Seq: 5,
        At: '2026-06-01T08:00:01Z',
        Rows: [row(2, 1, 5.5)],
        Ranks: [[1, 2]],
        Fixes: [
          [2, 3000, 46.2, 7],
          [2, 2000, 46.1, 7], // late: goes before 3000
          [1, 1000, 46, 7], // already there
        ],
      },
      1,
    );
    expect(next.seq).toBe(5);
    expect(next.rows.get(2)).toMatchObject({ Rank: 1, DistanceKm: 5.5 });
    expect(next.rows.get(1)).toMatchObject({ Rank: 2, DistanceKm: 5 });
    expect(next.trails.get(2)!.map((p) => p[0])).toEqual([2000, 3000]);
    expect(next.trails.get(1)).toEqual([[1000, 46, 7]]);
    expect(sortRows(next.rows.values()).map((r) => r.RunnerId)).toEqual([2, 1, 3]);
    // The previous state is untouched (React compares by reference).
    expect(snapshot.rows.get(2)!.Rank).toBe(2);
  });

  it('keeps the race clock and the best estimate of the server clock offset', () => {
    const snap = applySnapshot(
      {
        Seq: 1,
        At: '2026-06-01T08:00:00.000Z',
        RaceId: 1,
        ClockStartedAt: '2026-06-01T07:00:00Z',
        ClockStoppedAt: '2026-06-01T09:00:00Z',
        HasCourse: true,
        Rows: [],
        Trails: [],
      },
      Date.parse('2026-06-01T08:00:03.000Z'),
    );
    expect(snap).toMatchObject({
      clockStartedAt: '2026-06-01T07:00:00Z',
      clockStoppedAt: '2026-06-01T09:00:00Z',
      serverOffsetMs: -3000,
    });
    const update = (state: LiveState, At: string, received: string) =>
      applyUpdate(state, { Seq: 2, At, Rows: [], Ranks: [], Fixes: [] }, Date.parse(received));
    // A fresher message (less delay) raises the estimate; an old, resumed one does not lower it.
    const fresher = update(snap, '2026-06-01T08:01:00.000Z', '2026-06-01T08:01:01.000Z');
    expect(fresher.serverOffsetMs).toBe(-1000);
    const resumed = update(fresher, '2026-06-01T08:00:30.000Z', '2026-06-01T08:02:00.000Z');
    expect(resumed.serverOffsetMs).toBe(-1000);
    expect(resumed.clockStoppedAt).toBe('2026-06-01T09:00:00Z');
  });

  it('keeps trails bounded', () => {
    const fixes: [number, number, number, number][] = [];
    for (let i = 0; i < MAX_TRAIL + 20; i++) fixes.push([1, 2000 + i, 46, 7]);
    const next = applyUpdate(snapshot, { Seq: 5, At: '', Rows: [], Ranks: [], Fixes: fixes }, 1);
    expect(next.trails.get(1)).toHaveLength(MAX_TRAIL);
    expect(next.trails.get(1)!.at(-1)![0]).toBe(2000 + MAX_TRAIL + 19);
  });
});

describe('snapshot on a reconnect', () => {
  it('applies in place: rows replaced in one step, trails keep the older points the snapshot does not carry', () => {
    let shown: LiveState = snapshot;
    for (let k = 2; k <= 40; k++)
      shown = applyUpdate(
        shown,
        { Seq: 4 + k, At: '2026-06-01T08:00:02Z', Rows: [], Ranks: [], Fixes: [[1, k * 1000, 46, 7]] },
        0,
      );
    expect(shown.trails.get(1)).toHaveLength(40);
    const again = applySnapshot(
      {
        Seq: 1,
        At: '2026-06-01T08:01:00Z',
        RaceId: 1,
        ClockStartedAt: '2026-06-01T07:00:00Z',
        ClockStoppedAt: null,
        HasCourse: true,
        Rows: [row(1, 1, 6), row(2, 2, 4)],
        // The server's snapshot carries the newest 30 points (11 s to 41 s: one the viewer had not seen yet).
        Trails: [{ RunnerId: 1, Trail: Array.from({ length: 30 }, (_, i) => [(12 + i) * 1000, 46, 7]) }],
      },
      5,
      shown,
    );
    expect(again.rows.get(1)!.DistanceKm).toBe(6);
    expect([...again.rows.keys()]).toEqual([1, 2]); // runner 3 is gone from the race: gone from the board
    const times = again.trails.get(1)!.map((p) => p[0]);
    expect(times).toHaveLength(41);
    expect(times[0]).toBe(1000);
    expect(times.at(-1)).toBe(41_000);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Without a previous state (the first connection) it is the snapshot alone.
    expect(
      applySnapshot({ ...snapshotMsg(), Trails: [{ RunnerId: 1, Trail: [[5, 46, 7]] }] }, 0).trails.get(1),
    ).toEqual([[5, 46, 7]]);
  });
});

function snapshotMsg() {
  return {
    Seq: 1,
    At: '2026-06-01T08:01:00Z',
    RaceId: 1,
    ClockStartedAt: null,
    ClockStoppedAt: null,
    HasCourse: true,
    Rows: [row(1, 1, 6)],
    Trails: [],
  };
}

describe('the compact stream (?v=5)', () => {
  it("keeps the snapshot's course line and places a delta's fix on it as the server encoded it", () => {
    // A straight course north from 46°, 7°, 5 km; runner 1 at 2 km with its newest fix 3 × 1e-5° east of the course.
    const points = Array.from({ length: 46 }, (_, i): [number, number, number] => [
      46 + i / 1000,
      7,
      i * 111,
    ]);
    const line = encodeCourseLine(points);
    const at = Date.parse('2026-06-01T08:00:00Z');
    const held = {
      ...row(1, 1, 2),
      LastPingTime: new Date(at - 150_000).toISOString(),
      Latitude: 46.018,
      Longitude: 7,
    };
    const trails = new Map([[1, [[at - 150_000, 46.018, 7] as [number, number, number]]]]);
    const snap = encodeCompactSnapshot(
      { Seq: 1, RaceId: 1, ClockStartedAt: null, ClockStoppedAt: null, HasCourse: true },
      [held],
      trails,
      at,
      line,
    );
    const state = applyCompactSnapshot(JSON.parse(JSON.stringify(snap)), 0);
    expect(state.courseLine).toEqual(courseLine(line));
    const [lat, lon] = pointOnLine(courseLine(line)!, 2400);
    const fix: [number, number, number, number] = [1, at, lat / 1e5, (lon + 3) / 1e5];
    const moved = {
      ...held,
      DistanceKm: 2.4,
      LastPingTime: new Date(at).toISOString(),
      Latitude: fix[2],
      Longitude: fix[3],
    };
    const delta = encodeCompactDelta(
      compactBaseline([held], trails),
      [moved],
      [fix],
      2,
      at + 5000,
      null,
      null,
      courseLine(line),
    )!;
    expect(compactDeltaRows(delta).F[0]).toBe(-1); // against the course
    const next = applyCompactDelta(state, JSON.parse(JSON.stringify(delta)), 1);
    expect(next.rows.get(1)).toMatchObject({ DistanceKm: 2.4, Latitude: fix[2], Longitude: fix[3] });
    expect(next.trails.get(1)?.at(-1)).toEqual([at, fix[2], fix[3]]);
    expect(next.courseLine).toBe(state.courseLine);
  });
});
