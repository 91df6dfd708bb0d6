/**
 * Bytes on the wire (`npm run bench -- wire`), issue 15's budgets for a 2,500-runner race, measured through the
 * real server (buildApp on an in-memory PGlite, listening on a local port, the built web app):
 *
 * 1. The first live view: the race page (index.html), its first-screen JS and CSS, the race screen's and live view's
 *    lazy chunks (live panel, map, Leaflet), the race, the course-track, and the live data — both the REST reads
 *    the issue names (leaderboard, positions) and the SSE snapshot the web app actually opens. Budget: 350 KB.
 * 2. One 2.5-minute update cycle per viewer over the live stream: every runner's tracker pings once (real OsmAnd
 *    HTTP pings spread over the cycle), the bytes one SSE viewer receives in one cycle's time, after a first cycle
 *    not measured (the trackers at their steady interval). Budget: 15 KB. Also what deflating the compact deltas in
 *    one context costs the server (CPU per message, once per race).
 *
 * Each file and answer is printed beside the same request without Accept-Encoding (what it cost before
 * compression); the live data of the first view and the update cycle beside the first stream (before: the whole
 * rows of issue 14's stream, gzip) measured in the same run against the compact stream (`?v=4`, after, what the
 * web app reads), with what the compact messages are made of (each part deflated on its own). WIRE_CYCLE_S shortens
 * the cycle (default 150 s of real time; a shorter one has fewer, larger messages); WIRE_DUMP=<file> keeps the
 * compact stream's text; WIRE_COURSE=winding runs it on a realistic course (winding-course.ts) instead of the
 * straight one. Needs the web app built (`npm run build -w @racebeacon/web`).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import {
  COMPACT_STREAM_VERSION,
  compactDeltaRows,
  decodeCompactSnapshot,
  expandCompactDelta,
  expandCompactSnapshot,
  gaussian,
  seededRandom,
  type LiveCompactDelta,
  type LiveCompactSnapshot,
} from '@racebeacon/domain';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/client';
import { positions } from '../apps/server/src/db/schema';
import { chainedPiece, DeflateChain, deflatedPiece } from '../apps/server/src/live/sse-compression';
import { webDist } from '../apps/server/src/platform/web-app';
import { osmandUrl, pointAlong, seedLiveRace, type SeededRace } from '../apps/server/test/support/live-seed';
import { deflated, sseMessages } from './sse-text';
import { windingCourse, windingRunner } from './winding-course';

const RUNNERS = 2500;
const COURSE_M = 50_000;
const INTERVAL_MS = 150_000;
const RACE_ELAPSED_MS = 2 * 3600_000;
const CYCLE_MS = Number(process.env.WIRE_CYCLE_S ?? 150) * 1000;
const FIRST_VIEW_BUDGET = 350 * 1024;
const CYCLE_BUDGET = 15 * 1024;
/**
 * The compact stream's cycle measured by this bench (steady cycle) on the codec before its predictions, fixes placed
 * on the course, packed columns and deflate context (commit 9385162), for the printout's before/after.
 */
const COMPACT_CYCLE_BEFORE = 31.8 * 1024;
/**
 * This bench's figures on both courses with the `?v=3` codec (commit 3e3ba35, one run each, load 3–5): first view /
 * cycle per viewer. Straight 333.5 KB / 12.1 KB; winding 460.7 KB (compact snapshot 238.6 KB, its trails 173 KB) /
 * 30.7 KB (patches 22.7 KB, fixes 5.1 KB, ranks off 1.4 KB, each deflated alone). With `?v=4` (commit 309215a, one
 * run each): straight 290.2 KB / 9.0 KB; winding 336.3 KB (compact snapshot 113.1 KB) / 17.6 KB. With `?v=5`, the
 * columns range-coded (commit 4481965 and the snapshot's after it, one run each): straight 278.8 KB (compact snapshot
 * 65.4 KB) / 7.0 KB; winding 320.0 KB (compact snapshot 95.9 KB) / 14.0 KB, and 320.3 KB / 14.3 KB after the ETA
 * trend's shrinkage (commit 2850c94), 320.1 KB / 14.3 KB with its horizon.
 */
