import { freePort } from '../../apps/server/test/support/free-port';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../apps/server/src/app';
import { loadConfig } from '../../apps/server/src/config';
import { openDatabase } from '../../apps/server/src/db/client';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/**
 * The real server, in-process, listening on a free loopback port with a fresh in-memory database, the embedded
 * identity provider and the built web app (run `npm run build` first; `npm test` does).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DEMO: 'off',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const database = await openDatabase({});
  const app = await buildApp({ config, database, logger: { level: 'warn' } });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    url,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
