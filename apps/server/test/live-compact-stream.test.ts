import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyLeaderCurve,
  compactView,
  courseLine,
  decodeCompactDelta,
  type CourseLine,
  decodeCompactSnapshot,
  leaderCurveOf,
  liveCompactDeltaSchema,
  liveCompactSnapshotSchema,
  type LeaderboardRow,
  type LeaderCurve,
  type LiveUpdate,
  type TrailPoint,
} from '@racebeacon/domain';
import { eq } from 'drizzle-orm';
import { runners } from '../src/db/schema';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, type SeededRace } from './support/live-seed';
import { connectSse, type SseConnection, type SseEvent } from './support/sse-client';

const MIN = 60_000;
/**
 * Fields that move with the clock (elapsed time, gaps, a silent runner's estimate between whole kilometres): on both
 * streams they are as of the runner's last change, not of now.
 */
const CLOCK_FIELDS = [
  'ElapsedSeconds',
  'GapSeconds',
  'GapKm',
  'EstimatedAt',
  'EstimatedDistanceKm',
  'EstimatedDistanceKmMin',
  'EstimatedDistanceKmMax',
  'EstimatedLatitude',
  'EstimatedLongitude',
] as const;
const withoutClock = (r: LeaderboardRow) => {
  const copy: Record<string, unknown> = { ...r };
  for (const f of CLOCK_FIELDS) delete copy[f];
  return copy;
};

/** A viewer of the compact stream, as the web app's live store: the snapshot decoded, then every delta applied. */
class CompactViewer {
  rows = new Map<number, LeaderboardRow>();
  trails = new Map<number, TrailPoint[]>();
  clockStartedAt: string | null = null;
  /** The course line of the snapshot: the deltas place fixes on it. */
  line: CourseLine | null = null;
  /** The leader's progress the snapshot and deltas give (gaps in seconds travel against it). */
  curve: LeaderCurve | null = null;
  applied = 0;
  constructor(readonly sse: SseConnection) {}

  /** Applies every message received so far (from `from` on). */
  catchUp(): void {
    const events = this.sse.events.filter((e) => e.event === 'snap' || e.event === 'delta');
    for (; this.applied < events.length; this.applied++) this.apply(events[this.applied]);
  }

  private apply(e: SseEvent): void {
    const data = JSON.parse(e.data);
    if (e.event === 'snap') {
      const parsed = liveCompactSnapshotSchema.parse(data);
      this.line = courseLine(parsed.Line);
      this.curve = leaderCurveOf(parsed);
      const snap = decodeCompactSnapshot(parsed);
      this.rows = new Map(snap.Rows.map((r) => [r.RunnerId, r]));
      this.trails = new Map(snap.Trails.map((t) => [t.RunnerId, t.Trail]));
      this.clockStartedAt = snap.ClockStartedAt;
      return;
    }
    const delta = liveCompactDeltaSchema.parse(data);
    const u: LiveUpdate = decodeCompactDelta(
      delta,
      this.rows,
      (id) => this.trails.get(id)?.at(-1),
      this.clockStartedAt,
      this.line,
      this.curve,
    );
    this.curve = applyLeaderCurve(this.curve, delta);
    for (const r of u.Rows) this.rows.set(r.RunnerId, r);
    for (const [id, rank] of u.Ranks) this.rows.set(id, { ...this.rows.get(id)!, Rank: rank });
    for (const [id, t, lat, lon] of u.Fixes) {
      const trail = this.trails.get(id) ?? [];
      let i = trail.length;
      while (i > 0 && trail[i - 1][0] > t) i--;
      trail.splice(i, 0, [t, lat, lon]);
      this.trails.set(id, trail);
    }
  }

  board(): Record<string, unknown>[] {
    return [...this.rows.values()].sort((a, b) => a.RunnerId - b.RunnerId).map(withoutClock);
  }
}

