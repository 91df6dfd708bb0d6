import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import { acceptsEncoding } from '../platform/compression';

/**
 * gzip for the live SSE streams without a compressor per viewer.
 *
 * A gzip body is a 10-byte header and one DEFLATE stream. Each SSE message is deflated ON ITS OWN (a fresh
 * compressor: no reference to earlier bytes), ended with a sync flush (byte-aligned, not final): such pieces
 * concatenate into one valid DEFLATE stream, so the same compressed bytes serve every viewer, whenever it joined.
 * The hub already writes one Buffer object per message to all viewers of a race; its compressed form is kept beside
 * it (WeakMap) — the snapshot is compressed once per race version, an update once for all viewers, however many.
 * A viewer costs no compressor memory (zlib holds ~256 KB per stream; 10,000 viewers would need 2.5 GB).
 *
 * Each piece ends with a sync flush, so the browser can decode and dispatch every event as it arrives: nothing
 * is buffered. The stream never sends gzip's trailer (a CRC of everything sent): an event stream ends only when the
 * race is gone or the server stops, and the client reconnects or stops then anyway.
 *
 * Only gzip: brotli has no such concatenation. Clients that do not accept gzip (curl, the tests' reader, an old
 * proxy) get the plain stream.
 */

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

const pieces = new WeakMap<Buffer, Buffer>();

/** The message deflated on its own, ending with a sync flush (cached for a Buffer sent to many viewers). */
export function deflatedPiece(message: Buffer | string): Buffer {
  if (typeof message === 'string') return deflate(Buffer.from(message));
  let piece = pieces.get(message);
  if (!piece) pieces.set(message, (piece = deflate(message)));
  return piece;
}

function deflate(message: Buffer): Buffer {
  // Level 6: snapshots of big races are megabytes and are compressed once; level 9 gains little more.
  return deflateRawSync(message, { level: 6, finishFlush: zlibConstants.Z_SYNC_FLUSH });
}

/**
 * Makes `res` write a gzip-encoded event stream when the client accepts gzip (and says so in the headers the hub
 * writes); otherwise returns it untouched. Call before handing `res` to the hub.
 */
export function gzipEventStream(
  res: ServerResponse,
  acceptEncoding: string | string[] | undefined,
): ServerResponse {
  if (!acceptsEncoding(acceptEncoding, 'gzip')) return res;
  const writeHead = res.writeHead.bind(res) as (
    status: number,
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ) => ServerResponse;
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  let started = false;
  res.writeHead = ((status: number, headers?: OutgoingHttpHeaders) => {
    const isStream = status === 200 && /text\/event-stream/i.test(String(headers?.['content-type'] ?? ''));
    if (!isStream) return writeHead(status, headers);
    writeHead(status, { ...headers, 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
    started = true;
    write(GZIP_HEADER);
    return res;
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
    if (!started) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    const ok = write(deflatedPiece(chunk));
    if (callback) process.nextTick(callback);
    return ok;
  }) as ServerResponse['write'];
  return res;
}
