#!/usr/bin/env node
/**
 * The station as it runs in the field: tsc's dist/src bundled by esbuild into one self-contained
 * file per entry point (what a mode loads on demand is in it, evaluated on first import).
 *
 *   node scripts/app/build.mjs [--out DIR] [--dist DIR] [--metafile FILE] [--entry NAME=FILE ...] [--readable]
 *
 * --readable: not minified, each module's code under a `// path` comment (for reading a CPU
 * profile by module); never what ships.
 *
 * `npm run build` writes app/ from tsc's dist/; the release bundle (scripts/bundle/build.sh) its
 * own from a clean tsc output (--dist); the bench builds its station children the same way (--entry).
 *
 *   DIR/main.js            `pickup-station`: dispatches to its mode's file
 *   DIR/safe-state.js, demo.js, sim-server.js, fleet.js, reload.js, usb-policy.js   the other modes
 *   DIR/daemon.js          the daemon mode's loader: compiles DIR/daemon.cjs (the daemon, CommonJS)
 *                          with the V8 code cache of an earlier start (src/boot/code-cache.ts)
 *   DIR/stationctl.js      `stationctl`
 *   DIR/page/technician.html, technician.js, technician.css   the technician page, read by src/technician/page.ts
 *   DIR/page/kiosk.js, kiosk.css   the kiosk page's script and style, read by src/devices/kiosk/page.ts
 *
 * Why (docs/decisions/0043, 0044): a fresh process spent most of its start resolving, reading
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
import { builtinModules } from 'node:module';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Packages resolved at run time from node_modules: native addons and their loaders; prom-client,
 * which the metrics load only after the station reported in (src/metrics/service.ts): bundled, its
 * ~100 KB (with @opentelemetry/api) would be compiled at every start for nothing.
 */
export const EXTERNAL = ['serialport', '@serialport/*', 'node-hid', 'onoff', 'epoll', 'i2c-bus', 'pino-pretty', 'prom-client'];

/**
 * Dependencies that only an unused option needs, each replaced, for one importer's imports only, by
 * a facade that loads the real thing the first time it is used. Behaviour is unchanged if it ever
 * is. `external`: the facade requires the package from the release's node_modules at that moment
 * (its code is not in the bundle); otherwise the facade's require() is bundled and esbuild evaluates
 * the module lazily, at that require(). Built-ins are always required at that moment.
 *
 * Measured (bench, start -> first /state): the packages and built-ins below loaded before the first
 * /state cost ~45 ms (http2-wrapper, cacheable-request) and ~4 ms (the rest) per start.
 */
