/**
 * A real server process for live-first-load.test.ts: `node --import tsx apps/server/test/support/held-load-server.ts`
 * with the usual environment (DATABASE_URL, or DATA_DIR for PGlite; OIDC_*). It is the real app (buildApp), except
 * that with HOLD_FIRST_COURSE_READ=1 the first query reading the `courses` table — the first load of a race's live
 * state reads it, ingestion never does — waits until a line `release` arrives on stdin. A test can so make position
 * events arrive while that load is pending, every time, without depending on timing.
 *
 * Prints JSON lines: {"port":N} once listening, {"held":true} when the course read is waiting, and
 * {"position":{"runnerId":…,"fixTime":…}} for every position event its bus delivers (after {"held":true}, those
 * arrived while the load was pending).
 */
import { createInterface } from 'node:readline';
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';

const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
const print = (o: unknown) => process.stdout.write(JSON.stringify(o) + '\n');

let hold = process.env.HOLD_FIRST_COURSE_READ === '1';
let release!: () => void;
const released = new Promise<void>((r) => (release = r));
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'release') release();
});

/** The statement text of a driver call: a string, or a query config object ({ text }). */
const textOf = (q: unknown): string =>
  typeof q === 'string' ? q : typeof q === 'object' && q && 'text' in q ? String(q.text) : '';

async function gate(q: unknown): Promise<void> {
  if (!hold || !/\bfrom "courses"/i.test(textOf(q))) return;
  hold = false;
  print({ held: true });
  await released;
}

// Both drivers' Drizzle sessions call `query` on the client they were given (PGlite, or the pg Pool).
const client = (database.pglite ?? database.pool) as unknown as { query: (...args: unknown[]) => unknown };
const query = client.query.bind(client);
client.query = async (...args: unknown[]) => {
  await gate(args[0]);
  return query(...args);
};

const app = await buildApp({ config, database, logger: false });
app.addHook('onClose', async () => database.close());
app.events.subscribe((e) => {
  if (e.type === 'position') print({ position: { runnerId: e.runnerId, fixTime: e.fixTime } });
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
print({ port: typeof address === 'object' && address ? address.port : 0 });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
