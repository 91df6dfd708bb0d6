/** Helpers for the benches that read a kept event stream (wire.bench.ts, wire-replay.ts). */
import { deflateRawSync } from 'node:zlib';

/** Bytes of a text deflated on its own (what a message of just that costs, roughly). */
export const deflated = (text: string) => deflateRawSync(Buffer.from(text), { level: 6 }).length;

/** The stream's messages of one event, their data parsed. */
export function sseMessages(text: string, event: string): unknown[] {
  const out: unknown[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.includes(`event: ${event}\n`)) continue;
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (data) out.push(JSON.parse(data.slice(6)));
  }
  return out;
}
