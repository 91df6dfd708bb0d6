import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/course';
import {
  compactBaseline,
  compactDeltaRows,
  compactTrail,
  compactView,
  courseLine,
  decodeCompactDelta,
  decodeCompactSnapshot,
  encodeCompactDelta,
  encodeCompactSnapshot,
  encodeCourseLine,
  expandCompactDelta,
  expandCompactSnapshot,
  leaderCurveOf,
  applyLeaderCurve,
  deltaRunnerIds,
  liveCompactDeltaSchema,
  pointOnLine,
  liveCompactSnapshotSchema,
  type LeaderboardRow,
  type LiveUpdate,
  type TrailPoint,
} from '../src/live-messages';

const AT = Date.parse('2026-05-02T09:30:00.250Z');
/** A course length that is not a round number. */
const COURSE_M = 42_195.37;
const STATUSES = ['racing', 'stale', 'finished', 'not-started', 'dnf'] as const;

/** A random row with values at the precision the leaderboard gives them (and some null or absent fields). */
function randomRow(random: () => number, id: number, rank: number | null): LeaderboardRow {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const maybe = <T>(v: T): T | null => (random() < 0.2 ? null : v);
  const time = () => new Date(AT + Math.floor((random() - 0.5) * 7200_000)).toISOString();
  const km = () => Math.round(random() * 50_000) / 1000;
  const row: LeaderboardRow = {
    Rank: rank,
    RunnerId: id,
    BibNumber: maybe(String(100 + id)),
    FirstName: pick(['Ana', 'Bo', 'Chloé', 'D’Arcy', '"Q"', '']),
    LastName: pick(['Smith', 'Øster', 'Li', 'van der Berg']),
    Gender: pick(['M', 'F'] as const),
    Age: maybe(18 + Math.floor(random() * 60)),
    Status: pick(STATUSES),
    DistanceKm: maybe(km()),
    Percent: maybe(Math.round(random() * 1000) / 10),
    ElapsedSeconds: maybe(Math.floor(random() * 20_000)),
    // With a decimal at times: the viewer holds it whole (and predicts a distance from that).
    PaceSecondsPerKm: maybe(200 + Math.floor(random() * 5000) / (random() < 0.5 ? 10 : 1)),
    EtaFinish: maybe(time()),
    FinishTime: maybe(time()),
    LastPingTime: maybe(time()),
    Latitude: maybe(Math.round((46 + random()) * 1e5) / 1e5),
    Longitude: maybe(Math.round((7 + random()) * 1e5) / 1e5),
    BatteryState: maybe(pick(['ok', 'low', 'charging'])),
    GapSeconds: maybe(Math.floor(random() * 4000)),
    GapKm: maybe(km()),
    NextWaypoint: maybe(pick(['Aid 1', 'Aid 2', 'Col'])),
    NextWaypointKm: maybe(km()),
    EtaNextWaypoint: maybe(time()),
  };
  // Optional fields: present on some rows only.
  if (random() < 0.7) {
    row.EtaFinishEarliest = maybe(time());
    row.EtaFinishLatest = maybe(time());
    row.EtaNextWaypointEarliest = maybe(time());
    row.EtaNextWaypointLatest = maybe(time());
  }
  if (random() < 0.3) {
    row.EstimatedDistanceKm = km();
    row.EstimatedDistanceKmMin = km();
    row.EstimatedDistanceKmMax = km();
    row.EstimatedAt = time();
    row.EstimatedLatitude = Math.round((46 + random()) * 1e5) / 1e5;
    row.EstimatedLongitude = Math.round((7 + random()) * 1e5) / 1e5;
  }
  if (random() < 0.5) {
    row.LastCheckpoint = maybe(pick(['Start', 'Aid 1']));
    row.LastCheckpointKm = maybe(km());
    row.LastCheckpointTime = maybe(time());
  }
  if (random() < 0.5) row.CutoffRisk = random() < 0.5;
  return row;
}

function randomTrail(random: () => number, n: number): TrailPoint[] {
  const trail: TrailPoint[] = [];
  let t = AT - 3600_000 + Math.floor(random() * 60_000);
  for (let i = 0; i < n; i++) {
    trail.push([
      t,
      Math.round((46 + random() / 10) * 1e5) / 1e5,
      Math.round((7 + random() / 10) * 1e5) / 1e5,
    ]);
    t += 1000 + Math.floor(random() * 200_000);
  }
  return trail;
}

/** What a viewer does with an update (as the web app's live store): rows replaced, ranks set, fixes in time order. */
function apply(rows: Map<number, LeaderboardRow>, trails: Map<number, TrailPoint[]>, u: LiveUpdate): void {
  for (const r of u.Rows) rows.set(r.RunnerId, r);
  for (const [id, rank] of u.Ranks) rows.set(id, { ...rows.get(id)!, Rank: rank });
  for (const [id, t, lat, lon] of u.Fixes) {
    const trail = trails.get(id) ?? [];
    let i = trail.length;
    while (i > 0 && trail[i - 1][0] > t) i--;
    trail.splice(i, 0, [t, lat, lon]);
    trails.set(id, trail);
  }
}

const START = AT - 3 * 3600_000;
const meta = {
  Seq: 7,
  RaceId: 3,
  ClockStartedAt: new Date(START).toISOString(),
  ClockStoppedAt: null,
  HasCourse: true,
};

