// Builds the server into plain JavaScript that `node` runs alone: apps/server/dist.
//
//   dist/main.js               apps/server/src/server.ts and everything it imports from apps/server/src and the
//                              @racebeacon/domain workspace, bundled (ESM, node20, source map beside it);
//                              every other package stays an `import` resolved from node_modules at run time.
//   dist/<path>-worker.js      each apps/server/src/**/*-worker.ts (worker-thread entries loaded by path), at the
//                              same relative path as its source.
//   dist/server.js             the entry: turns source maps on, then imports main.js (Node reads a file's source
//                              map when it loads the file, so the switch must come before the bundle loads).
//
// Paths the sources compute from `import.meta.url` (the migrations in apps/server/drizzle, the web app in
// apps/web/dist, the worker next to its starter) keep working unchanged: in the bundle each module's
// `import.meta.url` is rewritten to the URL its source would have if dist/ mirrored src/ (the starter of
// courses/gpx-worker.js thinks it is dist/courses/gpx-off-thread.js), so `new URL('../../drizzle', …)` still lands on
// apps/server/drizzle from any folder depth, in the checkout and in the image alike.
//
// The build fails when the bundle imports a package that is not a runtime dependency of the server or the domain
// package (it would be missing after `npm ci --omit=dev`).
import { builtinModules } from 'node:module';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const serverDir = path.join(root, 'apps/server');
const srcDir = path.join(serverDir, 'src');
const distDir = path.join(serverDir, 'dist');
const WORKSPACE_PREFIX = '@racebeacon/';

const started = performance.now();

/** Worker entries: any `*-worker.ts` under src, wherever the feature modules put it. */
function findWorkers(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findWorkers(p));
    else if (/-worker\.ts$/.test(entry.name)) found.push(p);
  }
  return found;
}

/** Where a source file "is" once built: apps/server/src/x/y.ts → apps/server/dist/x/y.js; elsewhere .ts → .js. */
function builtLocation(file) {
  const rel = path.relative(srcDir, file);
  const mirrored = rel.startsWith('..') || path.isAbsolute(rel) ? file : path.join(distDir, rel);
  return mirrored.replace(/\.(m|c)?tsx?$/, '.js');
}

/** Bare imports (packages) stay external, except the workspace packages, which are bundled in. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith(WORKSPACE_PREFIX)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Rewrites `import.meta.url` per module to its mirrored location, relative to the output file being built. */
function mirroredImportMetaUrl(outfile) {
  const outDir = path.dirname(outfile);
  return {
    name: 'mirrored-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.(m|c)?tsx?$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const rel = path.relative(outDir, builtLocation(args.path)).split(path.sep).join('/');
        const spec = rel.startsWith('.') ? rel : `./${rel}`;
        const contents = source.replace(
          /\bimport\.meta\.url\b/g,
          `new URL(${JSON.stringify(spec)}, import.meta.url).href`,
        );
        return {
          contents,
          loader: args.path.endsWith('x') ? 'tsx' : 'ts',
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}

/** Packages the built server may import: node built-ins and the runtime dependencies of server and domain. */
function allowedPackages() {
  const deps = new Set();
  for (const pkg of ['apps/server/package.json', 'packages/domain/package.json']) {
    const json = JSON.parse(readFileSync(path.join(root, pkg), 'utf8'));
    for (const name of Object.keys(json.dependencies ?? {})) deps.add(name);
  }
  return deps;
}

function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

async function bundle(entry, outfile) {
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // The image has no src/: stack traces and debuggers read the sources from the map.
    sourcesContent: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [externalPackages, mirroredImportMetaUrl(outfile)],
  });
  return result.metafile;
}

rmSync(distDir, { recursive: true, force: true });
mkdirSync(distDir, { recursive: true });

const entries = [
  { entry: path.join(srcDir, 'server.ts'), outfile: path.join(distDir, 'main.js') },
  ...findWorkers(srcDir).map((entry) => ({ entry, outfile: builtLocation(entry) })),
];
const metafiles = await Promise.all(entries.map(({ entry, outfile }) => bundle(entry, outfile)));

// Every external import must be a node built-in or a runtime dependency.
const builtins = new Set(builtinModules);
const allowed = allowedPackages();
const problems = new Set();
for (const meta of metafiles) {
  for (const [file, output] of Object.entries(meta.outputs)) {
    for (const imp of output.imports ?? []) {
      if (!imp.external) continue;
      const spec = imp.path.replace(/^node:/, '');
      if (builtins.has(spec) || builtins.has(spec.split('/')[0])) continue;
      const name = packageName(imp.path);
      if (!allowed.has(name)) problems.add(`${file} imports "${imp.path}", not a runtime dependency`);
    }
  }
}
if (problems.size) {
  console.error(
    [...problems].join('\n') +
      '\nAdd it to "dependencies" of apps/server (or packages/domain), or keep it out of the server.',
  );
  process.exit(1);
}

writeFileSync(
  path.join(distDir, 'server.js'),
  [
    '// RaceBeacon server entry (generated by scripts/build-server.mjs): source maps first, then the bundle.',
    'process.setSourceMapsEnabled(true);',
    "await import('./main.js');",
    '',
  ].join('\n'),
);

const size = (f) => (readFileSync(f).length / 1024).toFixed(0);
const ms = Math.round(performance.now() - started);
console.log(
  `server built in ${ms} ms: ` +
    entries.map(({ outfile }) => `${path.relative(root, outfile)} (${size(outfile)} KB)`).join(', ') +
    ' + dist/server.js',
);
if (!existsSync(path.join(serverDir, 'drizzle', 'meta', '_journal.json'))) {
  console.error('apps/server/drizzle/meta/_journal.json missing: the server reads its migrations from there');
  process.exit(1);
}
