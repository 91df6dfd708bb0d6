/**
 * Worker-thread entry (started by gpx-off-thread.ts): analyses one GPX file and posts the result back, so the
 * parse never blocks the server's event loop. The file's bytes arrive transferred, not copied.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { GpxError } from '@racebeacon/domain';
import { analyseGpx } from './gpx-analysis';

/** threadId: the thread that did the work (never the main thread's 0). */
export type GpxWorkerReply = { threadId: number } & (
  { ok: true; result: ReturnType<typeof analyseGpx> } | { ok: false; gpxError: string }
);

const { bytes } = workerData as { bytes: Uint8Array };
let reply: GpxWorkerReply;
try {
  reply = { threadId, ok: true, result: analyseGpx(bytes) };
} catch (err) {
  if (!(err instanceof GpxError)) throw err; // the 'error' event: a server fault, not the user's file
  reply = { threadId, ok: false, gpxError: err.message };
}
parentPort!.postMessage(reply);