const MEASURED = {
  straight: { firstView: 333.5 * 1024, cycle: 12.1 * 1024 },
  winding: { firstView: 460.7 * 1024, cycle: 30.7 * 1024 },
};
/** What Chromium sends. */
const BROWSER_ENCODING = 'gzip, deflate, br, zstd';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/**
 * WIRE_COURSE=winding: the same measurement on a realistic course (winding-course.ts: ~50 km of curves and
 * switchbacks, ~1,700 points, pace following the gradient with per-runner noise and aid-station stops, 5–15 m of GPS
 * noise). Default straight: the seeded straight course and steady paces, where the codec's predictions are nearly
 * exact (the figures below and in docs/decisions/live-race-fan-out.md were measured on it).
 */
const WINDING = process.env.WIRE_COURSE === 'winding';
const winding = WINDING ? windingCourse(COURSE_M) : null;

interface RunnerModel {
  phase: number;
  fixAt(startMs: number, t: number): { t: number; lat: number; lon: number; batteryPercent: number };
}

/** A runner's pace and phase, and its fix at a time (GPS noise, 6 decimals like a phone). */
function runnerModel(k: number): RunnerModel {
  if (winding) {
    const r = windingRunner(winding, k, INTERVAL_MS);
    return {
      phase: r.phase,
      fixAt(startMs: number, t: number) {
        const p = r.positionAt((t - startMs) / 1000);
        return {
          t: Math.round(t / 1000) * 1000,
          lat: Number(p.lat.toFixed(6)),
          lon: Number(p.lon.toFixed(6)),
          batteryPercent: 80,
        };
      },
    };
  }
  // Straight: a steady pace, GPS noise of a few metres.
  const random = seededRandom(1000 + k);
  const speed = 1.8 + random() * 1.6; // 1.8–3.4 m/s: 4:55 to 9:15 min/km
  const phase = random() * INTERVAL_MS;
  return {
    phase,
    fixAt(startMs: number, t: number) {
      const d = Math.min(COURSE_M, (speed * (t - startMs)) / 1000);
      const p = pointAlong(d + gaussian(random) * 4, gaussian(random) * 4);
      // Trackers give fix times to the whole second.
      return {
        t: Math.round(t / 1000) * 1000,
        lat: Number(p.lat.toFixed(6)),
        lon: Number(p.lon.toFixed(6)),
        batteryPercent: 80,
      };
    },
  };
}

async function storeHistory(app: Awaited<ReturnType<typeof buildApp>>, race: SeededRace, until: number) {
  const rows: (typeof positions.$inferInsert)[] = [];
  for (const [k, r] of race.runners.entries()) {
    const m = runnerModel(k);
    for (let t = race.clockStartMs + m.phase; t <= until; t += INTERVAL_MS) {
      const f = m.fixAt(race.clockStartMs, t);
      rows.push({
        deviceId: r.deviceId,
        raceId: race.raceId,
        runnerId: r.runnerId,
        fixTime: new Date(f.t),
        lat: f.lat,
        lon: f.lon,
        batteryPercent: f.batteryPercent,
        source: 'osmand',
      });
    }
  }
  for (let i = 0; i < rows.length; i += 2000) await app.db.insert(positions).values(rows.slice(i, i + 2000));
  return rows.length;
}

/** GET over real HTTP: bytes of the body as sent (not decoded). */
function wireGet(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; bytes: number; body: Buffer; encoding?: string }>(
    (resolve, reject) => {
      http
        .get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({
              status: res.statusCode!,
              bytes: body.length,
              body,
              encoding: res.headers['content-encoding'],
            });
          });
        })
        .on('error', reject);
    },
  );
}

