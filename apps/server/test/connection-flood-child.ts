/**
 * A real server process for the connection flood test (connection-flood.test.ts), started under a low
 * `ulimit -n`: `node --import tsx test/connection-flood-child.ts` with the caps in the environment (in-memory PGlite). It seeds one live race with one tracker, listens on 127.0.0.1, and prints one JSON line
 * {"port", "raceId", "runner"} once listening.
 */
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';
import { seedLiveRace } from './support/live-seed';

// In-memory PGlite, as the in-process tests use (a data directory's writes make the boot several times slower).
const database = await openDatabase({});
const app = await buildApp({
  config: loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DEMO: 'off', LOG_LEVEL: 'silent' }),
  database,
  logger: false,
});
app.addHook('onClose', async () => database.close());
const race = await seedLiveRace(app.db, { runners: 1, clockStartMs: Date.now() - 30 * 60_000 });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  JSON.stringify({
    port: typeof address === 'object' && address ? address.port : 0,
    raceId: race.raceId,
    runner: race.runners[0],
  }) + '\n',
);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
