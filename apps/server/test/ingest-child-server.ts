/**
 * A second, real server process for the multi-process test: `node --import tsx test/ingest-child-server.ts`
 * with DATABASE_URL (and the test issuer's OIDC_* variables) in the environment. It prints one JSON line
 * {"port":N} once listening, then {"event":…} for every event its bus delivers.
 */
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';

const app = await buildApp({
  config: loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }),
  logger: false,
});
app.events.subscribe((event) => process.stdout.write(JSON.stringify({ event }) + '\n'));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n',
);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