/** An SSE viewer counting the bytes it receives; `snapshotBytes` once the first snapshot has arrived. */
function sseViewer(url: string, acceptEncoding?: string, snapshotEvent = 'snapshot') {
  return new Promise<{ bytes: () => number; snapshotBytes: number; text: () => string; close(): void }>(
    (resolve, reject) => {
      const req = http.get(
        url,
        {
          headers: {
            accept: 'text/event-stream',
            ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
          },
        },
        (res) => {
          let bytes = 0;
          let text = '';
          let done = false;
          const plain = !res.headers['content-encoding'];
          const decoded = plain ? res : res.pipe(createGunzip());
          res.on('data', (c: Buffer) => (bytes += c.length));
          decoded.on('data', (c: Buffer) => {
            text += c.toString();
            if (done) return;
            const i = text.indexOf(`event: ${snapshotEvent}\n`);
            if (i >= 0 && text.indexOf('\n\n', i) >= 0) {
              done = true;
              resolve({
                bytes: () => bytes,
                snapshotBytes: bytes,
                text: () => text,
                close: () => req.destroy(),
              });
            }
          });
        },
      );
      req.on('error', (err) => {
        if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
      });
    },
  );
}

/** What the compact snapshot is made of: each column and the trails, deflated on their own. */
function describeCompactSnapshot(text: string) {
  const [sent] = sseMessages(text, 'snap') as LiveCompactSnapshot[];
  if (!sent) return;
  console.log(
    `  range-coded columns (Z: the trails' and every integer column) ${kb((sent.Z ?? '').length * 0.75)} ` +
      `(${kb((sent.Z ?? '').length)} of base64 text, which deflate takes back to about its bytes); ` +
      'the parts below are the columns expanded (packed as before range coding), each deflated alone',
  );
  const snap = expandCompactSnapshot(sent);
  const parts: [string, number][] = Object.entries(snap.Cols).map(([k, v]) => [
    k,
    deflated(JSON.stringify(v)),
  ]);
  parts.push(['Trails', deflated(JSON.stringify(snap.Trails))]);
  // Trails against the course: counts, times, distances, offsets across, second offsets, milliseconds, newest Δlon.
  const ct = ['counts', 'times', 'distances', 'offsets', 'second offsets', 'newest ms', 'newest Δlon'];
  (snap.CT ?? []).forEach((c, i) => parts.push([`trail ${ct[i] ?? i}`, deflated(JSON.stringify(c))]));
  if (snap.CT) parts.push(['trails (CT) in all', deflated(JSON.stringify(snap.CT))]);
  if (snap.Line) parts.push(['Line', deflated(JSON.stringify(snap.Line))]);
  if (snap.LC) parts.push(['leader curve', deflated(JSON.stringify(snap.LC))]);
  parts.sort((a, b) => b[1] - a[1]);
  const points = decodeCompactSnapshot(snap).Trails.reduce((n, t) => n + t.Trail.length, 0);
  console.log(
    `  compact snapshot parts (each deflated alone): ${parts
      .slice(0, 16)
      .map(([k, n]) => `${k} ${kb(n)}`)
      .join(', ')}; ${points} trail points`,
  );
  // What reading Z costs the viewer, against the same snapshot with its columns packed as before (same run).
  const median = (f: () => void) => {
    const times: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t0 = performance.now();
      f();
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[4];
  };
  const coded = median(() => decodeCompactSnapshot(sent));
  const packed = median(() => decodeCompactSnapshot(snap));
  console.log(
    `  decoding the snapshot (what a viewer does once): ${coded.toFixed(1)} ms range-coded against ` +
      `${packed.toFixed(1)} ms with the columns packed as before (${(coded / packed).toFixed(2)}×; median of 9, this machine)`,
  );
}