/** A patch row's field bits (the fix bit too). */
const bitsIn = (mask: number) => [...Array(40).keys()].filter((i) => Math.floor(mask / 2 ** i) % 2 === 1);
/** A patch row's values by field bit (the fix bit carries none). */
function valuesOf(patch: (number | string | null)[]): Map<number, number | string | null> {
  const bits = bitsIn(patch[1] as number).filter((b) => b !== 6);
  return new Map(bits.map((b, k) => [b, patch[2 + k]]));
}

describe('compact live codec', () => {
  it('decodes a snapshot to the rows and trails it encoded (positions to 1e-5°, ETAs to the minute)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const n = Math.floor(random() * 40);
      const rows = Array.from({ length: n }, (_, i) =>
        randomRow(random, 1 + i * 3, random() < 0.1 ? null : i + 1),
      );
      const trails = new Map(rows.map((r) => [r.RunnerId, randomTrail(random, Math.floor(random() * 6))]));
      // Most rows show their newest fix (the snapshot then leaves those fields to the trail).
      for (const r of rows) {
        const newest = trails.get(r.RunnerId)!.at(-1);
        if (!newest || random() < 0.3) continue;
        r.LastPingTime = new Date(newest[0]).toISOString();
        r.Latitude = newest[1];
        r.Longitude = newest[2];
      }
      const snap = encodeCompactSnapshot(meta, rows, trails, AT);
      if (rows.some((r) => r.LastPingTime === null)) expect(snap.Cols.LastPingTime).toBeDefined();
      const wire = JSON.parse(JSON.stringify(snap));
      expect(liveCompactSnapshotSchema.parse(wire)).toEqual(wire);
      const back = decodeCompactSnapshot(wire);
      expect(back.Rows).toEqual(rows.map(compactView));
      expect(back.Trails).toEqual(
        rows.map((r) => ({ RunnerId: r.RunnerId, Trail: compactTrail(trails.get(r.RunnerId)!) })),
      );
      expect(back).toMatchObject({ ...meta, At: new Date(AT).toISOString() });
    }
  });

  it('keeps a viewer applying deltas equal to the server baseline, through random changes', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(100 + seed);
      const n = 5 + Math.floor(random() * 30);
      let server = Array.from({ length: n }, (_, i) => randomRow(random, 10 + i * 7, i + 1));
      const serverTrails = new Map(
        server.map((r) => [r.RunnerId, randomTrail(random, Math.floor(random() * 4))]),
      );
      // Each runner's progress (the leader's is the viewer's curve for gaps in seconds): a point every 150 s up to now.
      let now = AT;
      const progressOf = (id: number) => {
        const points: { t: number; distanceM: number }[] = [];
        for (let t = START; t <= now; t += 150_000)
          points.push({ t, distanceM: ((t - START) / 1000) * (2 + (id % 5) * 0.3) });
        return points;
      };
      const baseline = compactBaseline(server, serverTrails, progressOf);
      // A winding course through the area the random fixes fall in: some of them lie nearer its point.
      const points = Array.from({ length: 40 }, (_, i): [number, number, number] => [
        46 + (i % 2 ? 0.1 : 0) * random(),
        7 + i / 400,
        i * 1200 + Math.floor(random() * 400),
      ]);
      const wireSnap = JSON.parse(
        JSON.stringify(
          encodeCompactSnapshot(meta, server, serverTrails, AT, encodeCourseLine(points), baseline.leader),
        ),
      );
      let curve = leaderCurveOf(wireSnap);
      const line = courseLine(liveCompactSnapshotSchema.parse(wireSnap).Line);
      expect(line).not.toBeNull();
      const snap = decodeCompactSnapshot(wireSnap);
      const rows = new Map(snap.Rows.map((r) => [r.RunnerId, r]));
      const trails = new Map(snap.Trails.map((t) => [t.RunnerId, t.Trail]));
      let at = AT;
      for (let step = 0; step < 12; step++) {
        at += Math.floor(random() * 10_000) + (step % 4 === 0 ? 150_000 : 0);
        now = at;
        // Some runners move (a new fix: their position and time become it), some change in other ways.
        const fixes: [number, number, number, number][] = [];
        server = server.map((r) => {
          const x = random();
          if (x < 0.25) {
            const last = serverTrails.get(r.RunnerId)?.at(-1);
            const t = (last?.[0] ?? at - 60_000) + 1000 + Math.floor(random() * 100_000);
            const lat = Math.round((46 + random() / 10) * 1e5) / 1e5;
            const lon = Math.round((7 + random() / 10) * 1e5) / 1e5;
            fixes.push([r.RunnerId, t, lat, lon]);
            if (random() < 0.2) fixes.push([r.RunnerId, t - 500, lat + 0.0001, lon]); // a late fix too
            serverTrails.set(r.RunnerId, [...(serverTrails.get(r.RunnerId) ?? []), [t, lat, lon]]);
            const m = Math.round(random() * 50_000);
            return {
              ...r,
              DistanceKm: m / 1000,
              // Mostly the distance's share of the course, as the leaderboard gives it (implied on the wire).
              Percent: random() < 0.7 ? Math.round(Math.min(100, (m / COURSE_M) * 100) * 10) / 10 : r.Percent,
              LastPingTime: new Date(t).toISOString(),
              Latitude: lat,
              Longitude: lon,
              // On the course: the race clock now (implied on the wire); otherwise some other time.
              ElapsedSeconds: random() < 0.6 ? Math.round((at - START) / 1000) : (r.ElapsedSeconds ?? 0) + 30,
            };
          }
          if (x < 0.3) {
            // A late fix alone (older than the newest): the row does not change, the fix travels on its own.
            const last = serverTrails.get(r.RunnerId)?.at(-1);
            if (last) {
              const late: TrailPoint = [last[0] - 20_000, last[1] - 0.0002, last[2] + 0.0001];
              fixes.push([r.RunnerId, ...late]);
              serverTrails.set(r.RunnerId, [late, ...serverTrails.get(r.RunnerId)!]);
            }
            return r;
          }
          if (x < 0.35) return { ...randomRow(random, r.RunnerId, r.Rank) };
          if (x < 0.45) return { ...r, ElapsedSeconds: (r.ElapsedSeconds ?? 0) + 5, GapKm: 1.5 }; // clock only
          return r;
        });
        // New ranks: a few runners pass others.
        const order = [...server].sort((a, b) => (a.Rank ?? 1e9) - (b.Rank ?? 1e9));
        for (let k = 0; k < 3; k++) {
          const i = Math.floor(random() * order.length);
          const j = Math.floor(random() * order.length);
          const [moved] = order.splice(i, 1);
          order.splice(j, 0, moved);
        }
        server = order.map((r, i) => ({ ...r, Rank: random() < 0.05 ? null : random() < 0.1 ? i : i + 1 }));
        const delta = encodeCompactDelta(
          baseline,
          server,
          fixes,
          step + 8,
          at,
          START,
          COURSE_M,
          line,
          progressOf,
        );
        if (delta) {
          const wire = JSON.parse(JSON.stringify(delta));
          expect(liveCompactDeltaSchema.parse(wire)).toEqual(wire);
          apply(
            rows,
            trails,
            decodeCompactDelta(wire, rows, (id) => trails.get(id)?.at(-1), meta.ClockStartedAt, line, curve),
          );
          curve = applyLeaderCurve(curve, wire);
        }
        // The viewer's leader curve is the server's.
        expect(curve).toEqual(baseline.leader ?? null);
        // The viewer holds exactly the baseline, whose watched fields are the server's now.
        expect(new Map([...rows].sort((a, b) => a[0] - b[0]))).toEqual(
          new Map([...baseline.rows].sort((a, b) => a[0] - b[0]).map(([id, r]) => [id, compactView(r)])),
        );
        for (const r of server) {
          const held = rows.get(r.RunnerId)!;
          const now = compactView(r);
          expect({ ...held, ElapsedSeconds: 0, GapKm: 0, GapSeconds: 0 }).toEqual(
            expect.objectContaining({ Rank: now.Rank, DistanceKm: now.DistanceKm, Status: now.Status }),
          );
          expect(held.Latitude).toBe(now.Latitude);
          expect(held.LastPingTime).toBe(now.LastPingTime);
          expect(held.EtaFinish).toBe(now.EtaFinish);
        }
        for (const [id, trail] of serverTrails) {
          const newest = [...trail].sort((a, b) => a[0] - b[0]).at(-1);
          expect(trails.get(id)?.at(-1)).toEqual(newest);
        }
      }
    }
  }, 60_000);

  /** Runners on the course, ranked by distance as the leaderboard ranks them (500 m apart). */
  const rankedRows = (random: () => number) =>
    Array.from({ length: 50 }, (_, i) => ({
      ...randomRow(random, i + 1, i + 1),
      Status: 'racing' as const,
      FinishTime: null,
      DistanceKm: 40 - i * 0.5,
      GapKm: i * 0.5,
    }));

  /** A row's last ping and position as its trail's newest point. */
  const newestOf = (r: LeaderboardRow) => {
    const last = trailsOf.get(r.RunnerId)!.at(-1)!;
    return { LastPingTime: new Date(last[0]).toISOString(), Latitude: last[1], Longitude: last[2] };
  };
  let trailsOf = new Map<number, TrailPoint[]>();

  it('sends nothing when nothing changed, and a moved runner as a few numbers', () => {
    const random = seededRandom(5);
    // Runner 11 keeps a pace of 6:40 min/km: 375 m in 150 s.
    const ranked = rankedRows(random);
    const trails = new Map(ranked.map((r) => [r.RunnerId, randomTrail(random, 3)]));
    trailsOf = trails;
    // (The server's row may hold a pace with decimals: the viewer holds it whole, and so does the prediction.)
    const rows = ranked.map((x) =>
      x.RunnerId === 11 ? { ...x, PaceSecondsPerKm: 400.3, ...newestOf(x) } : x,
    );
    const baseline = compactBaseline(rows, trails);
    expect(encodeCompactDelta(baseline, rows, [], 1, AT)).toBeNull();
    const r = rows[10];
    const last = trails.get(r.RunnerId)!.at(-1)!;
    const t = last[0] + 150_000;
    const lat = last[1] + 0.003;
    const moved = {
      ...r,
      DistanceKm: (r.DistanceKm ?? 0) + 0.375,
      GapKm: r.GapKm! - 0.375,
      LastPingTime: new Date(t).toISOString(),
      Latitude: lat,
      Longitude: last[2],
    };
    const next = rows.map((x) => (x === r ? moved : x));
    const delta = encodeCompactDelta(baseline, next, [[r.RunnerId, t, lat, last[2]]], 2, AT + 5000);
    // [id, mask, values]: the distance in metres off the pace's prediction (0); a moving runner's row carries its
    // predicted fields changed or not (the gap in seconds off the leader's pace, the ETAs, the pace), so its mask is
    // the same as other moving rows'; the position and time are the fix's, the gap in km the leader's distance less
    // the runner's; no rank moved. The fix: its time as the interval I after the newest held (0 off it), its
    // position as the move.
    const [patch] = compactDeltaRows(delta!).P;
    expect(patch[0]).toBe(r.RunnerId);
    expect(valuesOf(patch).get(0)).toBe(0);
    expect([...valuesOf(patch).keys()].every((b) => [0, 3, 7, 8, 9, 10, 20, 21, 22].includes(b))).toBe(true);
    expect(bitsIn(patch[1] as number)).toContain(6);
    // On the wire in columns: RunnerIds, masks (indexes into the message's masks), one column per field, integers
    // packed as zigzag base-32 digits, low first (0 is 'A', 11 → 22 'W'; a digit of 32 and more says another
    // follows).
    // The columns travel range-coded together in Z ('' in their places); expanded, each is its packed string.
    expect(delta?.P.slice(0, 2)).toEqual(['', ['', patch[1]]]);
    expect(typeof delta?.Z).toBe('string');
    expect(expandCompactDelta(delta!).P.slice(0, 2)).toEqual(['W', ['A', patch[1]]]);
    expect(delta?.K).toBeUndefined();
    expect(delta?.I).toBe(150);
    // Count 1, time 0, Δlat 300 (→ 600: 24 + 32 = '4', then 18 'S'), Δlon 0.
    expect(delta?.F).toEqual(['', '', '', '']);
    expect(expandCompactDelta(delta!).F).toEqual(['C', 'A', '4S', 'A']);
    expect(compactDeltaRows(delta!).F).toEqual([1, 0, 300, 0]);
    const u = decodeCompactDelta(
      liveCompactDeltaSchema.parse(JSON.parse(JSON.stringify(delta))),
      new Map(rows.map((x) => [x.RunnerId, compactView(x)])),
      (id) => trails.get(id)!.at(-1),
    );
    expect(u.Rows).toEqual([compactView(moved)]);
    expect(u.Fixes).toEqual([[r.RunnerId, t, Math.round(lat * 1e5) / 1e5, last[2]]]);
  });

  it('sends trails against the course when the snapshot has a line: older points within 7 m, the newest exact', () => {
    const random = seededRandom(21);
    // A winding course: a zigzag of 60 legs of about 300 m, each point with its distance along the course.
    const points: [number, number, number][] = [[46, 7, 0]];
    for (let i = 1; i <= 60; i++) {
      const [lat, lon, m] = points[i - 1];
      const [dLat, dLon] = i % 2 ? [0.0022, 0.0025] : [0.0024, -0.0021];
      const dm = Math.hypot(dLat * 111_200, dLon * 111_200 * Math.cos((46 * Math.PI) / 180));
      points.push([lat + dLat, lon + dLon, m + dm]);
    }
    const flat = encodeCourseLine(points);
    const line = courseLine(flat)!;
    const metres = (a: TrailPoint, b: TrailPoint) =>
      Math.hypot((a[1] - b[1]) * 111_200, (a[2] - b[2]) * 111_200 * Math.cos((46 * Math.PI) / 180));
    const rows = rankedRows(random).slice(0, 12);
    const trails = new Map<number, TrailPoint[]>();
    rows.forEach((r, k) => {
      // Along the course at 2–4 m/s, a fix every 150 s (some late, one with milliseconds), 0–15 m off the path; the
      // last runner once 400 m away from it (a wrong turn), one with a single fix, one with none.
      const trail: TrailPoint[] = [];
      const speed = 2 + random() * 2;
      const n = k === 10 ? 1 : k === 11 ? 0 : 15;
      for (let i = 0; i < n; i++) {
        const m = 500 + k * 300 + i * 150 * speed;
        const [lat, lon] = pointOnLine(line, m);
        const off = k === 9 && i === 6 ? 400 : random() * 15;
        const t = AT - (n - i) * 150_000 + (random() < 0.1 ? 20_000 : 0) + (i === n - 1 && k === 2 ? 417 : 0);
        const angle = random() * 2 * Math.PI;
        trail.push([
          t,
          Math.round(lat + (off / 1.112) * Math.sin(angle)) / 1e5,
          Math.round(lon + (off / 0.772) * Math.cos(angle)) / 1e5,
        ]);
      }
      trails.set(r.RunnerId, trail);
    });
    const snap = encodeCompactSnapshot(meta, rows, trails, AT, flat);
    expect(snap.Trails).toEqual([]);
    expect(snap.CT).toBeDefined();
    const wire = JSON.parse(JSON.stringify(snap));
    expect(liveCompactSnapshotSchema.parse(wire)).toEqual(wire);
    const back = decodeCompactSnapshot(wire);
    back.Trails.forEach(({ RunnerId, Trail }) => {
      const sent = trails.get(RunnerId)!;
      expect(Trail).toHaveLength(sent.length);
      // What compactTrail says the viewer holds, point for point.
      expect(Trail).toEqual(compactTrail(sent, flat));
      Trail.forEach((p, i) => {
        if (i === sent.length - 1) return void expect(p).toEqual(sent[i]);
        expect(p[0]).toBe(Math.round(sent[i][0] / 1000) * 1000);
        expect(metres(p, sent[i])).toBeLessThanOrEqual(7);
      });
    });
    // The off-course point came back where it was, not on the course.
    const wrongTurn = back.Trails[9].Trail[6];
    expect(metres(wrongTurn, trails.get(rows[9].RunnerId)![6])).toBeLessThanOrEqual(7);
    // Smaller than the same trails as moves (what a snapshot without a line sends).
    const plain = encodeCompactSnapshot(meta, rows, trails, AT);
    expect(JSON.stringify(expandCompactSnapshot(wire).CT).length).toBeLessThan(
      JSON.stringify(plain.Trails).length,
    );
    // On the wire the CT columns and the integer Cols travel range-coded together in Z.
    expect(wire.CT.every((c: unknown) => c === '')).toBe(true);
    expect(wire.Cols.DistanceKm).toEqual([]);
    expect(expandCompactSnapshot(wire).Cols.DistanceKm).toHaveLength(rows.length);
  });

  it("sends a runner's newest fix as its offset from the course point of its distance (off the course: its move)", () => {
    const random = seededRandom(9);
    // An L-shaped course: 0.05° north, then 0.05° east (about 5.6 + 3.9 km), with each point's distance.
    const points: [number, number, number][] = [];
    for (let i = 0; i <= 50; i++) points.push([46 + i / 1000, 7, i * 111.2]);
    for (let i = 1; i <= 50; i++) points.push([46.05, 7 + i / 1000, 5560 + i * 77.3]);
    const line = courseLine(encodeCourseLine(points))!;
    expect(pointOnLine(line, 0)).toEqual([4_600_000, 700_000]);
    expect(pointOnLine(line, 9425)).toEqual([4_605_000, 705_000]);
    // Between two points, by distance: half-way along the east leg's 11th segment.
    expect(pointOnLine(line, (Math.round(5560 + 10 * 77.3) + Math.round(5560 + 11 * 77.3)) / 2)).toEqual([
      4_605_000, 701_050,
    ]);
    const ranked = rankedRows(random).slice(0, 3);
    const trails = new Map(ranked.map((r) => [r.RunnerId, randomTrail(random, 2)]));
    trailsOf = trails;
    const rows = ranked.map((x) => ({ ...x, ...newestOf(x) }));
    const baseline = compactBaseline(rows, trails);
    const [a, b] = rows;
    const t = AT + 60_000;
    // a: 4 m east and 3 m north of the course at 7.25 km (on its eastward leg); b: 1 km off it, at its last fix.
    const p = pointOnLine(line, 7250);
    const fa: [number, number] = [(p[0] + 3) / 1e5, (p[1] + 5) / 1e5];
    const lastB = trails.get(b.RunnerId)!.at(-1)!;
    const fb: [number, number] = [lastB[1] + 0.00002, lastB[2]];
    const next = rows.map((x) =>
      x === a
        ? {
            ...x,
            DistanceKm: 7.25,
            LastPingTime: new Date(t).toISOString(),
            Latitude: fa[0],
            Longitude: fa[1],
          }
        : x === b
          ? {
              ...x,
              DistanceKm: 1,
              LastPingTime: new Date(t).toISOString(),
              Latitude: fb[0],
              Longitude: fb[1],
            }
          : x,
    );
    const fixes: [number, number, number, number][] = [
      [a.RunnerId, t, ...fa],
      [b.RunnerId, t, ...fb],
    ];
    const delta = encodeCompactDelta(baseline, next, fixes, 2, t + 2000, null, null, line)!;
    const wire = liveCompactDeltaSchema.parse(JSON.parse(JSON.stringify(delta)));
    // a's count −1: against the course; b's 1: its move from its newest fix (2 × 1e-5° north).
    const times = (id: number) => (t - (trails.get(id)!.at(-1)![0] + (delta.I ?? 0) * 1000)) / 1000;
    expect(compactDeltaRows(wire).F).toEqual([-1, times(a.RunnerId), 3, 5, 1, times(b.RunnerId), 2, 0]);
    // In columns on the wire: counts, times, Δlats, Δlons (packed: −1 is 'B', 1 'C', 3 'G', 5 'K').
    expect(expandCompactDelta(wire).F).toEqual(['BC', expect.anything(), 'GE', 'KA']);
    const held = new Map(rows.map((x) => [x.RunnerId, compactView(x)]));
    const u = decodeCompactDelta(wire, held, (id) => trails.get(id)!.at(-1), null, line);
    expect(u.Fixes).toEqual(
      fixes.map(([id, ft, lat, lon]) => [id, ft, Math.round(lat * 1e5) / 1e5, Math.round(lon * 1e5) / 1e5]),
    );
    expect(u.Rows).toEqual([compactView(next[0]), compactView(next[1])]);
  });

  it("sends a gap in seconds as its difference from the one the leader's pace predicts", () => {
    const random = seededRandom(8);
    // The leader at 5:00 min/km; runner 21 at 7:30 min/km, 20 minutes behind.
    const ranked = rankedRows(random);
    const trails = new Map(ranked.map((r) => [r.RunnerId, randomTrail(random, 3)]));
    trailsOf = trails;
    const rows = ranked.map((x) =>
      x.RunnerId === 1
        ? { ...x, PaceSecondsPerKm: 300 }
        : x.RunnerId === 21
          ? { ...x, PaceSecondsPerKm: 450, GapSeconds: 1200, ...newestOf(x) }
          : x,
    );
    const baseline = compactBaseline(rows, trails);
    const r = rows[20];
    const last = trails.get(r.RunnerId)!.at(-1)!;
    // 180 s later, 400 m further (the pace predicts 400 m): the leader took 120 s there, so the gap grows by 60 s;
    // it grew by 63 s.
    const t = Date.parse(r.LastPingTime!) + 180_000;
    const moved = { ...r, DistanceKm: r.DistanceKm + 0.4, GapKm: r.GapKm - 0.4, GapSeconds: 1263 };
    Object.assign(moved, { LastPingTime: new Date(t).toISOString(), Latitude: last[1], Longitude: last[2] });
    const next = rows.map((x) => (x === r ? moved : x));
    const delta = encodeCompactDelta(baseline, next, [[r.RunnerId, t, last[1], last[2]]], 2, t + 3000)!;
    expect(delta.LP).toBe(300);
    const [patch] = compactDeltaRows(delta).P;
    expect(patch[0]).toBe(r.RunnerId);
    expect([valuesOf(patch).get(0), valuesOf(patch).get(3)]).toEqual([0, 3]);
    const u = decodeCompactDelta(
      liveCompactDeltaSchema.parse(JSON.parse(JSON.stringify(delta))),
      new Map(rows.map((x) => [x.RunnerId, compactView(x)])),
      (id) => trails.get(id)!.at(-1),
    );
    expect(u.Rows).toEqual([compactView(moved)]);
  });

  it('sends no rank for a runner passing others: the viewer ranks by distance (the domain ranking)', () => {
    const random = seededRandom(6);
    const rows = rankedRows(random);
    const trails = new Map(rows.map((r) => [r.RunnerId, randomTrail(random, 3)]));
    const baseline = compactBaseline(rows, trails);
    // Runner 11 (rank 11, 35 km) moves to 36.6 km: past ranks 8–10, now 8th; they each move down one.
    const r = rows[10];
    const moved = { ...r, DistanceKm: 36.6, GapKm: 3.4, Rank: 8 };
    const next = rows.map((x) =>
      x === r ? moved : x.Rank! >= 8 && x.Rank! <= 10 ? { ...x, Rank: x.Rank! + 1 } : x,
    );
    const delta = encodeCompactDelta(baseline, next, [], 2, AT + 5000)!;
    expect(compactDeltaRows(delta).P).toEqual([[r.RunnerId, 1, 1600]]);
    expect(delta.K).toBeUndefined();
    const held = new Map(rows.map((x) => [x.RunnerId, x]));
    const u = decodeCompactDelta(liveCompactDeltaSchema.parse(delta), held, (id) => trails.get(id)!.at(-1));
    expect(u.Rows.map((x) => [x.RunnerId, x.Rank, x.DistanceKm, x.GapKm])).toEqual([
      [r.RunnerId, 8, 36.6, 3.4],
    ]);
    expect(u.Ranks.sort((a, b) => a[0] - b[0])).toEqual([
      [8, 9],
      [9, 10],
      [10, 11],
    ]);
    // A tie at the same metre: the leaderboard ranks who got there first, and so does the viewer — the runner there
    // already before the one that moved there now. No rank is sent.
    const ranksAfter = (before: LeaderboardRow[], after: LeaderboardRow[], seq: number) => {
      const base = compactBaseline(before, trails);
      const d = encodeCompactDelta(base, after, [], seq, AT + 10_000)!;
      const u = decodeCompactDelta(
        liveCompactDeltaSchema.parse(d),
        new Map(before.map((x) => [x.RunnerId, x])),
        (id) => trails.get(id)!.at(-1),
      );
      const ranks = new Map(before.map((x) => [x.RunnerId, x.Rank]));
      for (const x of u.Rows) ranks.set(x.RunnerId, x.Rank);
      for (const [id, rank] of u.Ranks) ranks.set(id, rank);
      return { d, ranks: [ranks.get(1), ranks.get(2)] };
    };
    expect([next[0].DistanceKm, next[1].DistanceKm]).toEqual([40, 39.5]);
    const arrived = next.map((x) =>
      x.RunnerId === 1 ? { ...x, DistanceKm: 39.5, Rank: 2 } : x.RunnerId === 2 ? { ...x, Rank: 1 } : x,
    );
    const one = ranksAfter(next, arrived, 3);
    expect(one.ranks).toEqual([2, 1]);
    expect(one.d.J).toBeUndefined();
    expect(one.d.K).toBeUndefined();
    // One the viewer cannot tell (the leaderboard has the newcomer first: its place was decided late) is sent
    // outright, as ranks one off the ones worked out (2 would be first, 1 second), in RunnerId order.
    const late = next.map((x) => (x.RunnerId === 1 ? { ...x, DistanceKm: 39.5 } : x));
    const two = ranksAfter(next, late, 4);
    expect(two.ranks).toEqual([1, 2]);
    expect(two.d.J).toEqual([1, -1, 1, 1]);
    expect(two.d.K).toBeUndefined();
  });

  it("sends a gap in seconds as its difference from the leader's progress the viewer holds (0 when exact)", () => {
    // The leader (runner 1): a progress point every 150 s, 2.8–3.2 m/s; runner 2 behind, its gap the time since the
    // leader passed its distance at its newest fix (the leaderboard's rule).
    const progress: { t: number; distanceM: number }[] = [];
    for (let i = 0, d = 0; i <= 80; i++, d += 420 + (i % 7) * 10)
      progress.push({ t: START + i * 150_000, distanceM: d });
    const upTo = (t: number) => progress.filter((p) => p.t <= t);
    let now = AT;
    const progressOf = (id: number) => (id === 1 ? upTo(now) : null);
    const timeAt = (m: number) => {
      const k = progress.findIndex((p) => p.distanceM >= m);
      const [a, b] = [progress[k - 1], progress[k]];
      return a.t + ((m - a.distanceM) * (b.t - a.t)) / (b.distanceM - a.distanceM);
    };
    const row = (id: number, rank: number, km: number, ping: number, gap: number): LeaderboardRow =>
      ({
        RunnerId: id,
        Rank: rank,
        Status: 'racing',
        DistanceKm: km,
        GapSeconds: gap,
        LastPingTime: new Date(ping).toISOString(),
        Latitude: 46,
        Longitude: 7,
      }) as LeaderboardRow;
    const leaderAt = (t: number) => upTo(t).at(-1)!;
    // Its average pace too: the race time at its newest fix over its distance (the matcher's rule).
    const runner2 = (km: number, ping: number) => ({
      ...row(2, 2, km, ping, Math.round(Math.max(0, ping - timeAt(km * 1000)) / 1000)),
      PaceSecondsPerKm: Math.round((ping - START) / (km * 1000)),
    });
    const trails = new Map<number, TrailPoint[]>([
      [1, [[leaderAt(now).t, 46, 7]]],
      [2, [[AT - 20_000, 46, 7]]],
    ]);
    const rows = [row(1, 1, leaderAt(now).distanceM / 1000, leaderAt(now).t, 0), runner2(9.1, AT - 20_000)];
    const baseline = compactBaseline(rows, trails, progressOf);
    const snap = encodeCompactSnapshot(meta, rows, trails, AT, undefined, baseline.leader);
    const held = leaderCurveOf(JSON.parse(JSON.stringify(snap)));
    expect(held?.id).toBe(1);
    expect(held?.m.at(-1)).toBe(Math.round(leaderAt(now).distanceM));
    // 150 s later: the leader has a new point, runner 2 a new fix 200 m on (slower than the leader: its gap grows).
    now = AT + 150_000;
    const next = [row(1, 1, leaderAt(now).distanceM / 1000, leaderAt(now).t, 0), runner2(9.3, AT + 130_000)];
    const fixes: [number, number, number, number][] = [
      [1, leaderAt(now).t, 46, 7],
      [2, AT + 130_000, 46, 7],
    ];
    const delta = encodeCompactDelta(baseline, next, fixes, 8, now, START, null, null, progressOf)!;
    // Only the leader's new point travels (its whole curve did with the snapshot).
    expect(delta.LC).toBeUndefined();
    expect(delta.LA).toHaveLength(2);
    // Runner 2's patch (RunnerIds travel as differences: 1, then 2 − 1).
    const heldRows = new Map(rows.map((r) => [r.RunnerId, r]));
    const newestOf2 = (id: number) => trails.get(id)!.at(-1);
    const ids = deltaRunnerIds(delta, heldRows, newestOf2);
    const patch = compactDeltaRows(delta, ids).P[ids.indexOf(2)];
    expect(patch).toBeDefined();
    const u = decodeCompactDelta(
      liveCompactDeltaSchema.parse(JSON.parse(JSON.stringify(delta))),
      new Map(rows.map((r) => [r.RunnerId, r])),
      (id) => trails.get(id)!.at(-1),
      meta.ClockStartedAt,
      null,
      held,
    );
    expect(u.Rows.find((r) => r.RunnerId === 2)?.GapSeconds).toBe(next[1].GapSeconds);
    // The gap changed by more than a minute; what travels is its difference from the prediction: a second at most.
    expect(Math.abs(next[1].GapSeconds! - rows[1].GapSeconds!)).toBeGreaterThan(60);
    const bitsOf = (mask: number) =>
      [...Array(40).keys()].filter((i) => i !== 6 && Math.floor(mask / 2 ** i) % 2);
    // The pace changed (bit 10) and is what the viewer predicts: 0.
    expect(patch[2 + bitsOf(patch[1] as number).indexOf(10)]).toBe(0);
    expect(u.Rows.find((r) => r.RunnerId === 2)?.PaceSecondsPerKm).toBe(next[1].PaceSecondsPerKm);
    // Sent as its difference from what the leader's progress gives: 0 here (the viewer took that, above).
    expect(patch[2 + bitsOf(patch[1] as number).indexOf(3)]).toBe(0);
    // A gap a few seconds off it travels as that difference.
    const off = [
      next[0],
      { ...next[1], DistanceKm: 9.35, GapSeconds: runner2(9.35, AT + 280_000).GapSeconds! + 4 },
    ];
    // What the viewer holds by then: the first delta's fixes are the newest.
    const newestThen = new Map(fixes.map(([id, t, lat, lon]): [number, TrailPoint] => [id, [t, lat, lon]]));
    now = AT + 300_000;
    const d3 = encodeCompactDelta(
      baseline,
      off,
      [[2, AT + 280_000, 46, 7]],
      10,
      now,
      START,
      null,
      null,
      progressOf,
    )!;
    const ids3 = deltaRunnerIds(d3, heldRows, (id) => newestThen.get(id));
    const p3 = compactDeltaRows(d3, ids3).P[ids3.indexOf(2)];
    expect(p3[2 + bitsOf(p3[1] as number).indexOf(3)]).toBe(4);
    // A new leader: its whole curve.
    const swapped = [
      { ...next[1], RunnerId: 2, Rank: 1 },
      { ...next[0], RunnerId: 1, Rank: 2 },
    ];
    const d2 = encodeCompactDelta(baseline, swapped, [], 9, now + 15_000, START, null, null, (id) =>
      id === 2 ? progress.slice(0, 3) : null,
    )!;
    expect(d2.LC?.[0]).toBe(2);
  });

  it('tells the runners a message patches by who is due (steady trackers), and by RunnerId when that is shorter', () => {
    const random = seededRandom(31);
    // 60 runners whose trackers report every 150 s, each at its own phase; a message every 15 s.
    const ids = Array.from({ length: 60 }, (_, i) => 3 + i * 2);
    const phase = new Map(ids.map((id) => [id, Math.floor(random() * 150) * 1000]));
    const trails = new Map<number, TrailPoint[]>(
      ids.map((id) => [id, [[AT - 150_000 + phase.get(id)!, 46, 7]]]),
    );
    const row = (id: number, km: number, t: number) =>
      ({
        RunnerId: id,
        Rank: null,
        Status: 'racing',
        DistanceKm: km,
        LastPingTime: new Date(t).toISOString(),
        Latitude: 46,
        Longitude: 7,
      }) as LeaderboardRow;
    const rows = ids.map((id) => row(id, 5, trails.get(id)![0][0]));
    const baseline = compactBaseline(rows, trails);
    const held = new Map(rows.map((r) => [r.RunnerId, r]));
    const newest = (id: number) => trails.get(id)!.at(-1);
    // At AT + 15 s: every runner whose fix is due (150 s after its last) reports, but two are late; one reports early.
    const at = AT + 15_000;
    const due = ids.filter((id) => trails.get(id)![0][0] + 150_000 <= at);
    expect(due.length).toBeGreaterThan(3);
    const late = due.slice(0, 2);
    const early = ids.find((id) => !due.includes(id))!;
    const reporting = [...due.filter((id) => !late.includes(id)), early];
    const fixes = reporting.map((id): [number, number, number, number] => [
      id,
      trails.get(id)![0][0] + 150_000,
      46.001,
      7,
    ]);
    const next = ids.map((id) => {
      const f = fixes.find((x) => x[0] === id);
      return f ? row(id, 5.4, f[1]) : held.get(id)!;
    });
    next.forEach((r) => {
      if (reporting.includes(r.RunnerId)) r.Latitude = 46.001;
    });
    const delta = encodeCompactDelta(baseline, next, fixes, 2, at)!;
    // [lag, the late ones, the early one] instead of every RunnerId.
    expect(delta.PI).toBeDefined();
    expect(delta.P[0]).toBe('');
    expect(deltaRunnerIds(delta, held, newest)).toEqual([...reporting].sort((a, b) => a - b));
    const u = decodeCompactDelta(
      liveCompactDeltaSchema.parse(JSON.parse(JSON.stringify(delta))),
      held,
      newest,
    );
    expect(u.Rows.map((r) => [r.RunnerId, r.DistanceKm])).toEqual(
      [...reporting].sort((a, b) => a - b).map((id) => [id, 5.4]),
    );
    // Two runners with nothing due: their RunnerIds (shorter than a list of misses).
    const b2 = compactBaseline(rows, trails);
    const two = ids.filter((id) => !due.includes(id)).slice(0, 2);
    const d2 = encodeCompactDelta(
      b2,
      ids.map((id) => (two.includes(id) ? row(id, 6, AT) : held.get(id)!)),
      [],
      3,
      AT,
    )!;
    expect(d2.PI).toBeUndefined();
    expect(deltaRunnerIds(d2, held, newest)).toEqual(two);
  });

  it("sends no percentage that is the distance's share of the course, and one that is not", () => {
    const random = seededRandom(7);
    const pct = (km: number) => Math.round(Math.min(100, ((km * 1000) / COURSE_M) * 100) * 10) / 10;
    const rows = rankedRows(random).map((r) => ({ ...r, Percent: pct(r.DistanceKm) }));
    const trails = new Map(rows.map((r) => [r.RunnerId, randomTrail(random, 3)]));
    const baseline = compactBaseline(rows, trails);
    const [a, b] = [rows[20], rows[30]];
    const next = rows.map((x) =>
      x === a
        ? { ...x, DistanceKm: x.DistanceKm + 0.2, GapKm: x.GapKm - 0.2, Percent: pct(x.DistanceKm + 0.2) }
        : x === b
          ? { ...x, DistanceKm: x.DistanceKm + 0.2, GapKm: x.GapKm - 0.2, Percent: 99.9 }
          : x,
    );
    const delta = encodeCompactDelta(baseline, next, [], 2, AT + 5000, null, COURSE_M)!;
    expect(delta.C).toBe(COURSE_M);
    expect(compactDeltaRows(delta).P).toEqual([
      [a.RunnerId, 1, 200],
      [b.RunnerId - a.RunnerId, 1 + 2, 200, 999 - Math.round(pct(b.DistanceKm + 0.2) * 10)],
    ]);
    const held = new Map(rows.map((x) => [x.RunnerId, x]));
    const u = decodeCompactDelta(liveCompactDeltaSchema.parse(delta), held, (id) => trails.get(id)!.at(-1));
    expect(u.Rows.map((x) => x.Percent)).toEqual([pct(a.DistanceKm + 0.2), 99.9]);
  });
});
