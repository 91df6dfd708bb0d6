import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../src/ingest/group-commit';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, positionsOf } from './ingest-fixtures';

/**
 * Issue 9, defect 3: a batch that fails must cost the other items in it O(log n) extra statements, not one each.
 * The write function stands in for the batch statement: it fails whenever a poison item is in the batch.
 */

class PoisonError extends Error {
  code = '22003'; // numeric_value_out_of_range, as PostgreSQL reports a value a column cannot hold
}

function harness(poison: (n: number) => boolean, opts: { key?: (n: number) => string } = {}) {
  const statements: number[][] = [];
  const errors: number[] = [];
  let release: (() => void) | null = null;
  const gate = new Promise<void>((r) => (release = r));
  let first = true;
  const c = new GroupCommitter<number, string>({
    key: opts.key,
    onBatchError: (_err, size) => errors.push(size),
    write: async (items) => {
      // Hold the first (single-item) batch open so everything else queues behind it and goes in one batch.
      if (first) {
        first = false;
        await gate;
      }
      statements.push(items);
      if (items.some(poison)) throw new PoisonError(`poison in ${items.length}`);
      return items.map((i) => `ok ${i}`);
    },
  });
  return { c, statements, errors, release: () => release!() };
}

async function settle(c: GroupCommitter<number, string>, items: number[]) {
  return Promise.allSettled(items.map((i) => c.submit(i)));
}

describe('group commit: a failing batch isolates its bad items by bisection', () => {
  it('one poison item in a batch of 256: the 255 others are stored, at most 1 + 2·log2(256) = 17 statements', async () => {
    const h = harness((n) => n === 137);
    const warm = h.c.submit(-1); // occupies the one connection
    await new Promise((r) => setImmediate(r));
    const items = Array.from({ length: 256 }, (_, i) => i);
    const pending = settle(h.c, items);
    h.release();
    await warm;
    const results = await pending;
    h.statements.shift(); // the warm-up batch

    expect(h.statements[0]).toHaveLength(256); // written together first
    expect(h.errors).toEqual([256]); // reported once, for the whole batch
    // Halves 128, 64 … 1: at most one failing and one good statement per level (a half after a good one is
    // known to hold the failure and split without a write), against 1 + 256 when retried one by one.
    expect(h.statements.length).toBeLessThanOrEqual(1 + 2 * Math.log2(256));
    results.forEach((r, i) => {
      if (i === 137) expect(r).toMatchObject({ status: 'rejected', reason: expect.any(PoisonError) });
      else expect(r).toEqual({ status: 'fulfilled', value: `ok ${i}` });
    });
    // Every good item was written exactly once in a successful statement.
    const written = h.statements.filter((s) => !s.includes(137)).flat();
    expect(written.sort((a, b) => a - b)).toEqual(items.filter((i) => i !== 137));
  });

  it('two poison items: both rejected alone, everything else stored; still far fewer statements than items', async () => {
    const h = harness((n) => n === 3 || n === 200);
    const warm = h.c.submit(-1);
    await new Promise((r) => setImmediate(r));
    const items = Array.from({ length: 256 }, (_, i) => i);
    const pending = settle(h.c, items);
    h.release();
    await warm;
    const results = await pending;
    h.statements.shift();
    const rejected = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    expect(rejected).toEqual([3, 200]);
    expect(h.statements.length).toBeLessThanOrEqual(1 + 2 * 2 * Math.log2(256));
  });

  it('after a bad item failed alone, later items with its key are written apart: no more bisections', async () => {
    // Items 1000+ come from one "device" that keeps sending bad values; the others are fine.
    const h = harness((n) => n >= 1000, { key: (n) => (n >= 1000 ? 'bad' : `dev${n}`) });
    const warm = h.c.submit(-1);
    await new Promise((r) => setImmediate(r));
    const first = settle(h.c, [...Array.from({ length: 63 }, (_, i) => i), 1000]);
    h.release();
    await warm;
    await first;
    h.statements.length = 0;
    h.errors.length = 0;

    const items = [...Array.from({ length: 63 }, (_, i) => 100 + i), 1001];
    const results = await settle(h.c, items);
    expect(h.statements).toEqual([items.slice(0, 63), [1001]]); // the good ones together, the suspect alone
    expect(h.errors).toEqual([]); // no batch failed
    expect(results.slice(0, 63).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(results[63].status).toBe('rejected');
  });

  it('an error that is not about the rows (connection lost) fails the batch at once, without splitting', async () => {
    let calls = 0;
    const c = new GroupCommitter<number, number>({
      write: async () => {
        calls++;
        throw new Error('Connection terminated unexpectedly');
      },
    });
    const results = await Promise.allSettled(Array.from({ length: 64 }, (_, i) => c.submit(i)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(calls).toBe(1); // one failed batch: no 64 (or 2·64) statements against a dead database
  });
});

describe.each(dbKinds)('a row the database refuses does not fail the fixes batched with it (%s)', (kind) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('a poison fix (here: a check constraint the database enforces) fails alone; the others in its batch are stored', async () => {
    // Validation refuses every value a column cannot hold, so the database has to be made to refuse one row.
    await t.app.db.execute(
      sql.raw('ALTER TABLE positions ADD CONSTRAINT test_poison CHECK (altitude IS DISTINCT FROM -4321)'),
    );
    const devs = await Promise.all(Array.from({ length: 20 }, () => addDevice(t.app)));
    const ts = Math.floor(Date.now() / 1000) - 600;
    const send = (key: string, alt: number, i: number) =>
      t.app.inject(`/api/ingest/osmand?id=${key}&lat=46.5&lon=7&timestamp=${ts + i}&altitude=${alt}`);
    const results = await Promise.all(
      devs.flatMap((d, k) => [0, 1, 2].map((i) => send(d.trackingKey, k === 7 && i === 1 ? -4321 : 1000, i))),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(59);
    expect(statuses[7 * 3 + 1]).toBeGreaterThanOrEqual(500);
    for (const [k, d] of devs.entries()) expect(await positionsOf(t.app, d.id)).toHaveLength(k === 7 ? 2 : 3);
    await t.app.db.execute(sql.raw('ALTER TABLE positions DROP CONSTRAINT test_poison'));
  });
});
