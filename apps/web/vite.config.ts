import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The first screen's JavaScript budget: entry chunk plus everything it imports statically. It keeps the first
 * visit fast on a phone at a race venue; heavy code (the live map) belongs in lazy chunks.
 */
const FIRST_SCREEN_BUDGET_KB = 150;

/**
 * Prints the gzipped size of what the browser must download before the first screen renders, and fails the
 * build when it exceeds the budget. Lazy chunks (the live map) are not counted: they load after.
 */
function firstScreenBudget(): Plugin {
  return {
    name: 'first-screen-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map<string, { code: string; imports: string[]; css: string[] }>();
      const css = new Map<string, string>();
      let entry: string | undefined;
      for (const [fileName, item] of Object.entries(bundle)) {
        if (item.type === 'chunk') {
          const importedCss = (item as { viteMetadata?: { importedCss: Set<string> } }).viteMetadata
            ?.importedCss;
          chunks.set(fileName, { code: item.code, imports: item.imports, css: [...(importedCss ?? [])] });
          if (item.isEntry) entry = fileName;
        } else if (fileName.endsWith('.css')) {
          css.set(
            fileName,
            typeof item.source === 'string' ? item.source : Buffer.from(item.source).toString(),
          );
        }
      }
      if (!entry) return;
      const seen = new Set<string>();
      const visit = (name: string) => {
        if (seen.has(name) || !chunks.has(name)) return;
        seen.add(name);
        for (const imp of chunks.get(name)!.imports) visit(imp);
      };
      visit(entry);
      const gz = (s: string) => gzipSync(s, { level: 9 }).length;
      const jsBytes = [...seen].reduce((sum, name) => sum + gz(chunks.get(name)!.code), 0);
      const firstCss = new Set([...seen].flatMap((name) => chunks.get(name)!.css));
      const cssBytes = [...firstCss].reduce((sum, name) => sum + gz(css.get(name) ?? ''), 0);
      const kb = (n: number) => (n / 1024).toFixed(1);
      const line =
        `first-screen JS: ${kb(jsBytes)} KB gzipped in ${seen.size} chunk(s) (budget ${FIRST_SCREEN_BUDGET_KB} KB)` +
        `; CSS: ${kb(cssBytes)} KB gzipped`;
      console.log(`\n${line}`);
      if (jsBytes > FIRST_SCREEN_BUDGET_KB * 1024) {
        this.error(`${line}: over budget. Move heavy code behind React.lazy/import().`);
      }
    },
  };
}

/**
 * Writes a brotli (.br, quality 11) and a gzip (.gz, level 9) copy beside every text file of the build, so the
 * server sends them as they are (@fastify/static preCompressed) instead of compressing each request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    writeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const file = path.join(dir, name);
          return statSync(file).isDirectory() ? walk(file) : [file];
        });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|txt|webmanifest)$/.test(file)) continue;
        const body = readFileSync(file);
        if (body.length < 1024) continue;
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), firstScreenBudget(), precompress()],
  build: { outDir: 'dist', sourcemap: true },
  server: { proxy: { '/api': 'http://localhost:3000', '/oidc': 'http://localhost:3000' } },
});
