import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../src/db/client';
import { isDatabaseUnavailable } from '../src/db/errors';
import { DEMO_ACCOUNTS } from '../src/identity/accounts';
import { SIGN_IN_LIMITS, SignInLimiter } from '../src/identity/sign-in-limits';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { startPrivatePostgres } from './support/private-postgres';
import { freePort, startApp, type Running } from './support/oidc-flow';
import {
  attemptsUntilRefused,
  expectSignedIn,
  TOO_MANY,
  Visitor,
  WRONG,
  wrongAttempts,
} from './support/sign-in-visitor';

const DIRECTOR = DEMO_ACCOUNTS.director1.email;
const ADMIN = DEMO_ACCOUNTS.admin.email;

/**
 * The sign-in attempt limits are the database's, not a process's (issue 14): two app instances on one PostgreSQL
 * database, each with its own connection pool, count the same attempts, so spreading them over both gains nothing;
 * a restart (a new instance) keeps the count; a faked X-Forwarded-For does not reset it (TRUST_PROXY off).
 * Attempts sent in parallel to both instances never get past the limit between them.
 */
describe.runIf(process.env.TEST_DATABASE_URL)(
  'sign-in limits shared by the processes of a cluster (PostgreSQL)',
  { timeout: 180_000 },
  () => {
    let database: TestDatabase;
    const handles: Database[] = [];
    const running: Running[] = [];

    /** An app instance on the shared database with its own pool, as another process would have. */
    async function instance(env: Record<string, string> = {}): Promise<Running> {
      const handle = await openDatabase({ databaseUrl: database.url!, poolSize: 5 });
      handles.push(handle);
      const run = await startApp(handle, undefined, env);
      running.push(run);
      return run;
    }
    async function stop(run: Running) {
      await run.close();
      running.splice(running.indexOf(run), 1);
    }

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
    });
    afterAll(async () => {
      for (const run of running) await run.close();
      for (const h of handles) await h.close();
      await database?.close();
    });

    it('attempts spread over two instances hit the limit at the same total; a restart keeps the count', async () => {
      const a = await instance();
      const b = await instance();
      const onA = await new Visitor(a).open();
      const onB = await new Visitor(b).open();
      const pair = SIGN_IN_LIMITS.perEmailAndAddress.capacity; // 10
      // Alternating instances, each attempt naming another client in a forged X-Forwarded-For (ignored).
      const statuses: number[] = [];
      for (let i = 0; i < pair; i++) {
        const visitor = i % 2 === 0 ? onA : onB;
        statuses.push(
          ...(await wrongAttempts(visitor, [{ email: DIRECTOR, forwardedFor: `198.51.100.${i + 1}` }])),
        );
      }
      expect(statuses).toEqual(Array<number>(pair).fill(200));
      // Each process alone has seen 5: the 11th is refused on either, even with the right password.
      for (const visitor of [onA, onB]) {
        const held = await visitor.login(DIRECTOR, 'demo', { forwardedFor: '203.0.113.50' });
        expect(held.status).toBe(429);
        expect(held.body).toContain(TOO_MANY);
      }

      // Restart: both instances go, a new one comes up on the same database.
      await stop(a);
      await stop(b);
      const c = await instance();
      const onC = await new Visitor(c).open();
      const after = await onC.login(DIRECTOR, 'demo', { forwardedFor: '203.0.113.51' });
      expect(after.status).toBe(429);
      expect(after.body).toContain(TOO_MANY);
      // Another real client address is not held: a wrong password is just wrong, the right one signs in.
      const other = await new Visitor(c, '127.0.0.2').open();
      const wrong = await other.login(DIRECTOR, 'nope');
      expect(wrong.status).toBe(200);
      expect(wrong.body).toContain(WRONG);
      await expectSignedIn(other, c, DIRECTOR);
      await stop(c);
    });

    it('the per-address limit (any email) is shared too, and a faked X-Forwarded-For does not reset it', async () => {
      const a = await instance();
      const b = await instance();
      const onA = await new Visitor(a, '127.0.0.5').open();
      const onB = await new Visitor(b, '127.0.0.5').open();
      const capacity = SIGN_IN_LIMITS.perAddress.capacity; // 50
      const started = Date.now();
      const attempts = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          email: `nobody-${from + i}@example.org`,
          forwardedFor: `192.0.2.${((from + i) % 250) + 1}`,
        }));
      const statuses = [
        ...(await wrongAttempts(onA, attempts(0, capacity / 2))),
        ...(await wrongAttempts(onB, attempts(capacity / 2, capacity / 2))),
      ];
      expect(statuses).toEqual(Array<number>(capacity).fill(200));
      // Refused on both (bar any the bucket refilled meanwhile: one per 18 s), whatever they forge.
      for (const visitor of [onA, onB])
        await attemptsUntilRefused(visitor, started, SIGN_IN_LIMITS.perAddress);
      await stop(a);
      await stop(b);
    });

    it('parallel attempts sent to both instances at once get exactly the limit between them', async () => {
      const a = await instance();
      const b = await instance();
      const onA = await new Visitor(a, '127.0.0.7').open();
      const onB = await new Visitor(b, '127.0.0.7').open();
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? onA : onB).login(ADMIN, `wrong-${i}`)),
      );
      const statuses = answers.map((x) => x.status).sort();
      const pair = SIGN_IN_LIMITS.perEmailAndAddress.capacity;
      expect(statuses).toEqual([...Array<number>(pair).fill(200), ...Array<number>(24 - pair).fill(429)]);
      await stop(a);
      await stop(b);
    });

    it('the limiter itself: parallel attempts on two pools never pass the limit; old rows are swept', async () => {
      const pools = [
        new pg.Pool({ connectionString: database.url, max: 10 }),
        new pg.Pool({ connectionString: database.url, max: 10 }),
      ];
      try {
        for (const p of pools) p.on('error', () => {});
        await pools[0].query('DELETE FROM sign_in_buckets'); // the earlier tests' rows
        const limiters = pools.map((p) => new SignInLimiter(drizzle(p) as unknown as Db));
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => limiters[i % 2].begin('parallel@example.org', '203.0.113.77')),
        );
        expect(results.filter((r) => r !== undefined)).toHaveLength(
          SIGN_IN_LIMITS.perEmailAndAddress.capacity,
        );
        // Nothing is full again yet (the database's clock): the sweep keeps them; a day on, they all go.
        expect(await limiters[0].sweep()).toBe(0);
        // One row per bucket: address, email and address, email, strikes.
        expect(await limiters[1].sweep(Date.now() + 86_400_000 + 60_000)).toBe(4);
        const left = await pools[0].query('SELECT count(*)::int AS n FROM sign_in_buckets');
        expect(left.rows[0].n).toBe(0);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it('while the database is down a sign-in is answered 503 with Retry-After, and works again after', async () => {
      const cluster = await startPrivatePostgres();
      let handle: Database | undefined;
      let run: Running | undefined;
      try {
        handle = await openDatabase({ databaseUrl: cluster.url(), poolSize: 5 });
        run = await startApp(handle);
        const visitor = await new Visitor(run, '127.0.0.9').open();
        expect((await visitor.login(DIRECTOR, 'wrong-before')).status).toBe(200);
        await cluster.stop();
        const down = await visitor.request(`/oidc/interaction/${visitor.uid}/login`, {
          form: { email: DIRECTOR, password: 'wrong-during' },
        });
        expect(down.status).toBe(503);
        expect(down.retryAfter).toBe('5');
        expect(JSON.parse(down.body)).toMatchObject({ error: 'database_unavailable' });
        await cluster.start();
        const again = await visitor.login(DIRECTOR, 'wrong-after');
        expect(again.status).toBe(200);
        expect(again.body).toContain(WRONG);
        // The attempt made while the database was away counted nothing: 2 of this address's 10 on that email spent.
        const pair = await handle.pool!.query('SELECT tokens FROM sign_in_buckets WHERE key LIKE $1', [
          `p:${DIRECTOR}%`,
        ]);
        expect(pair.rows.map((r: { tokens: number }) => Math.floor(r.tokens))).toEqual([8]);
      } finally {
        await run?.close();
        await handle?.close();
        await cluster.destroy();
      }
    });

    it('while the database cannot be reached the limiter fails as the database does (the app answers 503)', async () => {
      const port = await freePort();
      const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, max: 1 });
      pool.on('error', () => {});
      try {
        const limiter = new SignInLimiter(drizzle(pool) as unknown as Db);
        const err = await limiter.begin(DIRECTOR, '203.0.113.1').then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).not.toBeNull();
        expect(isDatabaseUnavailable(err)).toBe(true);
      } finally {
        await pool.end();
      }
    });
  },
);
