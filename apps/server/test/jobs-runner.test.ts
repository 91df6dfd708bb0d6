import { afterAll, describe, expect, it } from 'vitest';
import { jobLockFor } from '../src/jobs/lock';
import { JobRunner, type Job } from '../src/jobs/runner';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { waitFor } from './ingest-fixtures';

/**
 * The job runner: a job runs in exactly one process of a cluster (the holder of its PostgreSQL advisory lock), the
 * others take it over when that process stops; on PGlite the one process always runs it.
 */

const silent = { info: () => {}, warn: () => {} };

/** A job that counts its runs, every 20 ms. */
function countingJob(name: string): Job & { runs: number } {
  return {
    name,
    everyMs: 20,
    runs: 0,
    async runOnce() {
      this.runs++;
    },
  };
}

const runnerOn = (database: TestDatabase) =>
  new JobRunner({ lock: jobLockFor(database, silent), log: silent, retryMs: 50 });

describe('job runner on PGlite', () => {
  it('runs its jobs in the one process, and each can be run directly', async () => {
    const database = await createTestDatabase('pglite');
    const runner = runnerOn(database);
    const job = countingJob('count');
    try {
      await job.runOnce();
      expect(job.runs).toBe(1);
      runner.add(job);
      runner.start();
      await waitFor(
        () => job.runs,
        (n) => n >= 4,
      );
      expect(runner.holds('count')).toBe(true);
    } finally {
      await runner.stop();
      await database.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('job runners sharing one PostgreSQL', () => {
  let database: TestDatabase;
  afterAll(async () => database?.close());

  it('runs a job in exactly one of them; stopping that one lets another take over', async () => {
    database = await createTestDatabase('postgres');
    const runners = [runnerOn(database), runnerOn(database), runnerOn(database)];
    const jobs = runners.map(() => countingJob('shared'));
    runners.forEach((r, i) => {
      r.add(jobs[i]);
      r.start();
    });
    try {
      // Several retry periods: long enough for every runner to have tried the lock a few times.
      await waitFor(
        () => jobs.reduce((n, j) => n + j.runs, 0),
        (n) => n >= 10,
      );
      await new Promise((r) => setTimeout(r, 200));
      const running = jobs.map((j) => j.runs > 0);
      expect(running.filter(Boolean)).toHaveLength(1);
      const leader = running.indexOf(true);
      expect(runners.map((r) => r.holds('shared'))).toEqual(runners.map((_, i) => i === leader));

      // The leader stops (its session ends, releasing the lock): one of the others takes the job over.
      await runners[leader].stop();
      const before = jobs.map((j) => j.runs);
      const successor = await waitFor(
        () => jobs.findIndex((j, i) => i !== leader && j.runs > before[i]),
        (i) => i >= 0,
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(jobs[leader].runs).toBe(before[leader]);
      const others = jobs.filter((_, i) => i !== leader && i !== successor);
      expect(others.map((j) => j.runs)).toEqual([0]);
      expect(runners[successor].holds('shared')).toBe(true);
    } finally {
      for (const r of runners) await r.stop();
    }
  });
});