/** What the compact deltas of a cycle are made of (each part deflated on its own, so only roughly). */
function describeCompactDeltas(text: string) {
  const sent = sseMessages(text, 'delta') as LiveCompactDelta[];
  const coded = sent.reduce((n, d) => n + (d.Z?.length ?? 0), 0);
  console.log(
    `  range-coded columns (Z) ${kb(coded * 0.75)} (${kb(coded)} of base64 text) of the ${sent.length} messages' ` +
      `${kb(sent.reduce((n, d) => n + JSON.stringify(d).length, 0))} before deflate; the parts below are the columns ` +
      'expanded (packed as before range coding), each deflated alone',
  );
  // The parts as they were before the columns were range-coded together.
  const deltas = sent.map(expandCompactDelta);
  const rows = deltas.map((d) => compactDeltaRows(d));
  const part = (f: (d: LiveCompactDelta) => unknown) =>
    deflated(deltas.map((d) => (f(d) === undefined ? '' : JSON.stringify(f(d)))).join(''));
  const patches = rows.reduce((n, r) => n + r.P.length, 0);
  // Fixes: per patched row its count (< 0: placed on the course), then the other runners' [id, count, 3 per fix].
  let fixes = 0;
  for (const r of rows) {
    let i = 0;
    for (let k = 0; k < r.P.length && i < r.F.length; k++) {
      const n = Math.abs(r.F[i]);
      fixes += n;
      i += 1 + 3 * n;
    }
    for (; i + 1 < r.F.length; i += 2 + 3 * r.F[i + 1]) fixes += r.F[i + 1];
  }
  console.log(
    `  compact deltas: ${deltas.length} messages, ${patches} row patches, ${fixes} fixes; deflated alone: ` +
      `patches ${kb(part((d) => d.P))} (RunnerIds ${kb(part((d) => d.P[0]))}, told by who is due ${kb(part((d) => d.PI))}, masks ${kb(part((d) => d.P[1]))}), ` +
      `fixes ${kb(part((d) => d.F))}, ranks off ${kb(part((d) => [d.J, d.K]))}, the rest ` +
      `${kb(part((d) => ({ ...d, P: undefined, F: undefined, J: undefined, K: undefined })))}`,
  );
  const bits = new Map<number, number>();
  for (const r of rows)
    for (const p of r.P)
      for (let i = 0; i < 40; i++)
        if (Math.floor((p[1] as number) / 2 ** i) % 2) bits.set(i, (bits.get(i) ?? 0) + 1);
  console.log(`  patched field bits (bit: count): ${[...bits].map(([b, n]) => `${b}:${n}`).join(' ')}`);
  const columns = new Map<number, number>();
  deltas.forEach((d, q) => {
    const used = [
      ...new Set(
        rows[q].P.flatMap((p) =>
          [...Array(40).keys()].filter((i) => i !== 6 && Math.floor((p[1] as number) / 2 ** i) % 2),
        ),
      ),
    ].sort((a, b) => a - b);
    used.forEach((b, k) => columns.set(b, (columns.get(b) ?? 0) + deflated(JSON.stringify(d.P[2 + k]))));
  });
  console.log(
    `  patch columns deflated alone (bit: KB): ${[...columns].map(([b, n]) => `${b}:${(n / 1024).toFixed(1)}`).join(' ')}`,
  );
}

/**
 * What deflating the deltas in one context (DeflateChain, sse-compression.ts) costs the server against each alone:
 * CPU per message (once per race, whatever the number of viewers) and the bytes; its memory is one 32 KB window per
 * race and a few numbers per viewer, no compressor.
 */
