// The image's steps without Docker (deploy/Dockerfile does the same), then a smoke test of the result:
//
//   1. build: `npm run build` (web app + server as plain JavaScript)
//   2. stage: scripts/stage-runtime.sh copies the runtime files into a temp dir (the image's /app)
//   3. prune: `npm ci --omit=dev … -w @racebeacon/server -w @racebeacon/domain` there, and check that no build or
//      test tool (eslint, vitest, playwright, typescript, tsx, vite, esbuild, …) was installed
//   4. start: `node --enable-source-maps apps/server/dist/server.js` from the copy, NODE_ENV=production, PGlite in a
//      temp DATA_DIR, on a free port
//   5. smoke: /api/health, /api/ready, /api/config, the web app (HTML and one of its scripts), the OIDC discovery
//      document, an OsmAnd ping for an unknown device (4xx JSON), the image's HEALTHCHECK command, the built GPX
//      worker thread
//   6. stop: SIGTERM with a live SSE viewer, an idle kept-alive connection and a request in flight (on a kept-alive
//      connection): the request is answered, the stream ends after its `retry:` hint, the process exits 0 within 10 s
//
//   node scripts/image-check.mjs [--reuse-web] [--keep]
//     --reuse-web  build only the server when apps/web/dist exists (the web build is the slow part)
//     --keep       leave the temp dir for inspection
//
// Ends with "image check passed" and exit code 0, or names the failed step and exits 1.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));

/** The commands the Dockerfile runs; checked against deploy/Dockerfile below so the two cannot drift apart. */
const BUILD = ['npm', 'run', 'build'];
const STAGE = ['sh', 'scripts/stage-runtime.sh'];
const PRUNE = [
  ...['npm', 'ci', '--omit=dev', '--no-audit', '--no-fund'],
  ...['-w', '@racebeacon/server', '-w', '@racebeacon/domain'],
];
const START = ['node', '--enable-source-maps', 'apps/server/dist/server.js'];
/** Packages that must not be in the runtime: build, lint and test tools. */
const DEV_ONLY = [
  'eslint',
  'vitest',
  'playwright',
  'playwright-core',
  'typescript',
  'tsx',
  'vite',
  'esbuild',
  'prettier',
  'drizzle-kit',
  'typescript-eslint',
  '@vitejs/plugin-react',
  'autocannon',
];
const STOP_LIMIT_MS = 10_000;

