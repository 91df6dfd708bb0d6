import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderboardRow } from '@racebeacon/domain';
import { openDatabase } from '../src/db/client';
import { createTestApp, type TestContext } from './support/app';
import { createTestDatabase, dbKinds, type TestDatabase } from './support/databases';
import {
  startTestIssuer,
  TEST_ADMIN_GROUP,
  TEST_AUDIENCE,
  TEST_SCOPE,
  type TestIssuer,
} from './support/issuer';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';

/**
 * Issue 9, defect 1: the first load of a race's live state in a process (the first viewer after a restart or an
 * idle eviction) while pings flow. Position events that arrived during the load were replayed while the race was
 * still marked as loading, so each was queued again onto the array being replayed: an endless loop, memory to the
 * limit, no answers, then the process aborted — on every process of the database at once, since events come by
 * PostgreSQL NOTIFY too.
 *
 * The servers under test run as separate processes (test/support/held-load-server.ts: the real app, heap capped
 * so a runaway dies in seconds instead of taking the machine's memory), so a looping server fails this test by a
 * bounded wait instead of hanging the test runner. That server holds the first read of the `courses` table (part
 * of the live state's first load, never touched by ingestion) until told to go on: the test makes position events
 * arrive while the load is pending, every time, and knows they did (the server prints each event it receives).
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const RUNNERS = 50;
/** Runner k (0-based) starts 100 m ahead of runner k-1 and every round moves 0.625 m in 250 ms: ranks never swap. */
const startM = (k: number) => 1000 + 100 * k;
const STEP_M = 0.625;
const STEP_MS = 250;
/** Fix times start 3 minutes ago and must stay in the past and recent (not stale): at most this many rounds. */
const MAX_ROUNDS = 600;
/** Per test: two or three server processes start (bounded, like every wait here). */
const TEST_MS = 120_000;
/** Bound of every wait on a server, so a hung server fails the test instead of hanging it. */
const ANSWER_MS = 20_000;

// ---------------------------------------------------------------- a server process that can hold the first load

interface HeldServer {
  url: string;
  lines: Record<string, unknown>[];
  /** Waits (bounded) until `cond` (looking at `lines`) holds. */
  waitFor(cond: () => boolean, what: string): Promise<void>;
  release(): void;
  output(): string;
  stop(): Promise<void>;
}

const started: HeldServer[] = [];

async function startHeldServer(env: Record<string, string>): Promise<HeldServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--max-old-space-size=256', '--import', 'tsx', 'apps/server/test/support/held-load-server.ts'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DEMO: 'off',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const lines: Record<string, unknown>[] = [];
  let out = '';
  let partial = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        out += line + '\n';
      }
    }
    wake();
  });
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', wake);
  const output = () =>
    `${out}${child.exitCode !== null || child.signalCode ? `\n[exited: ${child.exitCode ?? child.signalCode}]` : ''}`;

  const waitFor = (cond: () => boolean, what: string, ms = ANSWER_MS) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`server did not print ${what} within ${ms} ms:\n${output()}`)),
        ms,
      );
      const check = () => {
        if (cond()) return done(null);
        if (child.exitCode !== null || child.signalCode)
          done(new Error(`server exited before ${what}:\n${output()}`));
      };
      const done = (err: Error | null) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (err) reject(err);
        else resolve();
      };
      waiters.add(check);
      check();
    });

  await waitFor(() => lines.some((l) => 'port' in l), 'its port', 60_000);
  const server: HeldServer = {
    url: `http://127.0.0.1:${String(lines.find((l) => 'port' in l)!.port)}`,
    lines,
    waitFor,
    release: () => child.stdin!.write('release\n'),
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode) return;
      child.kill('SIGTERM');
      // A server stuck in a loop never runs its SIGTERM handler.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  started.push(server);
  return server;
}

// ---------------------------------------------------------------- devices pinging continuously