function describeChainCost(text: string) {
  const messages = text
    .split('\n\n')
    .filter((b) => b.includes('event: delta\n'))
    .map((b) => Buffer.from(`${b}\n\n`));
  if (!messages.length) return;
  const rounds = 20;
  let t = process.hrtime.bigint();
  let alone = 0;
  for (let r = 0; r < rounds; r++) for (const m of messages) alone += deflatedPiece(Buffer.from(m)).length;
  const aloneMs = Number(process.hrtime.bigint() - t) / 1e6 / rounds / messages.length;
  t = process.hrtime.bigint();
  let chained = 0;
  for (let r = 0; r < rounds; r++) {
    const chain = new DeflateChain();
    for (const m of messages) {
      const copy = Buffer.from(m);
      chain.add(copy);
      chained += chainedPiece(copy)!.length;
    }
  }
  const chainMs = Number(process.hrtime.bigint() - t) / 1e6 / rounds / messages.length;
  console.log(
    `  deltas deflated in one context (DeflateChain, a join point every 8): ${kb(chained / rounds)} against ` +
      `${kb(alone / rounds)} each alone; CPU ${chainMs.toFixed(2)} ms per message (alone ${aloneMs.toFixed(2)} ms), ` +
      `once per race; memory a 32 KB window per race`,
  );
}

/** The first-screen files of the built app and the live view's lazy chunks (with what they import statically). */
function webFiles(indexHtml: string): { firstScreen: string[]; liveChunks: string[] } {
  const firstScreen = [...indexHtml.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const assets = readdirSync(path.join(webDist, 'assets')).filter((f) => /\.(js|css)$/.test(f));
  // The race screen (a lazy route), the live panel, its map and Leaflet, with what they import.
  const lazyRoots = assets.filter((f) => /^(race-detail|live|live-map|leaflet)-[\w-]{8}\.(js|css)$/.test(f));
  const seen = new Set<string>(firstScreen.map((f) => f.replace('/assets/', '')));
  const live: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    live.push(`/assets/${file}`);
    if (!file.endsWith('.js')) return;
    const code = readFileSync(path.join(webDist, 'assets', file), 'utf8');
    for (const m of code.matchAll(/from\s*"\.\/([\w.-]+\.js)"/g)) visit(m[1]);
  };
  lazyRoots.forEach(visit);
  return { firstScreen, liveChunks: live };
}

