/**
 * The server as production runs it, for the benches: built (`scripts/build-server.mjs`, esbuild → plain
 * JavaScript) and started as its own process with `node apps/server/dist/server.js`, not through tsx in the bench's
 * process. And a no-op Fastify server, its own process too, as the baseline the ingest figures are divided by.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const BUILT_SERVER = path.join(ROOT, 'apps/server/dist/server.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `npm run build:server` (a fraction of a second): the bench measures the code in the checkout. */
export function buildServer(): void {
  const r = spawnSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`server build failed:\n${r.stdout}${r.stderr}`);
}

export interface ChildServer {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

async function started(child: ChildProcess, url: string, readyPath: string, out: () => string) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out().slice(-3000)}`);
    try {
      const res = await fetch(url + readyPath);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`server not ready within 60 s:\n${out().slice(-3000)}`);
}

function stopper(child: ChildProcess) {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(t);
  };
}

/**
 * Starts a built server (`entry`: a dist/server.js, by default this checkout's) on a free port with `env` over quiet
 * defaults; resolves once /api/ready answers 200. `nodeArgs` e.g. ['--cpu-prof', '--cpu-prof-dir', dir].
 */
export async function startBuiltServer(opts: {
  env: Record<string, string>;
  entry?: string;
  nodeArgs?: string[];
}): Promise<ChildServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', ...(opts.nodeArgs ?? []), opts.entry ?? BUILT_SERVER],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: url,
        DEMO: 'off',
        LOG_LEVEL: 'warn',
        MQTT_URL: '',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await started(child, url, '/api/ready', () => out);
  return { url, port, child, output: () => out, stop: stopper(child) };
}

/** A Fastify server with one route that answers 200 and nothing else, in its own process: the baseline. */
export async function startNoopServer(): Promise<ChildServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const code = `
    import Fastify from 'fastify';
    const app = Fastify({ logger: false });
    app.get('/noop', async (_req, reply) => reply.code(200).send());
    app.get('/api/ready', async () => ({ ok: true }));
    await app.listen({ port: ${port}, host: '127.0.0.1' });
    process.on('SIGTERM', () => app.close().then(() => process.exit(0)));`;
  let out = '';
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await started(child, url, '/api/ready', () => out);
  return { url, port, child, output: () => out, stop: stopper(child) };
}