const GOT = /[\\/]node_modules[\\/]got[\\/]/;
const lazyModules = [
  // got/core/options.js: `http2wrapper.auto` and `http2wrapper.globalAgent`, read only with http2: true.
  {
    importer: GOT,
    specifier: 'http2-wrapper',
    external: true,
    contents: `
    let real;
    const load = () => (real ??= require('http2-wrapper'));
    export default {
      get auto() { return load().auto; },
      get globalAgent() { return load().globalAgent; },
    };`,
  },
  // got/core/index.js: `new CacheableRequest(...)` only with the cache option; `error instanceof
  // CacheError` on every failed request (false until the real module exists: none of its errors can).
  {
    importer: GOT,
    specifier: 'cacheable-request',
    external: true,
    contents: `
    let real;
    const load = () => (real ??= require('cacheable-request'));
    export default function CacheableRequest(...args) { return new (load().default)(...args); }
    export class CacheError extends Error {
      static [Symbol.hasInstance](value) { return real !== undefined && value instanceof real.CacheError; }
    }`,
  },
  // got/core/options.js: `new CacheableLookup()` only with dnsCache: true. It loads node:dns (and
  // c-ares reads resolv.conf) and node:os.
  {
    importer: GOT,
    specifier: 'cacheable-lookup',
    contents: `
    export default function CacheableLookup(...args) { return new (require('cacheable-lookup').default)(...args); }`,
  },
  // got/core/index.js: decompressResponse(response) only with decompress: true (the protocol client
  // sets false). It loads node:zlib.
  {
    importer: GOT,
    specifier: 'decompress-response',
    contents: `
    export default function decompressResponse(response) { return require('decompress-response').default(response); }`,
  },
  // got/core/options.js: `https.request` for an https: URL only (node:https loads node:tls).
  {
    importer: GOT,
    specifier: 'node:https',
    contents: `
    export default new Proxy({}, { get: (_, key) => require('node:https')[key] });`,
  },
  // got/core/options.js: its default checkServerIdentity, handed to every request, called by
  // node:tls on an https: connection only.
  {
    importer: GOT,
    specifier: 'node:tls',
    contents: `
    export function checkServerIdentity(hostname, cert) { return require('node:tls').checkServerIdentity(hostname, cert); }`,
  },
  // got (core/index.js, core/options.js): `import process from 'node:process'`, the global object
  // itself. A default import of a CommonJS module is a copy of its exports (esbuild's __toESM: a
  // getter per property, ~80 for process: 0.45 ms each time, at load).
  {
    importer: GOT,
    specifier: 'node:process',
    contents: `
    export default process;`,
  },
  // pino/lib/transport.js: `new ThreadStream(...)` for pino's worker-thread transports only (the
  // station logs to stdout). It loads node:assert and a worker's plumbing.
  {
    importer: /[\\/]node_modules[\\/]pino[\\/]lib[\\/]transport\.js$/,
    specifier: 'thread-stream',
    contents: `
    module.exports = function ThreadStream(...args) { return new (require('thread-stream'))(...args); };`,
  },
  // sonic-boom (pino's stdout writer): assert() in one check of an option the station never sets.
  {
    importer: /[\\/]node_modules[\\/]sonic-boom[\\/]index\.js$/,
    specifier: 'assert',
    contents: `
    module.exports = function assert(value, message) { return require('node:assert')(value, message); };`,
  },
];

