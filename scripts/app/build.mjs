#!/usr/bin/env node
/**
 * The station as it runs in the field: tsc's dist/src bundled by esbuild into one ESM file per
 * entry point, plus the chunks its dynamic imports load on demand.
 *
 *   node scripts/app/build.mjs [--out DIR] [--metafile FILE]      (npm run build:app; DIR default app/)
 *
 *   DIR/main.js            `pickup-station` (daemon, safe-state, demo, sim-server, fleet)
 *   DIR/stationctl.js      `stationctl`
 *   DIR/chunks/*.js        what an entry loads only when needed (the technician port, the board
 *                          drivers, the demo, the portal client, ...): esbuild's code splitting
 *   DIR/page/technician.html   the technician page, read by src/debug/page.ts
 *
 * Why (ARCHITECTURE.md, "Start-up"): a fresh process spent most of its start resolving, reading
 * and compiling ~200 module files; one file per entry removes that. Native addons and the packages
 * that load them stay in node_modules (external): they locate their .node files relative to their
 * own package folder. The output resolves them from the release's node_modules, so DIR must sit in
 * a folder whose node_modules has the production dependencies (the release, or the repository).
 *
 * got is bundled with two of its dependencies made lazy (see lazyModules below): http2-wrapper and
 * cacheable-request serve only got's `http2` and `cache` options, which the station never sets,
 * yet loading them eagerly cost ~45 ms per start (http2-wrapper creates a TLS socket, and so a
 * secure context with every root certificate, while it loads).
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Packages resolved at run time from node_modules: native addons and their loaders. */
export const EXTERNAL = ['serialport', '@serialport/*', 'node-hid', 'onoff', 'epoll', 'pino-pretty'];

/**
 * Dependencies of got that only its unused options need. Each is replaced, for got's own imports
 * only, by a facade that requires the real module (bundled, evaluated on first use) the first time
 * one of its exports is touched. Behaviour is unchanged if the option is ever used.
 */
const lazyModules = {
  // got/core/options.js: `http2wrapper.auto` and `http2wrapper.globalAgent`, read only with http2: true.
  'http2-wrapper': `
    let real;
    const load = () => (real ??= require('http2-wrapper'));
    export default {
      get auto() { return load().auto; },
      get globalAgent() { return load().globalAgent; },
    };`,
  // got/core/index.js: `new CacheableRequest(...)` only with the cache option; `error instanceof
  // CacheError` on every failed request (false until the real module exists: none of its errors can).
  'cacheable-request': `
    let real;
    const load = () => (real ??= require('cacheable-request'));
    export default function CacheableRequest(...args) { return new (load().default)(...args); }
    export class CacheError extends Error {
      static [Symbol.hasInstance](value) { return real !== undefined && value instanceof real.CacheError; }
    }`,
};

const lazyPlugin = {
  name: 'lazy-got-dependencies',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(lazyModules).join('|')})$`);
    b.onResolve({ filter }, (args) => (/[\\/]node_modules[\\/]got[\\/]/.test(args.importer) ? { path: args.path, namespace: 'lazy' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({ contents: lazyModules[args.path], loader: 'js', resolveDir: join(ROOT, 'node_modules/got') }));
  },
};

export async function buildApp({ out, metafile = null }) {
  rmSync(out, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'dist/src/main.js', stationctl: 'dist/src/cli/stationctl.js' },
    outdir: out,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.11',
    external: EXTERNAL,
    plugins: [lazyPlugin],
    // CommonJS dependencies (pino, its helpers) require Node built-ins: give every output file a real require.
    banner: { js: "import { createRequire as __pickupCreateRequire } from 'node:module';\nconst require = __pickupCreateRequire(import.meta.url);" },
    // Whitespace and syntax only: identifiers keep their names, so stack traces in the journal stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'linked',
    metafile: metafile !== null,
    logLevel: 'warning',
  });
  mkdirSync(join(out, 'page'), { recursive: true });
  cpSync(join(ROOT, 'src/debug/page/technician.html'), join(out, 'page/technician.html'));
  if (metafile !== null) writeFileSync(metafile, JSON.stringify(result.metafile));
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, metafile: { type: 'string' } }, strict: true });
  await buildApp({ out: resolve(values.out ?? join(ROOT, 'app')), metafile: values.metafile ?? null });
}
