import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGunzip, constants as zlib, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chainedPiece, DeflateChain, deflatedPiece, gzipEventStream } from '../src/live/sse-compression';
import { encodeSseMessage, SseHub } from '../src/live/sse-hub';

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

/** An SSE client over real HTTP with gzip: the raw bytes received and the text as the gzip stream decodes. */
function gzipClient(url: string) {
  return new Promise<{ bytes: () => number; text: () => string; close(): void }>((resolve, reject) => {
    const req = http.get(
      url,
      { headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip' } },
      (res) => {
        let bytes = 0;
        let text = '';
        res.on('data', (c: Buffer) => (bytes += c.length));
        const gunzip = createGunzip({ finishFlush: zlib.Z_SYNC_FLUSH });
        res.pipe(gunzip).on('data', (c: Buffer) => (text += c.toString()));
        gunzip.on('error', reject);
        resolve({ bytes: () => bytes, text: () => text, close: () => req.destroy() });
      },
    );
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
};

describe('the hub writing a chain to gzip viewers over HTTP', () => {
  it('decodes, with heartbeats in between, for a viewer there from the start and one that joined later', async () => {
    const hub = new SseHub({ heartbeatMs: 15, retryBaseMs: 1000, retryJitterMs: 1 });
    const server = http.createServer((req, res) => {
      hub.open(1, gzipEventStream(res, req.headers['accept-encoding']), [
        encodeSseMessage('snap', '{}', 'abc.0'),
      ]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const chain = new DeflateChain(4);
      const messages = Array.from({ length: 14 }, (_, i) => delta(i + 1));
      const early = await gzipClient(url);
      await until(() => hub.viewerCount(1) === 1);
      let late: Awaited<ReturnType<typeof gzipClient>> | null = null;
      for (const [i, m] of messages.entries()) {
        if (i === 6) {
          late = await gzipClient(url);
          await until(() => hub.viewerCount(1) === 2);
        }
        chain.add(m);
        hub.broadcast(1, m);
        // Heartbeats go out between messages (every 15 ms; longer while the late viewer is out of context).
        await new Promise((r) => setTimeout(r, i === 6 || i === 7 ? 150 : 40));
      }
      const strip = (text: string) => text.replace(/^retry: \d+\n\n/, '');
      const expected = (from: number) => messages.slice(from).map(String).join('');
      await until(() => strip(early.text()).endsWith(expected(13)));
      await until(() => strip(late!.text()).endsWith(expected(13)));
      const snap = encodeSseMessage('snap', '{}', 'abc.0').toString();
      // Nothing lost, nothing garbled; a heartbeat decodes to nothing for a viewer in context, to its comment otherwise.
      const noBeats = (text: string) => strip(text).replaceAll(': heartbeat\n\n', '');
      expect(noBeats(early.text())).toBe(snap + expected(0));
      expect(noBeats(late!.text())).toBe(snap + expected(6));
      // In context (the early viewer from the first message, a join point; the late one from the 9th), every
      // heartbeat was an empty block: no comment in between; before, the comment itself.
      const after = (text: string, m: Buffer) => text.slice(text.indexOf(m.toString()));
      expect(after(early.text(), messages[0])).not.toContain(': heartbeat');
      expect(after(late!.text(), messages[8])).not.toContain(': heartbeat');
      expect(
        after(late!.text(), messages[6]).slice(
          0,
          after(late!.text(), messages[6]).indexOf(String(messages[8])),
        ),
      ).toContain(': heartbeat');
      // The early viewer got the chain in context: fewer bytes than the messages deflated alone.
      const alone = messages.reduce((n, m) => n + deflatedPiece(m).length, 0);
      const chained = messages.reduce((n, m) => n + chainedPiece(m)!.length, 0);
      expect(chained).toBeLessThan(alone * 0.8);
      expect(early.bytes()).toBeLessThan(alone);
      early.close();
      late!.close();
    } finally {
      hub.close();
      await new Promise((r) => server.close(r));
    }
  });
});
