import { channel } from 'node:diagnostics_channel';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { GpxError } from '@racebeacon/domain';
import { HttpError } from '../lib/errors';
import { analyseGpx, type AnalysedGpx } from './gpx-analysis';
import type { GpxWorkerReply } from './gpx-worker';

/**
 * GPX analysis off the main thread: a 20 MB file takes hundreds of milliseconds and a couple of hundred MB of heap,
 * all in a worker thread, while the main thread only copies the bytes over and receives the small result (name,
 * stats, waypoints, geometry as JSON text). One short-lived worker per upload: its whole heap is released when it
 * exits. A small file (up to INLINE_MAX_BYTES, a few milliseconds of work) is analysed in place, which is cheaper
 * than starting a thread.
 *
 * Observable on the diagnostics channel `racebeacon:gpx-parse`: `{ phase: 'start', bytes }` when a worker is
 * started, `{ phase: 'end', threadId, pointCount | null }` when it answered (threadId: the thread that parsed).
 */
export const gpxParseChannel = channel('racebeacon:gpx-parse');

export type GpxParseMessage =
  { phase: 'start'; bytes: number } | { phase: 'end'; threadId: number; pointCount: number | null };

/** Files up to this size are analysed on the calling thread (well under 20 ms). */
export const INLINE_MAX_BYTES = 256 * 1024;

/** At most this many parses run at once; further uploads wait for a slot (bounds CPU and memory). */
const MAX_PARALLEL = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function acquire(): Promise<void> {
  if (running < MAX_PARALLEL) {
    running++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

// Run from source (.ts under tsx or vitest) or built (.js): the worker entry sits next to this module either way.
const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSource ? './gpx-worker.ts' : './gpx-worker.js', import.meta.url);

function startWorker(options: WorkerOptions): Worker {
  if (!fromSource) return new Worker(workerUrl, options);
  // From source the worker must load TypeScript. `--import tsx` in a worker's execArgv is not applied on Node 20,
  // so the worker registers tsx's loader itself, then imports its entry.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot =
    `import(${JSON.stringify(tsx)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/** Analyses a GPX file, off the main thread unless it is small. Throws GpxError for an unusable file. */
export async function analyseGpxFile(data: Uint8Array): Promise<AnalysedGpx> {
  if (data.byteLength <= INLINE_MAX_BYTES) return analyseGpx(data);
  await acquire();
  try {
    // A private copy whose memory moves to the worker (a Buffer may share its memory with others).
    const bytes = new Uint8Array(data.byteLength);
    bytes.set(data);
    if (gpxParseChannel.hasSubscribers) gpxParseChannel.publish({ phase: 'start', bytes: bytes.byteLength });
    const worker = startWorker({
      workerData: { bytes },
      transferList: [bytes.buffer],
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    });
    const reply = await new Promise<GpxWorkerReply>((resolve, reject) => {
      let answered = false;
      worker.once('message', (m: GpxWorkerReply) => {
        answered = true;
        resolve(m);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        if (!answered) reject(new Error(`The GPX worker exited (code ${code}) without an answer.`));
      });
    }).catch((err: unknown) => {
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new HttpError(413, 'file_too_complex', 'The GPX file is too complex to read.');
      }
      throw err;
    });
    if (gpxParseChannel.hasSubscribers) {
      gpxParseChannel.publish({
        phase: 'end',
        threadId: reply.threadId,
        pointCount: reply.ok ? reply.result.stats.pointCount : null,
      });
    }
    if (!reply.ok) throw new GpxError(reply.gpxError);
    return reply.result;
  } finally {
    release();
  }
}