const figures = [];
let failed = false;
function ok(msg) {
  console.log(`  ok  ${msg}`);
}
function fail(msg) {
  failed = true;
  console.log(`  FAIL ${msg}`);
}
function check(cond, msg) {
  if (cond) ok(msg);
  else fail(msg);
  return cond;
}
async function timed(label, fn) {
  const t0 = performance.now();
  const result = await fn();
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  figures.push(`${label}: ${s} s`);
  console.log(`${label} (${s} s)`);
  return result;
}
function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${[cmd, ...argv].join(' ')} exited ${r.status ?? r.signal}`);
}

// --- 0. the Dockerfile runs these same steps ---
console.log('Dockerfile');
{
  const dockerfile = readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  check(
    dockerfile.includes(`RUN ${BUILD.join(' ')} && ${STAGE.join(' ')} /runtime`),
    'build and stage steps',
  );
  check(dockerfile.includes(`RUN ${PRUNE.join(' ')}`), `prune step: ${PRUNE.join(' ')}`);
  check(dockerfile.includes(`CMD ${JSON.stringify(START).replace(/,/g, ', ')}`), `start: ${START.join(' ')}`);
  check(
    /^USER node$/m.test(dockerfile) && /HEALTHCHECK .*deploy\/healthcheck\.mjs/.test(dockerfile),
    'user, health',
  );
}

// --- 1. build ---
const webBuilt = existsSync(path.join(root, 'apps/web/dist/index.html'));
if (args.has('--reuse-web') && webBuilt) {
  await timed('build: server only (web app reused)', () =>
    run('node', ['scripts/build-server.mjs'], { cwd: root }),
  );
} else {
  await timed(`build: ${BUILD.join(' ')}`, () => run(BUILD[0], BUILD.slice(1), { cwd: root }));
}

// --- 2. stage ---
const tmp = mkdtempSync(path.join(os.tmpdir(), 'racebeacon-image-'));
const app = path.join(tmp, 'app');
const dataDir = path.join(tmp, 'data');
let server;
function cleanUp() {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  if (args.has('--keep')) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
// Stopped from outside (a test's timeout, Ctrl-C): no server or temp dir left behind.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUp();
    process.exit(1);
  });
}
try {
  await timed('stage: scripts/stage-runtime.sh', () =>
    run(STAGE[0], [...STAGE.slice(1), app], { cwd: root }),
  );

  // --- 3. prune ---
  await timed(`prune: ${PRUNE.join(' ')}`, () =>
    run(PRUNE[0], PRUNE.slice(1), { cwd: app, env: { ...process.env, NODE_ENV: 'production' } }),
  );
  const runtimePackages = packagesUnder(app);
  const present = DEV_ONLY.filter((name) => runtimePackages.has(name));
  check(present.length === 0, `no build or test tools in the runtime${present.length ? `: ${present}` : ''}`);
  const fullModules = [
    'node_modules',
    'apps/server/node_modules',
    'apps/web/node_modules',
    'packages/domain/node_modules',
  ]
    .map((d) => path.join(root, d))
    .filter(existsSync);
  const runtimeMb = megabytes([path.join(app, 'node_modules')]);
  const fullMb = megabytes(fullModules);
  figures.push(
    `node_modules: runtime ${runtimeMb} MB (${runtimePackages.size} packages) vs checkout ${fullMb} MB` +
      ` (${packagesUnder(root).size} packages)`,
  );

  // --- 4. start ---
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = path.join(tmp, 'server.log');
  const log = openSync(logFile, 'a');
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    // A public race to watch live during the stop; no one-click accounts.
    DEMO: 'on',
    DEMO_ACCOUNTS: 'off',
    LOG_LEVEL: 'info',
  };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS; // vitest's loaders must not help the built server
  const startedAt = performance.now();
  server = spawn(START[0], START.slice(1), { cwd: app, env, stdio: ['ignore', log, log] });
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await waitForReady(base, exited, 90_000);
  if (!ready) throw new Error(`the server did not become ready:\n${tail(logFile)}`);
  figures.push(
    `start to ready (fresh PGlite, migrations, demo race): ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );

  // --- 5. smoke ---
  console.log(`smoke test on ${base}`);
  const health = await get(`${base}/api/health`);
  check(health.status === 200 && health.json?.status === 'ok', `GET /api/health → ${health.status}`);
  const readyRes = await get(`${base}/api/ready`);
  check(readyRes.status === 200 && readyRes.json?.status === 'ready', `GET /api/ready → ${readyRes.status}`);
  const config = await get(`${base}/api/config`);
  check(config.status === 200 && config.json !== undefined, `GET /api/config → ${config.status}`);
  const page = await get(`${base}/`);
  const script = /<script[^>]+src="([^"]+\.js)"/.exec(page.text)?.[1];
  check(
    page.status === 200 && page.type.startsWith('text/html') && !!script,
    `GET / → ${page.status} ${page.type} (the web app's index.html)`,
  );
  if (script) {
    const js = await get(new URL(script, base).href);
    check(js.status === 200 && /javascript/.test(js.type), `GET ${script} → ${js.status} ${js.type}`);
  }
  const spa = await get(`${base}/races/1`);
  check(
    spa.status === 200 && spa.type.startsWith('text/html'),
    `GET /races/1 (client-side route) → ${spa.status}`,
  );
  const discovery = await get(`${base}/oidc/.well-known/openid-configuration`);
  check(discovery.status === 200 && !!discovery.json?.issuer, `OIDC discovery → ${discovery.status}`);
  const ping = await get(`${base}/api/ingest/osmand?id=image-check-unknown&lat=45.9&lon=6.9`, {
    method: 'POST',
  });
  check(
    ping.status >= 400 && ping.status < 500 && typeof ping.json?.error === 'string',
    `OsmAnd ping, unknown id → ${ping.status} ${JSON.stringify(ping.json)}`,
  );
  const hc = spawnSync('node', ['deploy/healthcheck.mjs'], { cwd: app, env: { ...env, HOST: '0.0.0.0' } });
  check(hc.status === 0, `HEALTHCHECK node deploy/healthcheck.mjs → exit ${hc.status}`);
  const races = await get(`${base}/api/open/races`);
  const raceId = Array.isArray(races.json) ? races.json[0]?.RaceId : undefined;
  check(typeof raceId === 'number', `GET /api/open/races → ${races.status}, demo race ${raceId}`);
  check(gpxWorkerAnswers(app), 'built GPX worker thread parses a course in the pruned runtime');

  // --- 6. graceful stop ---
  console.log('SIGTERM with a live viewer, an idle kept-alive connection and a request in flight');
  const viewer =
    typeof raceId === 'number' ? await openStream(`${base}/api/open/races/${raceId}/live`) : null;
  check(!!viewer && /^retry: \d+$/m.test(viewer.received()), 'live stream open, retry hint received');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idle = await idleKeptAlive(`${base}/api/health`, agent);
  // On a kept-alive connection too: once answered it goes idle, and must not hold the stop up until its timeout.
  const inFlightAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const inFlight = slowRequest(
    `${base}/api/ingest/osmand`,
    'id=image-check-unknown&lat=45.9&lon=6.9',
    inFlightAgent,
  );
  await inFlight.headersSent;
  await sleep(200);

  const stopAt = performance.now();
  server.kill('SIGTERM');
  await sleep(300);
  inFlight.finish();
  const answer = await inFlight.response;
  check(
    answer.status >= 400 && answer.status < 500 && answer.body.includes('"error"'),
    `request in flight at SIGTERM answered: ${answer.status} ${answer.body}`,
  );
  const exit = await Promise.race([exited, sleep(STOP_LIMIT_MS + 2000).then(() => null)]);
  const stopMs = Math.round(performance.now() - stopAt);
  figures.push(`SIGTERM to exit: ${stopMs} ms`);
  check(
    exit !== null && exit.code === 0,
    `exit code ${exit ? (exit.code ?? exit.signal) : 'none (still running)'}`,
  );
  check(stopMs < STOP_LIMIT_MS, `stopped in ${stopMs} ms (limit ${STOP_LIMIT_MS} ms)`);
  if (viewer) check(await viewer.ended, 'live stream ended by the server (the viewer reconnects elsewhere)');
  check(
    await Promise.race([idle.closed, sleep(1000).then(() => false)]),
    'idle kept-alive connection closed',
  );
  agent.destroy();
  inFlightAgent.destroy();
  const logText = readFileSync(logFile, 'utf8');
  check(/"msg":"stopped"/.test(logText), 'log: "stopped" after the plugins closed');
  if (failed) console.log(`server log (tail):\n${tail(logFile)}`);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
} finally {
  cleanUp();
}

