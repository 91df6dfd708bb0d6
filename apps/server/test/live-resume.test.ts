import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { openDatabase } from '../src/db/client';
import { parseEventId, RESUME_MARGIN_MS, ResumeLog } from '../src/live/resume';
import { createTestApp, type TestContext } from './support/app';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';
import { connectSse } from './support/sse-client';

/** Resuming a live stream on another process of a cluster from its Last-Event-ID (issue 14, live/resume.ts). */

describe('resume log', () => {
  it('answers for what it has fully seen, and not before', () => {
    const log = new ResumeLog(1_000_000); // covers fixes received after 1,002,000 (clock allowance)
    log.add(1_003_000, [1, 10, 46, 7]);
    log.add(1_005_000, [2, 20, 46, 7]);
    log.add(1_004_000, [1, 30, 46, 7]); // committed late: received earlier than the one before it
    expect(log.watermark).toBe(1_005_000);
    expect(log.since(1_003_500)).toEqual([
      [2, 20, 46, 7],
      [1, 30, 46, 7],
    ]);
    expect(log.since(1_002_000)).toHaveLength(3);
    expect(log.since(1_001_999)).toBeNull(); // before the log began
    // Five minutes on, the oldest are dropped, and the log no longer answers for their time.
    log.add(1_005_000 + 5 * 60_000 + 1, [3, 40, 46, 7]);
    expect(log.since(1_004_500)).toBeNull();
    expect(log.since(1_005_000)).toEqual([[3, 40, 46, 7]]);
  });

  it('reads event ids with and without a watermark', () => {
    expect(parseEventId('a1b2.7.1760000000123')).toEqual({ build: 'a1b2', seq: 7, watermark: 1760000000123 });
    expect(parseEventId('a1b2.7')).toEqual({ build: 'a1b2', seq: 7, watermark: null });
    expect(parseEventId('nope')).toBeNull();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('resume on another process (PostgreSQL)', () => {
  let a: TestContext;
  let b: Awaited<ReturnType<typeof buildApp>>;
  let race: SeededRace;
  let aUrl: string;
  let bUrl: string;

  beforeAll(async () => {
    a = await createTestApp('postgres');
    race = await seedLiveRace(a.app.db, { runners: 2, clockStartMs: Date.now() - 30 * 60_000 });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    aUrl = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
    // Process B: a second app on the same database (its own pool, event bus and live state).
    b = await buildApp({
      config: a.config,
      database: await openDatabase({ databaseUrl: a.database.url!, poolSize: 5 }),
      logger: false,
    });
    await b.listen({ port: 0, host: '127.0.0.1' });
    bUrl = `http://127.0.0.1:${(b.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a viewer of A resumes on B with its Last-Event-ID: one update with what it missed, no snapshot', async () => {
    const live = (base: string) => `${base}/api/open/races/${race.raceId}/live`;
    const onA = await connectSse(live(aUrl));
    const onB = await connectSse(live(bUrl));
    await onA.next((e) => e.event === 'snapshot');
    await onB.next((e) => e.event === 'snapshot');
    // B answers for watermarks at least the margin (and the clock allowance) after its first viewer.
    await new Promise((r) => setTimeout(r, RESUME_MARGIN_MS + 2500));

    const [r1, r2] = race.runners;
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    expect((await fetch(osmandUrl(aUrl, r1, { t: t0, ...pointAlong(1000) }))).status).toBe(200);
    const seen = await onA.next((e) => e.event === 'update');
    expect(parseEventId(seen.id!)?.watermark).toBeTypeOf('number');
    onA.close();

    // While the viewer is away: a ping into B, another into A.
    expect((await fetch(osmandUrl(bUrl, r2, { t: t0 + 1000, ...pointAlong(1100) }))).status).toBe(200);
    expect((await fetch(osmandUrl(aUrl, r1, { t: t0 + 2000, ...pointAlong(1200) }))).status).toBe(200);
    await onB.next((e) => e.event === 'update' && e.data.includes(`${t0 + 2000}`));

    for (const resumed of [
      await connectSse(live(bUrl), { 'last-event-id': seen.id! }),
      // A new EventSource cannot send the header: the same from the query.
      await connectSse(`${live(bUrl)}?lastEventId=${encodeURIComponent(seen.id!)}`),
    ]) {
      const first = await resumed.next((e) => e.event === 'update' || e.event === 'snapshot');
      expect(first.event).toBe('update');
      const data = JSON.parse(first.data) as { Rows: { RunnerId: number }[]; Fixes: number[][] };
      expect(data.Rows.map((r) => r.RunnerId).sort()).toEqual([r1.runnerId, r2.runnerId].sort());
      const fixes = data.Fixes.map(([runnerId, t]) => `${runnerId}:${t}`);
      expect(fixes).toContain(`${r2.runnerId}:${t0 + 1000}`);
      expect(fixes).toContain(`${r1.runnerId}:${t0 + 2000}`);
      expect(parseEventId(first.id!)?.watermark).toBeGreaterThanOrEqual(parseEventId(seen.id!)!.watermark!);
      resumed.close();
    }

    // A watermark older than what B has seen, or none at all from another build: a snapshot.
    const old = parseEventId(seen.id!)!;
    for (const id of [`${old.build}.${old.seq}.${old.watermark! - 5 * 60_000}`, 'deadbeef.3']) {
      const again = await connectSse(live(bUrl), { 'last-event-id': id });
      expect((await again.next((e) => e.event === 'update' || e.event === 'snapshot')).event).toBe(
        'snapshot',
      );
      again.close();
    }
    onB.close();
  }, 60_000);
});
