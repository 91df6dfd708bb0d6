// Runs every vitest project, then prints one plain closing line ("Tests: N passed, N failed, N skipped") that CI
// tools read, and exits with vitest's own exit code.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';

const out = 'artifacts/test-results.json';
mkdirSync('artifacts', { recursive: true });
rmSync(out, { force: true });
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...process.argv.slice(2),
];
const { status } = spawnSync('npx', args, { stdio: 'inherit' });
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`\nTests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
}
process.exit(status ?? 1);
