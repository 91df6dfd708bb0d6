import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { TEST_ADMIN_GROUP, TEST_AUDIENCE, TEST_SCOPE } from './support/issuer';
import { addDevice, addRace, addRunner, assign, collectEvents, waitFor } from './ingest-fixtures';
import type { LiveEvent } from '../src/events/bus';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

describe.runIf(process.env.TEST_DATABASE_URL)('two server processes on one PostgreSQL', () => {
  let t: TestContext;
  let child: ChildProcess;
  let childPort = 0;
  const childEvents: LiveEvent[] = [];

  beforeAll(async () => {
    t = await createTestApp('postgres');
    child = spawn(process.execPath, ['--import', 'tsx', 'test/ingest-child-server.ts'], {
      cwd: serverDir,
      env: {
        ...process.env,
        DATABASE_URL: t.database.url!,
        OIDC_ISSUER: t.issuer.url,
        OIDC_AUDIENCE: TEST_AUDIENCE,
        OIDC_CLIENT_ID: 'racebeacon-test-client',
        OIDC_API_SCOPE: TEST_SCOPE,
        ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
        DEMO: 'off',
        LOG_LEVEL: 'silent',
        MQTT_URL: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    childPort = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
      lines.on('line', (line) => {
        let msg: { port?: number; event?: LiveEvent };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return;
        }
        if (msg.port) resolve(msg.port);
        if (msg.event) childEvents.push(msg.event);
      });
    });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await t?.close();
  });

  it('a ping posted to one process is seen on the event stream of the other, once, in both directions', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app);
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 900_000));
    const here = collectEvents(t.app);
    const ts = Math.floor(Date.now() / 1000) - 60;

    // 1. real HTTP to the child process → this process's bus
    const res = await fetch(
      `http://127.0.0.1:${childPort}/api/ingest/osmand?id=${dev.trackingKey}&lat=46.5&lon=7.5&timestamp=${ts}`,
      { method: 'POST' },
    );
    expect(res.status).toBe(200);
    const seen = await waitFor(
      () => here.filter((e) => e.type === 'position' && e.deviceId === dev.id),
      (l) => l.length >= 1,
    );
    expect(seen[0]).toMatchObject({
      type: 'position',
      raceId,
      runnerId,
      lat: 46.5,
      lon: 7.5,
      fixTime: new Date(ts * 1000).toISOString(),
    });

    // 2. a ping to this process → the child's bus
    const res2 = await t.app.inject({
      method: 'GET',
      url: `/api/ingest/osmand?id=${dev.trackingKey}&lat=46.6&lon=7.6&timestamp=${ts + 30}`,
    });
    expect(res2.statusCode).toBe(200);
    await waitFor(
      () => childEvents.filter((e) => e.type === 'position' && e.deviceId === dev.id).length,
      (n) => n >= 2,
    );
    // Each process got each event exactly once (its own publishes are not echoed back).
    await new Promise((r) => setTimeout(r, 300));
    expect(
      childEvents
        .filter((e) => e.type === 'position' && e.deviceId === dev.id)
        .map((e) => (e as { lat: number }).lat),
    ).toEqual([46.5, 46.6]);
    expect(
      here
        .filter((e) => e.type === 'position' && e.deviceId === dev.id)
        .map((e) => (e as { lat: number }).lat),
    ).toEqual([46.5, 46.6]);
  });
});