export default async function wireBench() {
  if (!existsSync(path.join(webDist, 'index.html'))) {
    console.log('web app not built: run "npm run build -w @racebeacon/web" first');
    return;
  }
  const database = await openDatabase({});
  const app = await buildApp({
    config: loadConfig({ DEMO: 'off', LOG_LEVEL: 'silent', PORT: '0', ALERT_SWEEP_SECONDS: '0' }),
    database,
    logger: false,
  });
  try {
    await app.ready();
    const now = Date.now();
    const race = await seedLiveRace(app.db, {
      runners: RUNNERS,
      courseLengthM: COURSE_M,
      clockStartMs: now - RACE_ELAPSED_MS,
      expectedIntervalS: 150,
      ...(winding && {
        course: {
          name: 'Winding trail',
          geometry: winding.geometry,
          lengthM: winding.lengthM,
          climbM: winding.climbM,
          descentM: winding.descentM,
        },
      }),
    });
    const fixes = await storeHistory(app, race, now);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    console.log(
      `race: ${RUNNERS} runners, ${COURSE_M / 1000} km course, ${RACE_ELAPSED_MS / 3600_000} h in (${fixes} fixes stored); ` +
        (winding
          ? `WIRE_COURSE=winding: ${winding.geometry.points.length} course points, climb ${winding.climbM} m, ` +
            `pace by gradient, per-runner noise, aid-station stops, GPS noise 5–15 m`
          : 'straight course, steady paces (WIRE_COURSE=winding for a realistic one)'),
    );

    // ---------------------------------------------------------------- 1. first live view
    const id = race.raceId;
    const page = await wireGet(`${base}/race/${id}`);
    const { firstScreen, liveChunks } = webFiles(page.body.toString());
    const items: [string, string][] = [
      ['page (index.html)', `/race/${id}`],
      ...firstScreen.map((f): [string, string] => [`first screen ${path.basename(f)}`, f]),
      ...liveChunks.map((f): [string, string] => [`live view ${path.basename(f)}`, f]),
      ['race', `/api/open/races/${id}`],
      ['course', `/api/open/course/${id}`],
      ['course-track', `/api/open/races/${id}/course-track`],
      ['leaderboard', `/api/open/races/${id}/leaderboard`],
      ['positions', `/api/open/races/${id}/positions`],
    ];
    const rows: { name: string; before: number; after: number; encoding: string }[] = [];
    for (const [name, p] of items) {
      const before = await wireGet(`${base}${p}`);
      const after = await wireGet(`${base}${p}`, BROWSER_ENCODING);
      if (before.status !== 200) throw new Error(`${p} answered ${before.status}`);
      rows.push({ name, before: before.bytes, after: after.bytes, encoding: after.encoding ?? 'identity' });
    }
    const plainSse = await sseViewer(`${base}/api/open/races/${id}/live`);
    const gzipSse = await sseViewer(`${base}/api/open/races/${id}/live`, BROWSER_ENCODING);
    const compactSse = await sseViewer(
      `${base}/api/open/races/${id}/live?v=${COMPACT_STREAM_VERSION}`,
      BROWSER_ENCODING,
      'snap',
    );
    rows.push({
      name: 'live stream snapshot (SSE)',
      before: plainSse.snapshotBytes,
      after: gzipSse.snapshotBytes,
      encoding: 'gzip',
    });
    rows.push({
      name: 'compact live snapshot (SSE ?v=5)',
      before: gzipSse.snapshotBytes,
      after: compactSse.snapshotBytes,
      encoding: 'gzip',
    });
    const width = Math.max(...rows.map((r) => r.name.length));
    console.log(
      `\nfirst live view, bytes on the wire (before: no Accept-Encoding; after: "${BROWSER_ENCODING}")`,
    );
    for (const r of rows) {
      console.log(
        `  ${r.name.padEnd(width)}  ${kb(r.before).padStart(10)}  →  ${kb(r.after).padStart(9)}  (${r.encoding})`,
      );
    }
    const sum = (names: (n: string) => boolean, key: 'before' | 'after') =>
      rows.filter((r) => names(r.name)).reduce((s, r) => s + r[key], 0);
    const shell = (n: string) =>
      n.startsWith('page') || n.startsWith('first screen') || n.startsWith('live view') || n === 'race';
    const issueView = (n: string) =>
      shell(n) || n === 'course-track' || n === 'leaderboard' || n === 'positions';
    const webShell = (n: string) => shell(n) || n === 'course' || n === 'course-track';
    const verdict = (n: number, budget: number) => (n <= budget ? 'within' : 'OVER');
    {
      const before = sum(issueView, 'before');
      const after = sum(issueView, 'after');
      console.log(
        `first view through the REST reads, page + JS + leaderboard + positions + course-track: ${kb(before)} ` +
          `uncompressed → ${kb(after)} compressed (${(before / after).toFixed(1)}× less)`,
      );
    }
    {
      // What the web app loads: the shell, then the live stream's snapshot (the leaderboard and the trails).
      const code = sum(
        (n) => n.startsWith('page') || n.startsWith('first screen') || n.startsWith('live view'),
        'after',
      );
      const shellData = sum(webShell, 'after') - code;
      const before = code + shellData + gzipSse.snapshotBytes;
      const after = code + shellData + compactSse.snapshotBytes;
      console.log(
        `FIRST VIEW (what the web app loads: page, JS and CSS ${kb(code)}, race + course + course-track ` +
          `${kb(shellData)}, the live snapshot): before (first stream, gzip) ${kb(before)} → after (compact ` +
          `stream ?v=5) ${kb(after)} (${(before / after).toFixed(1)}× less); budget ${kb(FIRST_VIEW_BUDGET)}: ` +
          `${verdict(after, FIRST_VIEW_BUDGET)}`,
      );
    }

    // ---------------------------------------------------------------- 2. one update cycle
    const models = race.runners.map((_, k) => runnerModel(k));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const post = (url: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    // Each runner pings once, at its own phase within the cycle (trackers are not synchronised).
    const order = race.runners
      .map((r, k) => ({ r, k, at: (models[k].phase / INTERVAL_MS) * CYCLE_MS }))
      .sort((a, b) => a.at - b.at);
    let failed = 0;
    const cycle = async (cycleStart: number) => {
      const inFlight: Promise<void>[] = [];
      for (const { r, k, at } of order) {
        const wait = cycleStart + at - Date.now();
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
        const fix = models[k].fixAt(race.clockStartMs, Date.now());
        inFlight.push(
          post(osmandUrl(base, r, fix)).then((s) => {
            if (s < 200 || s >= 300) failed++;
          }),
        );
      }
      await Promise.all(inFlight);
    };
    // A first cycle, not measured: the time the first view took (longer on a loaded machine) made every runner's
    // next ping late, which is not what a steady cycle costs (late enough, it shows estimates on every row).
    const warmStart = Date.now();
    await cycle(warmStart);
    // The measured cycle right after it, every runner at its steady interval. Its bytes: what the stream sends in one
    // cycle's time (the last batch of the cycle before it arrives in the window, this cycle's last one after).
    const measuredStart = warmStart + CYCLE_MS;
    while (Date.now() < measuredStart - 50) await new Promise((res) => setTimeout(res, 20));
    const startPlain = plainSse.bytes();
    const startGzip = gzipSse.bytes();
    const startCompact = compactSse.bytes();
    const startText = compactSse.text().length;
    await cycle(measuredStart);
    const end = measuredStart + CYCLE_MS;
    while (Date.now() < end) await new Promise((res) => setTimeout(res, 20));
    const cyclePlain = plainSse.bytes() - startPlain;
    const cycleGzip = gzipSse.bytes() - startGzip;
    const cycleCompact = compactSse.bytes() - startCompact;
    const cycleText = compactSse.text().slice(startText);
    compactSse.close();
    if (process.env.WIRE_DUMP) writeFileSync(process.env.WIRE_DUMP, compactSse.text());
    describeCompactSnapshot(compactSse.text());
    describeCompactDeltas(cycleText);
    describeChainCost(cycleText);
    agent.destroy();
    plainSse.close();
    gzipSse.close();
    console.log(
      `\nUPDATE CYCLE (${RUNNERS} pings over ${(CYCLE_MS / 1000).toFixed(0)} s${failed ? `, ${failed} refused` : ''}), per viewer: ` +
        `before (first stream) ${kb(cyclePlain)} plain, ${kb(cycleGzip)} gzip → after (compact stream ?v=5, gzip) ` +
        `${kb(cycleCompact)} (${(cycleGzip / cycleCompact).toFixed(1)}× less than gzip); ` +
        `budget ${kb(CYCLE_BUDGET)}: ${verdict(cycleCompact, CYCLE_BUDGET)}`,
    );
    console.log(
      `  compact stream per cycle: before its predictions, fixes on the course, packed columns and deflate context ` +
        `${kb(COMPACT_CYCLE_BEFORE)} (this bench, commit 9385162) → ${kb(cycleCompact)} now`,
    );
    console.log(
      `  measured on ?v=3, before trails against the course, the predictions of ?v=4 and the range coding of ?v=5 (commit 3e3ba35): straight course first view ${kb(MEASURED.straight.firstView)}, cycle ` +
        `${kb(MEASURED.straight.cycle)}; winding course (WIRE_COURSE=winding) first view ` +
        `${kb(MEASURED.winding.firstView)}, cycle ${kb(MEASURED.winding.cycle)}; this run (${WINDING ? 'winding' : 'straight'}) ` +
        `cycle ${kb(cycleCompact)}`,
    );
  } finally {
    await app.close();
    await database.close();
  }
}
