/**
 * One MapShare poll's parse: `readMapShareFeed` (the domain's KML reader + the adapter building fixes, alerts and
 * texts) over a runner's feed as Garmin sends it — a first read (24 hours at a 10-minute interval) and a busy week
 * at 2-minute tracking. Baseline: a bare saxes pass over the same text with no handlers, the XML tokenizer's floor.
 */
import { SaxesParser } from 'saxes';
import { readMapShareFeed } from '../apps/server/src/ingest/adapters/mapshare';
import { mapShareKml, type KmlMessage } from '../apps/server/test/mapshare-fixtures';

const time = (fn: () => unknown, runs = 20): number => {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
};

function feed(messages: number, everyMin: number): string {
  const start = Date.now() - messages * everyMin * 60_000;
  const list: KmlMessage[] = Array.from({ length: messages }, (_, i) => ({
    id: i + 1,
    at: new Date(start + i * everyMin * 60_000),
    lat: 46 + i * 0.0005,
    lon: 7.9 + Math.sin(i / 20) * 0.01,
    ele: 1500 + (i % 50),
    kmh: 5.4,
    text: i % 100 === 0 ? 'All good at the hut' : undefined,
  }));
  return mapShareKml('Bench Runner', list);
}

export default async function bench(): Promise<void> {
  for (const [label, n, every] of [
    ['first read, 24 h at 10 min', 144, 10],
    ['busy week at 2 min', 5040, 2],
  ] as const) {
    const xml = feed(n, every);
    const baseline = time(() => new SaxesParser().write(xml).close());
    let fixes = 0;
    const parse = time(() => {
      const read = readMapShareFeed(xml, 1);
      fixes = read.ok ? read.batch.fixes.length : -1;
    });
    console.log(
      `MapShare KML, ${label}: ${n} messages, ${(xml.length / 1024).toFixed(0)} KB, ${fixes} fixes`,
    );
    console.log(`  baseline saxes tokenize only : ${baseline.toFixed(2)} ms`);
    console.log(
      `  readMapShareFeed             : ${parse.toFixed(2)} ms  (x${(parse / baseline).toFixed(2)})`,
    );
  }
}
