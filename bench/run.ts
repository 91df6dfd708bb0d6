/**
 * `npm run bench`: runs every bench/*.bench.ts in turn. Each prints its own figures beside a baseline measured in
 * the same run, and the ratio. Pass names to run a subset: `npm run bench -- ingest live`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: () => Promise<void> };
  await mod.default();
}
console.log('\nbench done');
process.exit(0);
