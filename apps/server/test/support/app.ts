import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createTestDatabase, type DbKind, type TestDatabase } from './databases';
import { startTestIssuer, TEST_ADMIN_GROUP, TEST_AUDIENCE, TEST_SCOPE, type TestIssuer } from './issuer';

export interface TestContext {
  app: FastifyInstance;
  database: TestDatabase;
  issuer: TestIssuer;
  config: Config;
  close(): Promise<void>;
}

/** The app on a fresh database, verifying tokens of a local test issuer (external-issuer mode). */
export async function createTestApp(kind: DbKind, env: Record<string, string> = {}): Promise<TestContext> {
  const issuer = await startTestIssuer();
  const config = loadConfig({
    OIDC_ISSUER: issuer.url,
    OIDC_AUDIENCE: TEST_AUDIENCE,
    OIDC_CLIENT_ID: 'racebeacon-test-client',
    OIDC_API_SCOPE: TEST_SCOPE,
    ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
    PUBLIC_URL: 'http://localhost:3000',
    DEMO: 'off',
    LOG_LEVEL: 'silent',
    // The alert sweep would load every running race into the live cache on its own schedule: tests run it
    // themselves (AlertSweepJob.runOnce), or turn it on with ALERT_SWEEP_SECONDS.
    ALERT_SWEEP_SECONDS: '0',
    // Likewise the Web Push notifier (PushNotifyJob.runOnce, or PUSH_NOTIFY_SECONDS).
    PUSH_NOTIFY_SECONDS: '0',
    ...env,
  });
  const database = await createTestDatabase(kind);
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  return {
    app,
    database,
    issuer,
    config,
    async close() {
      await app.close();
      await database.close();
      await issuer.close();
    },
  };
}