/** Every device pings once per round (real OsmAnd HTTP requests, all devices at once), round after round. */
class Pinger {
  /** Rounds every ping of which was answered (whatever the answer). */
  roundsDone = 0;
  /** Answers other than 200: "round/bib: status or error". */
  readonly failures: string[] = [];
  acked = 0;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly race: SeededRace,
    private readonly t0: number,
  ) {}

  fix(k: number, round: number) {
    return { t: this.t0 + round * STEP_MS, ...pointAlong(startM(k) + round * STEP_M) };
  }

  /** Sends rounds to `url` until stopped (or MAX_ROUNDS). */
  run(url: string) {
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped && this.roundsDone < MAX_ROUNDS) await this.round(url);
    })();
  }

  async round(url: string) {
    const round = this.roundsDone;
    await Promise.all(
      this.race.runners.map(async (r, k) => {
        try {
          const res = await fetch(osmandUrl(url, r, this.fix(k, round)), {
            method: 'POST',
            signal: AbortSignal.timeout(ANSWER_MS),
          });
          await res.arrayBuffer();
          if (res.status === 200) this.acked++;
          else this.failures.push(`${round}/${r.bib}: ${res.status}`);
        } catch (err) {
          this.failures.push(`${round}/${r.bib}: ${(err as Error).message}`);
        }
      }),
    );
    this.roundsDone = round + 1;
  }

  /** Waits (bounded) until `n` more rounds have been answered. */
  async more(n: number) {
    const target = this.roundsDone + n;
    const deadline = Date.now() + ANSWER_MS;
    while (this.roundsDone < target) {
      if (this.roundsDone >= MAX_ROUNDS) throw new Error('ran out of rounds');
      if (Date.now() > deadline) throw new Error(`devices' pings not answered within ${ANSWER_MS} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }
}

/** Whether the server's bus has delivered every device's fix of `round`. */
function receivedRound(server: HeldServer, race: SeededRace, pinger: Pinger, round: number): boolean {
  const want = new Set(
    race.runners.map((r, k) => `${r.runnerId}@${new Date(pinger.fix(k, round).t).toISOString()}`),
  );
  for (const l of server.lines) {
    const p = l.position as { runnerId: number; fixTime: string } | undefined;
    if (p) want.delete(`${p.runnerId}@${p.fixTime}`);
  }
  return want.size === 0;
}

async function readLeaderboard(server: HeldServer, raceId: number): Promise<LeaderboardRow[]> {
  let res: Response;
  try {
    res = await fetch(`${server.url}/api/open/races/${raceId}/leaderboard`, {
      signal: AbortSignal.timeout(ANSWER_MS),
    });
  } catch (err) {
    throw new Error(`leaderboard read failed (${(err as Error).message}); server:\n${server.output()}`);
  }
  expect(res.status).toBe(200);
  return (await res.json()) as LeaderboardRow[];
}

/**
 * Every runner racing, ranked in bib order reversed (each starts 100 m ahead of the one before), at the position of
 * a round between `minRound` and `maxRound` (both included).
 */
function expectLeaderboard(
  rows: LeaderboardRow[],
  race: SeededRace,
  pinger: Pinger,
  minRound: number,
  maxRound: number,
) {
  expect(rows).toHaveLength(RUNNERS);
  expect(rows.map((r) => r.RunnerId)).toEqual(race.runners.map((r) => r.runnerId).reverse());
  rows.forEach((row, rank) => {
    const k = RUNNERS - 1 - rank;
    expect(row).toMatchObject({ Rank: rank + 1, Status: 'racing', BibNumber: race.runners[k].bib });
    expect(row.DistanceKm! * 1000).toBeGreaterThanOrEqual(startM(k) + minRound * STEP_M - 5);
    expect(row.DistanceKm! * 1000).toBeLessThanOrEqual(startM(k) + maxRound * STEP_M + 5);
    if (minRound === maxRound) {
      expect(row.DistanceKm).toBeCloseTo((startM(k) + maxRound * STEP_M) / 1000, 2);
      expect(row.LastPingTime).toBe(new Date(pinger.fix(k, maxRound).t).toISOString());
    }
  });
}

/**
 * The issue's sequence on `server`, a process that has not loaded the race yet while devices ping `pinger`'s
 * target: the first leaderboard read is held in its load until position events arrived meanwhile, then released;
 * it must answer, with every runner where their acknowledged pings put them, while pings keep flowing.
 */
async function firstLoadWhilePinging(server: HeldServer, race: SeededRace, pinger: Pinger) {
  const first = readLeaderboard(server, race.raceId).then(
    (rows) => ({ rows }),
    (err: Error) => ({ err }),
  );
  await server.waitFor(() => server.lines.some((l) => l.held === true), 'that the first load is waiting');
  const held = server.lines.findIndex((l) => l.held === true);
  // Two full rounds of pings answered while the load waits: the second was sent after it started waiting, and once
  // this server has received all of it (by its own bus or by NOTIFY), those events are queued for the replay.
  await pinger.more(2);
  const minRound = pinger.roundsDone - 1;
  await server.waitFor(() => receivedRound(server, race, pinger, minRound), `every fix of round ${minRound}`);
  expect(server.lines.slice(held + 1).filter((l) => 'position' in l).length).toBeGreaterThanOrEqual(RUNNERS);
  server.release();

  const result = await first;
  if ('err' in result) throw result.err;
  const roundsAfter = pinger.roundsDone;
  // The pings acknowledged before the load finished are all in the answer (read from the database or replayed).
  expectLeaderboard(result.rows, race, pinger, minRound, roundsAfter);
}

// ---------------------------------------------------------------- one server process, restarted

describe.each(dbKinds)('first live load of a race while pings flow, one server restarted (%s)', (kind) => {
  let issuer: TestIssuer;
  let race: SeededRace;
  let pinger: Pinger;
  let dbEnv: Record<string, string>;
  let dataDir: string | undefined;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    const clockStartMs = Date.now() - 60 * 60_000;
    if (kind === 'pglite') {
      // The embedded database in a data directory, as a real install (one process at a time opens it).
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'rb-first-load-'));
      const seeding = await openDatabase({ dataDir });
      race = await seedLiveRace(seeding.db, { runners: RUNNERS, clockStartMs, expectedIntervalS: 600 });
      await seeding.close();
      dbEnv = { DATA_DIR: dataDir };
    } else {
      database = await createTestDatabase('postgres');
      race = await seedLiveRace(database.db, { runners: RUNNERS, clockStartMs, expectedIntervalS: 600 });
      dbEnv = { DATABASE_URL: database.url! };
    }
    pinger = new Pinger(race, Math.floor((Date.now() - 3 * 60_000) / 1000) * 1000);
  });
  afterEach(async () => {
    await pinger?.stop();
    for (const s of started.splice(0)) await s.stop();
  });
  afterAll(async () => {
    await database?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await issuer?.close();
  });

  const env = () => ({
    ...dbEnv,
    OIDC_ISSUER: issuer.url,
    OIDC_AUDIENCE: TEST_AUDIENCE,
    OIDC_CLIENT_ID: 'racebeacon-test-client',
    OIDC_API_SCOPE: TEST_SCOPE,
    ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
  });

  it(
    'answers the first leaderboard read after the restart with every acknowledged ping, and acks every ping',
    async () => {
      // Before the restart: 50 devices ping, viewers read the live leaderboard.
      const before = await startHeldServer(env());
      for (let i = 0; i < 3; i++) await pinger.round(before.url);
      expectLeaderboard(await readLeaderboard(before, race.raceId), race, pinger, 2, 2);
      await before.stop();

      // The restart: a fresh process, the race's live state not in memory; the devices keep pinging.
      const after = await startHeldServer({ ...env(), HOLD_FIRST_COURSE_READ: '1' });
      pinger.run(after.url);
      await pinger.more(2);
      await firstLoadWhilePinging(after, race, pinger);

      await pinger.more(2);
      await pinger.stop();
      expect(pinger.failures).toEqual([]);
      expect(pinger.acked).toBe(pinger.roundsDone * RUNNERS);
      // Pings stopped: every runner exactly where their last ping put them.
      const last = pinger.roundsDone - 1;
      expectLeaderboard(await readLeaderboard(after, race.raceId), race, pinger, last, last);
    },
    TEST_MS,
  );
});

// ---------------------------------------------------------------- two server processes on one PostgreSQL

describe.runIf(process.env.TEST_DATABASE_URL)(
  'first live load of a race while pings flow, two server processes (PostgreSQL)',
  () => {
    let a: TestContext;
    let race: SeededRace;
    let pinger: Pinger;
    let aUrl: string;

    beforeAll(async () => {
      a = await createTestApp('postgres');
      race = await seedLiveRace(a.app.db, {
        runners: RUNNERS,
        clockStartMs: Date.now() - 60 * 60_000,
        expectedIntervalS: 600,
      });
      await a.app.listen({ port: 0, host: '127.0.0.1' });
      aUrl = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
      pinger = new Pinger(race, Math.floor((Date.now() - 3 * 60_000) / 1000) * 1000);
    });
    afterEach(async () => {
      await pinger?.stop();
      for (const s of started.splice(0)) await s.stop();
    });
    afterAll(async () => a?.close());

    it(
      'process B answers its first leaderboard read while pings to process A reach it by NOTIFY',
      async () => {
        pinger.run(aUrl);
        await pinger.more(2);
        // Process B (re)starts while the devices keep pinging process A.
        const b = await startHeldServer({
          DATABASE_URL: a.database.url!,
          OIDC_ISSUER: a.issuer.url,
          OIDC_AUDIENCE: TEST_AUDIENCE,
          OIDC_CLIENT_ID: 'racebeacon-test-client',
          OIDC_API_SCOPE: TEST_SCOPE,
          ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
          HOLD_FIRST_COURSE_READ: '1',
        });
        await pinger.more(2);
        await firstLoadWhilePinging(b, race, pinger);

        await pinger.more(2);
        await pinger.stop();
        expect(pinger.failures).toEqual([]);
        expect(pinger.acked).toBe(pinger.roundsDone * RUNNERS);
        // Once B has received every device's last fix, both processes show every runner exactly there.
        const last = pinger.roundsDone - 1;
        await b.waitFor(() => receivedRound(b, race, pinger, last), "every device's last fix");
        expectLeaderboard(await readLeaderboard(b, race.raceId), race, pinger, last, last);
        const fromA = await fetch(`${aUrl}/api/open/races/${race.raceId}/leaderboard`);
        expectLeaderboard((await fromA.json()) as LeaderboardRow[], race, pinger, last, last);
      },
      TEST_MS,
    );
  },
);