const lazyPlugin = {
  name: 'lazy-dependencies',
  setup(b) {
    const escape = (t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const filter = new RegExp(`^(${[...new Set(lazyModules.map((m) => escape(m.specifier)))].join('|')})$`);
    const find = (path, importer) => lazyModules.findIndex((m) => m.specifier === path && m.importer.test(importer));
    b.onResolve({ filter }, (args) => {
      if (args.namespace === 'lazy') {
        // A facade's own require() of the real thing: from node_modules at run time, or bundled (lazily evaluated).
        const facade = lazyModules[Number(args.importer)];
        return facade.external === true || BUILTINS.has(args.path) ? { path: args.path, external: true } : undefined;
      }
      const i = find(args.path, args.importer);
      return i < 0 ? undefined : { path: String(i), namespace: 'lazy' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({ contents: lazyModules[Number(args.path)].contents, loader: 'js', resolveDir: join(ROOT, 'node_modules/got') }));
  },
};

/**
 * Module-level work in dependencies that only an error message or an unused option needs, made lazy. Each entry names
 * the file, the exact text and its replacement; the build fails when the text is gone (the
 * dependency changed: look again), so nothing is silently left eager or patched wrongly.
 *
 * @sindresorhus/is (got's type checks) builds two Intl.ListFormat at load, for the wording of an
 * assertion error: the first Intl object of the process initializes ICU, ~7 ms of CPU per start
 * (measured) and pages of ICU data in RSS.
 */
const deferredAtLoad = [
  // pino reads worker_threads' isMainThread at load, for a stream that is not sync (the station's
  // stdout is): loading worker_threads (a worker's plumbing, ~0.5 ms) for a flag it never reads.
  {
    file: /[\\/]node_modules[\\/]pino[\\/]lib[\\/]tools\.js$/,
    edits: [
      ["const { isMainThread } = require('worker_threads')", "const isMainThread = () => require('worker_threads').isMainThread"],
      ['if (!opts.sync && isMainThread) {', 'if (!opts.sync && isMainThread()) {'],
    ],
  },
  {
    file: /[\\/]node_modules[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/,
    edits: [
      [
        "const andFormatter = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });\nconst orFormatter = new Intl.ListFormat('en', { style: 'long', type: 'disjunction' });",
        "let andFormatterCache, orFormatterCache;\nconst andFormatter = { format: (list) => (andFormatterCache ??= new Intl.ListFormat('en', { style: 'long', type: 'conjunction' })).format(list) };\nconst orFormatter = { format: (list) => (orFormatterCache ??= new Intl.ListFormat('en', { style: 'long', type: 'disjunction' })).format(list) };",
      ],
    ],
  },
];

const deferredAtLoadPlugin = {
  name: 'deferred-at-load',
  setup(b) {
    for (const { file, edits } of deferredAtLoad) {
      b.onLoad({ filter: file }, (args) => {
        let text = readFileSync(args.path, 'utf8');
        for (const [from, to] of edits) {
          if (!text.includes(from)) throw new Error(`scripts/app/build.mjs: ${args.path} no longer contains the text deferredAtLoad replaces; review the edit`);
          text = text.replace(from, to);
        }
        return { contents: text, loader: 'js' };
      });
    }
  },
};

/**
 * Every `import` of a Node built-in or an external package becomes a `require()`, evaluated when
 * the importing module is (see MODES: lazily, for what a mode loads on demand):
 * - an ESM import of a built-in makes Node build an ES module facade (a copy of every export) the
 *   first time; the station imports ~20 built-ins before its first /state, measured ~2x faster to
 *   load through require();
 * - an ESM import of an external would be hoisted to the top of the output file: serialport and
 *   node-hid would load with every start, simulated or not.
 */
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isExternal = (path) => EXTERNAL.some((e) => (e.endsWith('/*') ? path.startsWith(e.slice(0, -1)) : path === e || path.startsWith(`${e}/`)));
const importsByRequirePlugin = {
  name: 'imports-by-require',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'import-statement' && (BUILTINS.has(args.path) || isExternal(args.path)) ? { path: args.path, namespace: 'by-require' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'by-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * The modes of `pickup-station` (src/main.ts imports each one dynamically): one output file each,
 * so a start loads main.js and its mode's file and nothing else. main.js's dynamic imports are
 * pointed at those files.
 */
const MODES = {
  // The daemon's file loads daemon.cjs through the V8 code cache (src/boot/code-cache.ts).
  './daemon.js': { name: 'daemon', source: 'dist/src/boot/daemon-entry.js' },
  './devices/gpio/safe-state-cli.js': { name: 'safe-state', source: 'dist/src/devices/gpio/safe-state-cli.js' },
  './demo/run.js': { name: 'demo', source: 'dist/src/demo/run.js' },
  './reference-server/cli.js': { name: 'sim-server', source: 'dist/src/reference-server/cli.js' },
  './fleet/cli.js': { name: 'fleet', source: 'dist/src/fleet/cli.js' },
  './service/reload-command.js': { name: 'reload', source: 'dist/src/service/reload-command.js' },
  './devices/usb/policy-cli.js': { name: 'usb-policy', source: 'dist/src/devices/usb/policy-cli.js' },
};

/** The release's entry points (tsc output): main, its modes, stationctl. */
export const ENTRIES = {
  main: 'dist/src/main.js',
  stationctl: 'dist/src/cli/stationctl.js',
  ...Object.fromEntries(Object.values(MODES).map((m) => [m.name, m.source])),
};

/**
 * Built as CommonJS, DIR/<name>.cjs, for src/boot/code-cache.ts to compile with a V8 code cache
 * (vm.Script runs scripts, not ES modules). Only that loader runs them: `import.meta.url` becomes
 * its parameter __pickupModuleUrl, and dynamic imports become require() (vm.Script has no module
 * loader for import()).
 */
export const COMMONJS_ENTRIES = {
  daemon: 'dist/src/daemon.js',
};

const modesPlugin = {
  name: 'modes-as-files',
  setup(b) {
    b.onResolve({ filter: /^\.\// }, (args) => {
      const mode = args.kind === 'dynamic-import' && /[\\/]src[\\/]main\.js$/.test(args.importer) ? MODES[args.path] : undefined;
      return mode === undefined ? undefined : { path: `./${mode.name}.js`, external: true };
    });
  },
};

/**
 * `dist`: the folder holding tsc's src/ output (default the repository's dist/); `entries` are
 * relative to it. Packages resolve from the node_modules above it.
 */
export async function buildApp({ out, dist = join(ROOT, 'dist'), metafile = null, entries = ENTRIES, commonJsEntries = entries === ENTRIES ? COMMONJS_ENTRIES : {}, readable = false }) {
  rmSync(out, { recursive: true, force: true });
  const entryPoints = (list) => Object.fromEntries(Object.entries(list).map(([name, file]) => [name, resolve(dist, file.replace(/^dist\//, ''))]));
  const common = {
    absWorkingDir: ROOT,
    outdir: out,
    bundle: true,
    // No shared chunks: each entry is one self-contained file (code the entries share is in each).
    // What a file loads on demand (the technician port, the board drivers, ...) is evaluated on
    // first import, not at start: esbuild wraps such modules in a lazy initializer.
    splitting: false,
    platform: 'node',
    target: 'node20.11',
    external: EXTERNAL,
    plugins: [modesPlugin, lazyPlugin, deferredAtLoadPlugin, importsByRequirePlugin],
    // Whitespace and syntax only: identifiers keep their names, so stack traces in the journal stay readable.
    minifyWhitespace: !readable,
    minifySyntax: !readable,
    legalComments: 'linked',
    metafile: metafile !== null,
    logLevel: 'warning',
  };
  const esm = await build({
    ...common,
    entryPoints: entryPoints(entries),
    format: 'esm',
    // CommonJS dependencies (pino, its helpers) and the plugin above require Node built-ins: give every output file a real require.
    banner: { js: "import { createRequire as __pickupCreateRequire } from 'node:module';\nconst require = __pickupCreateRequire(import.meta.url);" },
  });
  const cjs = Object.keys(commonJsEntries).length === 0 ? null : await buildCommonJs(common, entryPoints(commonJsEntries), dist);
  mkdirSync(join(out, 'page'), { recursive: true });
  for (const f of ['technician.html', 'technician.js', 'technician.css']) cpSync(join(ROOT, 'src/technician/page', f), join(out, 'page', f));
  for (const f of ['kiosk.js', 'kiosk.css']) cpSync(join(ROOT, 'src/devices/kiosk/page', f), join(out, 'page', f));
  const meta = { inputs: { ...esm.metafile?.inputs, ...cjs?.metafile?.inputs }, outputs: { ...esm.metafile?.outputs, ...cjs?.metafile?.outputs } };
  if (metafile !== null) writeFileSync(metafile, JSON.stringify(meta));
  return { esm, cjs, metafile: metafile !== null ? meta : undefined };
}

/** The CommonJS outputs, DIR/<name>.cjs, that src/boot/code-cache.ts compiles (see COMMONJS_ENTRIES). */
async function buildCommonJs(common, entryPoints, dist) {
  // Around each: the function expression the loader compiles, as the loader defines it.
  const { COMMONJS_WRAPPER_START, COMMONJS_WRAPPER_END } = await import(pathToFileURL(join(dist, 'src/boot/code-cache.js')).href);
  return build({
    ...common,
    entryPoints,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    define: { 'import.meta.url': '__pickupModuleUrl' },
    supported: { 'dynamic-import': false },
    // The loader compiles the file as it is: a function of the CommonJS arguments (no copy of
    // the source to wrap it), ASCII only (read as latin1: no UTF-8 decoding).
    banner: { js: COMMONJS_WRAPPER_START },
    footer: { js: COMMONJS_WRAPPER_END },
    charset: 'ascii',
    // In a CommonJS file a require() runs where the module is initialized (lazily for what the
    // daemon loads on demand), so the ESM build's imports-by-require plugin is not needed; and
    // without it named imports of built-ins read the module object instead of a copy of it.
    plugins: [modesPlugin, lazyPlugin, deferredAtLoadPlugin],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, dist: { type: 'string' }, metafile: { type: 'string' }, entry: { type: 'string', multiple: true }, readable: { type: 'boolean' } }, strict: true });
  const entries = values.entry === undefined ? ENTRIES : Object.fromEntries(values.entry.map((e) => [e.slice(0, e.indexOf('=')), resolve(e.slice(e.indexOf('=') + 1))]));
  await buildApp({ out: resolve(values.out ?? join(ROOT, 'app')), dist: resolve(values.dist ?? join(ROOT, 'dist')), metafile: values.metafile ?? null, entries, readable: values.readable === true });
}
