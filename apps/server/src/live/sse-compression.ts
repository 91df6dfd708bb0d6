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
 * The compact stream's deltas go further (`DeflateChain`): each deflated with the messages before it as its
 * dictionary, still once for every viewer, sent that way to the viewers that hold that context.
 *
 * Only gzip: brotli has no such concatenation. Clients that do not accept gzip (curl, the tests' reader, an old
 * proxy) get the plain stream.
 */

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

const pieces = new WeakMap<Buffer, Buffer>();

/** DEFLATE's window: a piece can refer back this far into what the viewer has decompressed. */
const WINDOW = 32 * 1024;
/** The hub's heartbeat comment: a viewer in a chain gets an empty block instead (bytes that decompress to nothing). */
const HEARTBEAT = Buffer.from(': heartbeat\n\n');
const isHeartbeat = (chunk: Buffer | string) =>
  typeof chunk === 'string' ? chunk === HEARTBEAT.toString() : chunk.equals(HEARTBEAT);
/** A non-final stored block of no bytes (what a sync flush ends with): keeps the connection busy, adds no output. */
const EMPTY_BLOCK = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/**
 * Messages deflated in one context, the messages before them in the chain (up to its last join point) as the
 * dictionary: what repeats from one message to the next (keys, framing, common numbers) costs a back-reference, not
 * its bytes again. Each piece is still made once for every viewer. A viewer can read a piece in context only when it
 * has decompressed exactly the chain's messages since the last join point (nothing in between: a heartbeat is an
 * empty block for it); a join piece refers to nothing before it, so a viewer that joined the race in between (a
 * snapshot, a resume) gets the chain's messages deflated alone until the next join point, then in context.
 * One chain per race's compact stream, in memory one window (32 KB) and no compressor.
 */
export class DeflateChain {
  private history: Buffer = Buffer.alloc(0);
  private count = 0;
  /** `joinEvery`: a join point every this many messages (a viewer waits at most that many for its context). */
  constructor(private readonly joinEvery = 8) {}

  /** Deflates `message` as the chain's next one (every viewer gets that same Buffer written). */
  add(message: Buffer): void {
    const join = this.count % this.joinEvery === 0;
    if (join) this.history = Buffer.alloc(0);
    const piece = deflateRawSync(message, {
      level: 6,
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
      ...(this.history.length ? { dictionary: this.history } : {}),
    });
    links.set(message, { chain: this, index: this.count, join, piece });
    if (join) pieces.set(message, piece); // deflated alone too
    this.count++;
    const kept = Buffer.concat([this.history, message]);
    this.history = kept.length > WINDOW ? kept.subarray(kept.length - WINDOW) : kept;
  }
}

interface Link {
  chain: DeflateChain;
  index: number;
  join: boolean;
  piece: Buffer;
}
const links = new WeakMap<Buffer, Link>();

/** A chain's message as deflated in its context (what a viewer holding that context gets); undefined for others. */
export const chainedPiece = (message: Buffer): Buffer | undefined => links.get(message)?.piece;

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
  /** The chain this viewer reads in context and the index of the next message it must get for that. */
  let inChain: { chain: DeflateChain; next: number } | null = null;
  const pieceFor = (chunk: Buffer | string): Buffer => {
    const link = typeof chunk === 'string' ? undefined : links.get(chunk);
    if (link && (link.join || (inChain?.chain === link.chain && inChain.next === link.index))) {
      inChain = { chain: link.chain, next: link.index + 1 };
      return link.piece;
    }
    if (inChain && isHeartbeat(chunk)) return EMPTY_BLOCK;
    inChain = null;
    return deflatedPiece(chunk);
  };
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
    const ok = write(pieceFor(chunk));
    if (callback) process.nextTick(callback);
    return ok;
  }) as ServerResponse['write'];
  return res;
}
