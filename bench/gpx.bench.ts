/**
 * GPX course handling near the 20 MB upload cap: parseGpx + courseStats, and a full upload through the API
 * (multipart, parse, one-transaction replace on PGlite). Baseline: a bare saxes pass over the same text with no
 * handlers, i.e. the XML tokenizer's floor.
 */
import { SaxesParser } from 'saxes';
import { courseStats, parseGpx } from '@racebeacon/domain';
import { createTestApp } from '../apps/server/test/support/app';
import { call, createRace, multipartFile } from '../apps/server/test/support/api';

function bigGpx(targetBytes: number): { xml: string; points: number } {
  const parts = [
    '<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>',
  ];
  let size = parts[0].length;
  let i = 0;
  while (size < targetBytes) {
    const lat = (46 + i * 0.00001).toFixed(6);
    const lon = (6.6 + Math.sin(i / 500) * 0.01).toFixed(6);
    const ele = (400 + Math.sin(i / 300) * 50).toFixed(1);
    const s = `<trkpt lat="${lat}" lon="${lon}"><ele>${ele}</ele><time>2024-05-04T08:00:00Z</time></trkpt>\n`;
    parts.push(s);
    size += s.length;
    i++;
  }
  parts.push('</trkseg></trk></gpx>');
  return { xml: parts.join(''), points: i };
}

const time = async (fn: () => unknown | Promise<unknown>, runs = 3): Promise<number> => {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
};

export default async function bench(): Promise<void> {
  const { xml, points } = bigGpx(19 * 1024 * 1024);
  const mb = (xml.length / 1024 / 1024).toFixed(1);
  const baseline = await time(() => new SaxesParser().write(xml).close());
  const parse = await time(() => courseStats(parseGpx(xml).points));
  console.log(`GPX ${mb} MB, ${points} points`);
  console.log(`  baseline saxes tokenize only : ${baseline.toFixed(0)} ms`);
  console.log(`  parseGpx + courseStats       : ${parse.toFixed(0)} ms  (x${(parse / baseline).toFixed(2)})`);

  const t = await createTestApp('pglite');
  try {
    const director = await t.issuer.director('bench');
    const raceId = await createRace(t, director, { Name: 'Bench' });
    const { payload, headers } = multipartFile(xml);
    let status = 0;
    const upload = await time(async () => {
      const res = await call(t, 'POST', `/api/director/course/${raceId}`, {
        token: director,
        payload,
        headers,
      });
      status = res.statusCode;
    }, 2);
    console.log(
      `  upload via API (PGlite)      : ${upload.toFixed(0)} ms  (x${(upload / baseline).toFixed(2)}) status ${status}`,
    );
  } finally {
    await t.close();
  }
}
