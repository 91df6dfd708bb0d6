/**
 * Privacy of runners (`npm run bench -- privacy`): the public leaderboard of a 2,500-runner race read through the
 * public view (privacy/public-view.ts), beside the same race with no privacy set, measured the same way in the same
 * run: (1) no privacy (the live service's cached bytes), (2) 5 % of runners hiding their position (the live state,
 * masked), (3) a 10-minute public delay (the replay at now − 10 min). Also the time of one public state computed
 * afresh (what each 2-second turn of a private race's stream costs once for all its viewers).
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { eq, inArray } from 'drizzle-orm';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase, type Db } from '../apps/server/src/db/client';
import { positions, races, runners } from '../apps/server/src/db/schema';
import { pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';

const MIN = 60_000;
const RUNNERS = Number(process.env.BENCH_PRIVACY_RUNNERS ?? 2500);
const FIXES = 12;
const CONNECTIONS = 50;
const DURATION_S = 6;

/** `FIXES` fixes per runner every 2.5 minutes up to now, each received 5 s after it was taken. */
async function storeHistory(db: Db, race: SeededRace): Promise<void> {
  const rows: (typeof positions.$inferInsert)[] = [];
  const first = Date.now() - FIXES * 150_000;
  for (const [k, r] of race.runners.entries()) {
    const speed = 2.7 + ((k * 37) % 60) / 100;
    for (let i = 1; i <= FIXES; i++) {
      const t = first + i * 150_000;
      const p = pointAlong((speed * (t - race.clockStartMs)) / 1000);
      rows.push({
        deviceId: r.deviceId,
        raceId: race.raceId,
        runnerId: r.runnerId,
        fixTime: new Date(t),
        receivedAt: new Date(t + 5000),
        lat: p.lat,
        lon: p.lon,
        batteryPercent: 90,
        source: 'osmand',
      });
    }
  }
  for (let i = 0; i < rows.length; i += 2000) await db.insert(positions).values(rows.slice(i, i + 2000));
}

export default async function privacyBench() {
  const database = await openDatabase({});
  const app = await buildApp({
    config: loadConfig({ DEMO: 'off', LOG_LEVEL: 'silent', PORT: '0', ALERT_SWEEP_SECONDS: '0' }),
    database,
    logger: false,
  });
  try {
    await app.ready();
    const race = await seedLiveRace(app.db, {
      runners: RUNNERS,
      courseLengthM: 50_000,
      clockStartMs: Date.now() - (FIXES * 2.5 + 5) * MIN,
    });
    await storeHistory(app.db, race);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/open/races/${race.raceId}/leaderboard`;
    await (await fetch(url)).text();

    const run = async () => {
      await autocannon({ url, connections: 8, duration: 1 });
      const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S });
      return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx };
    };
    /** Changes the race as the director's edits do and waits for the live state to hold it. */
    const change = async (delay: number, hidden: number[]) => {
      await app.db.update(races).set({ publicDelayMin: delay }).where(eq(races.id, race.raceId));
      await app.db.update(runners).set({ hidePosition: false }).where(eq(runners.raceId, race.raceId));
      if (hidden.length)
        await app.db.update(runners).set({ hidePosition: true }).where(inArray(runners.id, hidden));
      await app.events.publish({ type: 'race-updated', raceId: race.raceId });
      for (;;) {
        const p = (await app.live.state(race.raceId)).privacy;
        if (p.publicDelayMin === delay && p.hiddenRunnerIds.size === hidden.length) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    /** One public state computed afresh (the cache of the public view emptied), median of 5. */
    const fresh = async () => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        (app.publicView as unknown as { states: Map<string, unknown> }).states.clear();
        const t0 = performance.now();
        await app.publicView.leaderboard(race.raceId, {});
        times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b)[2];
    };

    const open = await run();
    const hidden = race.runners.filter((_, k) => k % 20 === 0).map((r) => r.runnerId);
    await change(0, hidden);
    const masked = await run();
    const maskedFresh = await fresh();
    await change(10, hidden);
    const t0 = performance.now();
    await (await fetch(url)).text();
    const firstDelayed = performance.now() - t0;
    const delayed = await run();
    const delayedFresh = await fresh();

    const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
      `${name}: ${r.rps.toFixed(0)} req/s (p99 ${r.p99} ms), non-2xx ${r.non2xx}; ratio to no privacy ${(r.rps / open.rps).toFixed(2)}`;
    console.log(`public leaderboard of ${RUNNERS} runners, ${FIXES} fixes each:`);
    console.log(line('no privacy (baseline)       ', open));
    console.log(line(`${hidden.length} hidden runners         `, masked));
    console.log(line('10-minute public delay      ', delayed));
    console.log(
      `one public state afresh: masked ${maskedFresh.toFixed(1)} ms, delayed ${delayedFresh.toFixed(1)} ms`,
    );
    console.log(
      `first delayed read (replay built from ${RUNNERS * FIXES} stored fixes): ${firstDelayed.toFixed(0)} ms`,
    );
  } finally {
    await app.close();
    await database.close();
  }
}
