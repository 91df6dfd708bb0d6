import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { encodeSseMessage, SseHub } from '../src/live/sse-hub';
import { connectSse, type SseConnection } from './support/sse-client';

/** The SSE hub on a real HTTP server: sliced broadcasts keep per-viewer order; slow viewers are dropped. */

let server: http.Server | null = null;
let hub: SseHub | null = null;
afterEach(async () => {
  hub?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = hub = null;
});

async function start(h: SseHub): Promise<string> {
  hub = h;
  server = http.createServer((req, res) => h.open(7, res, [encodeSseMessage('snapshot', '{}', 'g.0')]));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`;
}

it('delivers back-to-back broadcasts in order to every viewer when written in slices', async () => {
  const url = await start(new SseHub({ broadcastSlice: 2 }));
  const viewers: SseConnection[] = [];
  for (let i = 0; i < 5; i++) viewers.push(await connectSse(url));
  for (const v of viewers) await v.next((e) => e.event === 'snapshot');
  expect(hub!.viewerCount(7)).toBe(5);
  for (let n = 1; n <= 3; n++) hub!.broadcast(7, encodeSseMessage('update', JSON.stringify({ n }), `g.${n}`));
  for (const v of viewers) {
    const got: number[] = [];
    for (let n = 1; n <= 3; n++) got.push(JSON.parse((await v.next((e) => e.event === 'update')).data).n);
    expect(got).toEqual([1, 2, 3]);
    v.close();
  }
});

it('sends heartbeats and forgets viewers that disconnect', async () => {
  const url = await start(new SseHub({ heartbeatMs: 50 }));
  const v = await connectSse(url);
  await v.next((e) => e.event === 'snapshot');
  await new Promise((r) => setTimeout(r, 200));
  expect(v.comments).toContain('heartbeat');
  v.close();
  for (let i = 0; i < 50 && hub!.viewerCount() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(hub!.viewerCount()).toBe(0);
});

it('closing (graceful stop) sends every viewer a short retry hint, then ends the stream', async () => {
  const url = await start(new SseHub({ retryBaseMs: 3000, retryJitterMs: 0 }));
  const viewers = [await connectSse(url), await connectSse(url)];
  for (const v of viewers) await v.next((e) => e.event === 'snapshot');
  hub!.close();
  for (const v of viewers) {
    await v.ended;
    // The everyday hint first, then the snapshot, then the stop's own short hint as the last thing sent.
    expect(v.events.map((e) => e.retry ?? e.event)).toEqual([3000, 'snapshot', expect.any(Number)]);
    const last = v.events.at(-1)!.retry!;
    expect(last).toBeGreaterThanOrEqual(250);
    expect(last).toBeLessThan(2000);
  }
});

it('closing in the middle of sliced broadcasts writes their rest first, in order, then the retry hint', async () => {
  const url = await start(new SseHub({ broadcastSlice: 2, retryBaseMs: 3000, retryJitterMs: 0 }));
  const viewers: SseConnection[] = [];
  for (let i = 0; i < 5; i++) viewers.push(await connectSse(url));
  for (const v of viewers) await v.next((e) => e.event === 'snapshot');
  // Only the first slice of each is written now; close() comes before the next event-loop turn.
  for (let n = 1; n <= 2; n++) hub!.broadcast(7, encodeSseMessage('update', JSON.stringify({ n }), `g.${n}`));
  hub!.close();
  for (const v of viewers) {
    await v.ended;
    expect(v.events.map((e) => e.retry ?? e.event)).toEqual([
      3000,
      'snapshot',
      'update',
      'update',
      expect.any(Number),
    ]);
    expect(v.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data).n)).toEqual([1, 2]);
    expect(v.events.at(-1)!.retry).toBeLessThan(2000);
  }
});