console.log(`\n${figures.map((f) => `  ${f}`).join('\n')}`);
if (failed) {
  console.log('image check FAILED');
  process.exit(1);
}
console.log('image check passed');

// --- helpers ---

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tail(file, lines = 40) {
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Names of the packages installed anywhere under dir's node_modules folders (nested ones included). */
function packagesUnder(dir) {
  const names = new Set();
  const visitModules = (modules) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const p = path.join(modules, entry.name);
      if (entry.name.startsWith('@') && entry.isDirectory()) {
        for (const scoped of readdirSync(p, { withFileTypes: true }))
          visitPackage(path.join(p, scoped.name), `${entry.name}/${scoped.name}`);
      } else visitPackage(p, entry.name);
    }
  };
  const visitPackage = (p, name) => {
    if (!existsSync(path.join(p, 'package.json'))) return;
    names.add(name);
    if (!lstatSync(p).isSymbolicLink()) visitModules(path.join(p, 'node_modules'));
  };
  visitModules(path.join(dir, 'node_modules'));
  for (const ws of ['apps', 'packages']) {
    const wsDir = path.join(dir, ws);
    if (!existsSync(wsDir)) continue;
    for (const entry of readdirSync(wsDir)) visitModules(path.join(wsDir, entry, 'node_modules'));
  }
  return names;
}