describe.each(dbKinds)('compact live stream ?v=5 (%s)', (kind) => {
  let t: TestContext;
  let race: SeededRace;
  let base: string;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    race = await seedLiveRace(t.app.db, { runners: 5, clockStartMs: now - 60 * MIN });
    for (const [k, r] of race.runners.slice(0, 4).entries()) {
      await postFixes(t.app, race.raceId, r, [
        { t: now - 30 * MIN, ...pointAlong(2000 + k * 200) },
        { t: now - 10 * MIN, ...pointAlong(3500 + k * 300, 3), batteryPercent: 70 + k },
      ]);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  const leaderboard = async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` });
    expect(res.statusCode).toBe(200);
    return res
      .json<LeaderboardRow[]>()
      .map(compactView)
      .sort((a, b) => a.RunnerId - b.RunnerId)
      .map(withoutClock);
  };

  it('sends a compact snapshot and deltas that a viewer applies to the leaderboard of GET /leaderboard', async () => {
    const url = `${base}/api/open/races/${race.raceId}/live`;
    const compact = new CompactViewer(await connectSse(`${url}?v=5`));
    const first = await connectSse(url);
    const snap = await compact.sse.next((e) => e.event === 'snap' || e.event === 'snapshot');
    expect(snap.event).toBe('snap');
    expect(snap.id).toMatch(/^[0-9a-f]+\.0(\.\d+)?$/);
    await first.next((e) => e.event === 'snapshot');
    compact.catchUp();
    expect(compact.board()).toEqual(await leaderboard());
    expect(compact.trails.get(race.runners[0].runnerId)?.length).toBe(2);

    // Runner 5 starts, runner 1 overtakes everyone, runner 3 moves on: new rows, new ranks, new fixes.
    const [r1, , r3, , r5] = race.runners;
    await postFixes(t.app, race.raceId, r5, [{ t: now - 2 * MIN, ...pointAlong(1000) }]);
    await postFixes(t.app, race.raceId, r1, [{ t: now - MIN, ...pointAlong(4700, -2), batteryPercent: 60 }]);
    await postFixes(t.app, race.raceId, r3, [{ t: now - MIN, ...pointAlong(4600) }]);
    await expect
      .poll(async () => (await leaderboard()).find((r) => r.RunnerId === r1.runnerId)?.Rank)
      .toBe(1);
    const expected = await leaderboard();
    await expect
      .poll(
        () => {
          compact.catchUp();
          return compact.board();
        },
        { timeout: 45_000, interval: 100 },
      )
      .toEqual(expected);
    // The viewer holds the new leader's progress (runner 1's, sent with the delta that made it the leader: gaps in
    // seconds travel against it), and the runners that moved have the server's gaps. (That the prediction is what the
    // curve gives, not the leader's pace, is checked in the domain's live-codec.test.ts: here both agree.)
    expect(compact.curve?.id).toBe(r1.runnerId);
    const rest = await t.app.inject({ url: `/api/open/races/${race.raceId}/leaderboard` });
    const gap = (rows: LeaderboardRow[], id: number) => rows.find((r) => r.RunnerId === id)?.GapSeconds;
    for (const id of [r1.runnerId, r3.runnerId]) {
      expect(compact.rows.get(id)?.GapSeconds).toBe(gap(rest.json<LeaderboardRow[]>(), id));
      expect(compact.rows.get(id)?.GapSeconds).not.toBeNull();
    }
    expect(compact.rows.get(r3.runnerId)?.GapSeconds).toBeGreaterThan(0);
    // The map: every runner's trail ends at their newest fix (to 1e-5°).
    const newest = compact.trails.get(r1.runnerId)!.at(-1)!;
    expect(newest[0]).toBe(now - MIN);
    expect(newest[1]).toBe(Math.round(pointAlong(4700, -2).lat * 1e5) / 1e5);
    expect(compact.trails.get(r5.runnerId)?.length).toBe(1);

    // Compact: the deltas carry numbers, not rows; fewer bytes than the first stream's updates of the same changes.
    await first.next(
      (e) =>
        e.event === 'update' &&
        JSON.parse(e.data).Rows.some((r: LeaderboardRow) => r.RunnerId === r3.runnerId),
    );
    const deltas = compact.sse.events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(0);
    for (const d of deltas) {
      expect(d.data).not.toContain('FirstName');
      expect(d.id).toMatch(/^[0-9a-f]+\.\d+(\.\d+)?$/);
    }
    const bytes = (events: SseEvent[], name: string) =>
      events.filter((e) => e.event === name).reduce((n, e) => n + e.data.length, 0);
    expect(bytes(compact.sse.events, 'delta')).toBeLessThan(bytes(first.events, 'update') / 3);

    // Resume: with the snapshot's id, the deltas since (not a snapshot); with a foreign id, a snapshot.
    compact.sse.close();
    first.close();
    const resumed = await connectSse(`${url}?v=5`, { 'last-event-id': snap.id! });
    const got = await resumed.next((e) => e.event === 'delta' || e.event === 'snap');
    expect(got.event).toBe('delta');
    expect(got.data).toBe(deltas[0].data);
    resumed.close();
    const foreign = await connectSse(`${url}?v=5&lastEventId=0badc0de.3.1700000000000`);
    expect((await foreign.next((e) => e.event === 'delta' || e.event === 'snap')).event).toBe('snap');
    foreign.close();
  });

  it('answers a superseded compact version (?v=2, ?v=3, ?v=4: a tab left open across a deploy) with the first stream', async () => {
    const url = `${base}/api/open/races/${race.raceId}/live`;
    for (const v of ['2', '3', '4']) {
      const old = await connectSse(`${url}?v=${v}`);
      try {
        const first = await old.next((e) => e.event === 'snap' || e.event === 'snapshot');
        expect(first.event).toBe('snapshot');
        const rows = JSON.parse(first.data).Rows as LeaderboardRow[];
        expect(rows.map((r) => r.RunnerId).sort((a, b) => a - b)).toEqual(
          (await leaderboard()).map((r) => r.RunnerId as number),
        );
      } finally {
        old.close();
      }
    }
    const bad = await fetch(`${url}?v=9`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: expect.any(String),
      message: expect.stringContaining('v'),
    });
  });

  it('sends a race with a privacy setting as its public view, never the compact live messages', async () => {
    const hidden = await seedLiveRace(t.app.db, { runners: 2, clockStartMs: now - 60 * MIN });
    const [h1, h2] = hidden.runners;
    await t.app.db.update(runners).set({ hidePosition: true }).where(eq(runners.id, h1.runnerId));
    await postFixes(t.app, hidden.raceId, h1, [{ t: now - 10 * MIN, ...pointAlong(3000) }]);
    await postFixes(t.app, hidden.raceId, h2, [{ t: now - 10 * MIN, ...pointAlong(2000) }]);
    const sse = await connectSse(`${base}/api/open/races/${hidden.raceId}/live?v=5`);
    try {
      const first = await sse.next((e) => e.event === 'snap' || e.event === 'snapshot');
      expect(first.event).toBe('snapshot');
      const row = JSON.parse(first.data).Rows.find((r: LeaderboardRow) => r.RunnerId === h1.runnerId);
      expect([row.Latitude, row.Longitude]).toEqual([null, null]);
      await postFixes(t.app, hidden.raceId, h1, [{ t: now - MIN, ...pointAlong(3300) }]);
      const upd = await sse.next(
        (e) =>
          e.event === 'update' &&
          JSON.parse(e.data).Rows.some((r: LeaderboardRow) => r.RunnerId === h1.runnerId),
        15_000,
      );
      expect(upd.data).not.toContain(String(pointAlong(3300).lat));
      expect(sse.events.some((e) => e.event === 'snap' || e.event === 'delta')).toBe(false);
    } finally {
      sse.close();
    }
  });

  it('refuses an unknown stream version', async () => {
    const res = await t.app.inject({ url: `/api/open/races/${race.raceId}/live?v=9` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.stringContaining('v') });
  });
});
