import type { ServerResponse } from 'node:http';
import { constants as zlib, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DeflateChain, deflatedPiece, gzipEventStream } from '../src/live/sse-compression';
import { encodeSseMessage } from '../src/live/sse-hub';

/** A response that keeps the bytes written to it (what goes on the wire). */
function fakeResponse() {
  const chunks: Buffer[] = [];
  const res = {
    writeHead: () => res,
    write: (chunk: Buffer | string) => {
      chunks.push(Buffer.from(chunk));
      return true;
    },
  };
  const wrapped = gzipEventStream(res as unknown as ServerResponse, 'gzip, deflate, br');
  wrapped.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  return {
    write: (chunk: Buffer | string) => wrapped.write(chunk),
    bytes: () => Buffer.concat(chunks),
    /** The stream as the browser decodes it: one gzip stream, every piece after the header in one inflater. */
    text: () =>
      inflateRawSync(Buffer.concat(chunks).subarray(10), { finishFlush: zlib.Z_SYNC_FLUSH }).toString(),
  };
}

/** Deltas like the compact stream's: much repeats from one to the next. */
const delta = (i: number) =>
  encodeSseMessage(
    'delta',
    JSON.stringify({
      Seq: i,
      At: new Date(1_780_000_000_000 + i * 15_000).toISOString(),
      P: Array.from({ length: 40 }, (_, k) => [1 + ((k * 7 + i) % 5), 585, (k * 31 + i) % 19, 8, 1]),
      L: 24_000 + i * 60,
      F: Array.from({ length: 40 }, (_, k) => [
        1 + ((k * 3 + i) % 4),
        1,
        0,
        (k * 13 + i) % 11,
        2 - (k % 5),
      ]).flat(),
    }),
    `abc.${i}`,
  );
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

describe('deltas deflated in one context (DeflateChain)', () => {
  it('decodes to the same text for a viewer there from the start and one that joined later, in fewer bytes', () => {
    const chain = new DeflateChain(4);
    const messages = Array.from({ length: 11 }, (_, i) => delta(i + 1));
    const early = fakeResponse();
    const late = fakeResponse();
    early.write('retry: 5000\n\n');
    const sent: string[] = ['retry: 5000\n\n'];
    const lateSent: string[] = [];
    messages.forEach((m, i) => {
      chain.add(m);
      early.write(m);
      sent.push(m.toString());
      if (i === 5) {
        // A viewer joins between join points: its snapshot, then the chain's messages.
        late.write('retry: 3000\n\n');
        late.write(encodeSseMessage('snap', '{"N":0}', 'abc.6'));
        lateSent.push('retry: 3000\n\n', encodeSseMessage('snap', '{"N":0}', 'abc.6').toString());
      }
      if (i >= 6) {
        late.write(m);
        lateSent.push(m.toString());
      }
      if (i === 2) {
        // A heartbeat for a viewer in context decompresses to nothing (an empty block).
        early.write(HEARTBEAT);
      }
    });
    expect(early.text()).toBe(sent.join(''));
    expect(late.text()).toBe(lateSent.join(''));
    // Each message alone, as before: the early viewer's stream is smaller.
    const alone =
      10 +
      deflatedPiece('retry: 5000\n\n').length +
      messages.reduce((n, m) => n + deflatedPiece(m).length, 0);
    expect(early.bytes().length).toBeLessThan(alone * 0.8);
    // The late viewer: messages 7 and 8 alone (deflated on their own), 9 (a join point) on in context.
    const lateAlone = deflatedPiece(messages[6]).length + deflatedPiece(messages[7]).length;
    expect(late.bytes().length).toBeGreaterThan(lateAlone);
  });

  it('sends a viewer that missed a message of the chain each message alone until the next join point', () => {
    const chain = new DeflateChain(3);
    const messages = Array.from({ length: 7 }, (_, i) => delta(i + 1));
    messages.forEach((m) => chain.add(m));
    const viewer = fakeResponse();
    // Messages 1, 2, (3 missed), 4 (a join point), 5, 6, 7 (a join point).
    const got = [0, 1, 3, 4, 5, 6].map((i) => messages[i]);
    got.forEach((m) => viewer.write(m));
    expect(viewer.text()).toBe(got.map(String).join(''));
    // Something else written in between (not a heartbeat) puts the viewer out of context, as a missed message.
    const other = fakeResponse();
    other.write(messages[0]);
    other.write(messages[1]);
    other.write('event: gone\ndata: {}\n\n');
    other.write(messages[2]);
    other.write(messages[3]);
    expect(other.text()).toBe(
      [messages[0], messages[1], 'event: gone\ndata: {}\n\n', messages[2], messages[3]].map(String).join(''),
    );
  });
});