function megabytes(dirs) {
  const r = spawnSync('du', ['-sk', '-c', ...dirs], { encoding: 'utf8' });
  const total = /^(\d+)\s+total$/m.exec(r.stdout)?.[1];
  return total ? Math.round(Number(total) / 1024) : NaN;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForReady(base, exited, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    try {
      const res = await fetch(`${base}/api/ready`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return true;
    } catch {
      /* not listening yet */
    }
    await sleep(250);
  }
  return false;
}

async function get(url, init = {}) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
}

/** Starts the built GPX worker the way the server does (bytes transferred in workerData) on a tiny course. */
function gpxWorkerAnswers(appDir) {
  const worker = findFile(path.join(appDir, 'apps/server/dist'), 'gpx-worker.js');
  if (!worker) return false;
  const gpx =
    '<?xml version="1.0"?><gpx version="1.1" creator="image-check" xmlns="http://www.topografix.com/GPX/1/1">' +
    '<trk><name>Check</name><trkseg>' +
    Array.from(
      { length: 50 },
      (_, i) => `<trkpt lat="${45.9 + i * 0.001}" lon="6.9"><ele>${1000 + i}</ele></trkpt>`,
    ).join('') +
    '</trkseg></trk></gpx>';
  const code = `
    import { Worker } from 'node:worker_threads';
    const bytes = new TextEncoder().encode(${JSON.stringify(gpx)});
    const w = new Worker(new URL(${JSON.stringify(pathToFileURL(worker).href)}), { workerData: { bytes }, transferList: [bytes.buffer] });
    w.once('message', (m) => { console.log(JSON.stringify({ ok: m.ok, points: m.ok ? m.result.stats.pointCount : null })); });
    w.once('error', (e) => { console.error(e); process.exit(1); });`;
  // A file, not --eval: a worker inherits the parent's flags, and --input-type would stop it loading a file.
  const script = path.join(appDir, '..', 'gpx-worker-check.mjs');
  writeFileSync(script, code);
  const r = spawnSync('node', [script], { cwd: appDir, encoding: 'utf8', timeout: 30_000 });
  const out = r.stdout.trim();
  if (r.status !== 0 || !/"ok":true/.test(out)) {
    console.log(`  gpx worker: exit ${r.status} ${out} ${r.stderr}`);
    return false;
  }
  return true;
}

function findFile(dir, name) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(p, name);
      if (found) return found;
    } else if (entry.name === name) return p;
  }
  return null;
}

/** An SSE stream: resolves once the first bytes arrived; `ended` resolves true when the server ends it. */
function openStream(url) {
  return new Promise((resolve, reject) => {
    let data = '';
    const req = http.get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`live stream: ${res.statusCode}`));
      }
      res.setEncoding('utf8');
      const ended = new Promise((resolveEnd) => {
        res.once('end', () => resolveEnd(true));
        res.once('error', () => resolveEnd(false));
        res.once('close', () => resolveEnd(res.complete));
      });
      res.on('data', (chunk) => {
        const first = data === '';
        data += chunk;
        if (first) resolve({ received: () => data, ended });
      });
    });
    req.once('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('live stream: no data')));
  });
}

/** Makes one request on a kept-alive connection and leaves it idle; `closed` resolves when the server closes it. */
function idleKeptAlive(url, agent) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.once('end', () => {
          // The socket goes back to the agent's pool, idle: watch for the server closing it.
          setImmediate(() => {
            const free = Object.values(agent.freeSockets).flat();
            if (!free.length) return reject(new Error('no kept-alive socket'));
            resolve({
              closed: new Promise((resolveClosed) => free[0].once('close', () => resolveClosed(true))),
            });
          });
        });
      })
      .once('error', reject);
  });
}

/** A form POST whose body is sent in two halves: in flight until finish() sends the rest. */
function slowRequest(url, body, agent) {
  const req = http.request(url, {
    method: 'POST',
    agent,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(body),
    },
  });
  const response = new Promise((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
  });
  const headersSent = new Promise((resolve) => req.write(body.slice(0, 5), () => resolve()));
  return { headersSent, response, finish: () => req.end(body.slice(5)) };
}
