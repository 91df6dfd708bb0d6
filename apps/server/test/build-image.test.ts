import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The production build as the image runs it, without Docker: scripts/image-check.mjs runs deploy/Dockerfile's steps
 * (build, stage the runtime files, `npm ci --omit=dev`, `node apps/server/dist/server.js` from that copy) and smoke
 * tests the result, ending with a SIGTERM while a live viewer, an idle kept-alive connection and a request are open.
 * `--reuse-web`: `npm test` has just built the web app, so only the server is rebuilt (a fraction of a second).
 * Most of the time is the `npm ci` of the production dependencies (from the npm cache after the full install).
 */
describe('production build (scripts/image-check.mjs)', () => {
  it('builds, installs production dependencies only, starts with node alone, serves and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['scripts/image-check.mjs', '--reuse-web'], { cwd: root });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGTERM');
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    // The figures (build and install times, node_modules sizes, start and stop times) in the test output.
    const figures = output.slice(output.lastIndexOf('\n  build'));
    console.log(`image check:${figures}`);
    expect(code, output).toBe(0);
    expect(output).toContain('image check passed');
    expect(output).toMatch(/ok {2}request in flight at SIGTERM answered: 4\d\d/);
    expect(output).toMatch(/ok {2}exit code 0/);
  }, 300_000);

  const haproxy = spawnSync('haproxy', ['-v']).status === 0;
  it.skipIf(!haproxy)('deploy/haproxy.cfg is a valid HAProxy configuration', () => {
    const r = spawnSync('haproxy', ['-c', '-f', 'deploy/haproxy.cfg'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
