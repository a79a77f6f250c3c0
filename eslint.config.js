// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** src/schema.ts re-exports zod/mini, whose `z` export is all of it: import it as a namespace. */
const SCHEMA_NAMESPACE = {
  selector: "ImportDeclaration[source.value=/(^|\\/)schema\\.js$/] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
  message: "use import * as z from '<path>/schema.js' (tree-shaking; docs/decisions/0044)",
};

/**
 * The one sleep (src/time.ts, docs/decisions/0078): a promise made only to wait for a timer, and
 * Node's promise timers, are refused everywhere else in src/.
 */
export const ONE_SLEEP_SYNTAX = [
  "NewExpression[callee.name='Promise'] > :function > CallExpression[callee.name='setTimeout']",
  "NewExpression[callee.name='Promise'] > :function > BlockStatement[body.length=1] > ExpressionStatement > CallExpression[callee.name='setTimeout']",
].map((selector) => ({ selector, message: 'a promise made only to wait: use sleep() from src/time.ts, the one sleep (docs/decisions/0078)' }));
export const ONE_SLEEP_IMPORTS = ['node:timers/promises', 'timers/promises'].map((name) => ({
  name,
  message: 'use sleep() or settlesWithin() from src/time.ts, the one sleep and bounded wait (docs/decisions/0078)',
}));

/**
 * One way to wait (src/time.ts, docs/decisions/0155): a loop that awaits sleep() polls for a
 * condition (or retries on a schedule of its own). A condition is waited for with waitUntil, woken
 * by the events that can make it hold; a retry pauses with Backoff. The few loops that pace
 * hardware or another process's file say why at their line (eslint-disable with a description).
 */
export const ONE_WAIT_SYNTAX = [
  ":matches(ForStatement, ForOfStatement, ForInStatement, WhileStatement, DoWhileStatement) AwaitExpression > CallExpression[callee.name='sleep']",
].map((selector) => ({
  selector,
  message: 'await sleep() inside a loop polls: wait with waitUntil() (woken by events) or retry with Backoff, src/time.ts (docs/decisions/0155)',
}));

/** One exit (src/exit.ts, docs/decisions/0133, 0156): process.exit skips the releases exitProcess makes first. */
export const ONE_EXIT_SYNTAX = [
  {
    selector: "MemberExpression[object.name='process'][property.name='exit']",
    message: 'end the process with exitProcess() from src/exit.ts: it lets the pool threads go first (docs/decisions/0133, 0156)',
  },
];

/**
 * One retry schedule (Backoff in src/time.ts, docs/decisions/0156): a delay grown by a power, or
 * multiplied and capped in an assignment, is a backoff of its own.
 */
export const ONE_BACKOFF_SYNTAX = [
  "BinaryExpression[operator='**']",
  "CallExpression[callee.object.name='Math'][callee.property.name='pow']",
  "AssignmentExpression[operator='*=']",
  "AssignmentExpression > CallExpression[callee.object.name='Math'][callee.property.name='min'] > BinaryExpression[operator='*']",
].map((selector) => ({ selector, message: 'a growing delay is a retry schedule: use Backoff from src/time.ts, the one (docs/decisions/0156)' }));

/** Every rule of syntax src/ keeps; a file that is the one place of a thing drops that thing's rule below. */
export const SRC_SYNTAX = [SCHEMA_NAMESPACE, ...ONE_SLEEP_SYNTAX, ...ONE_WAIT_SYNTAX, ...ONE_EXIT_SYNTAX, ...ONE_BACKOFF_SYNTAX];

/** Schemas are built with src/schema.ts, which chooses zod's dialect and makes its settings first. */
const ZOD_THROUGH_SCHEMA = {
  regex: '^zod($|/)',
  message: "build schemas with import * as z from '<path>/schema.js' (src/schema.ts, docs/decisions/0067)",
};

/**
 * The layers of src/, from the bottom up (ARCHITECTURE.md, "Layers"): a file imports only from its
 * own layer and the layers below it — values, types, re-exports and import() alike. A file's layer
 * is the first row one of whose patterns matches it, so a row may claim single files out of a
 * folder that a later row takes whole (the device contract out of src/devices/). Every file of
 * src/ must match a row (test/unit/layers-zones.test.ts).
 */
export const LAYERS = [
  {
    layer: 'base',
    what: "leaf modules every layer may use: errors, the schema builder, ids, version, monotonic time, identifiers' masking, the logger",
    files: [
      'src/errors.ts',
      'src/schema.ts',
      'src/uuid.ts',
      'src/version.ts',
      'src/release-info.ts',
      'src/time.ts',
      'src/exit.ts',
      'src/mask.ts',
      'src/log.ts',
      'src/http-json.ts',
    ],
  },
  {
    layer: 'contracts',
    what: "the shapes both sides of a boundary agree on: devices, protocol, journal, the PIN throttle's store, the station's texts",
    files: [
      'src/devices/types.ts',
      'src/protocol/types.ts',
      'src/protocol/shapes.ts',
      'src/journal/types.ts',
      'src/storage/types.ts',
      'src/config/messages.ts',
    ],
  },
  {
    layer: 'core contract',
    what: "the core's inputs, effects, state and config, built from the contracts below",
    files: ['src/station/core-types.ts'],
  },
  { layer: 'pure core', what: 'every rule of the station', files: ['src/station/core.ts', 'src/station/core/**'] },
  {
    layer: 'config',
    what: 'the one schema, its section schemas beside their owners, the loader and its problems',
    files: [
      'src/config/**',
      'src/edge/limits-schema.ts',
      'src/devices/board-config.ts',
      'src/devices/input/schema.ts',
      'src/devices/vocabulary/line-schema.ts',
      'src/devices/vocabulary/keys.ts',
      'src/devices/rfid/schema.ts',
      'src/devices/gpio/line-schema.ts',
      'src/devices/usb/schema.ts',
      'src/devices/usb/policy.ts',
      'src/metrics/config.ts',
      'src/portal/config.ts',
    ],
  },
  {
    layer: 'edge',
    what: 'what every HTTP port of the station checks and bounds before its routes: connection caps, refusal summaries, event streams with backpressure, Host/Origin, bodies, time-outs',
    files: ['src/edge/**'],
  },
  {
    layer: 'adapters',
    what: 'the real and simulated implementations of the contracts, the tokens, the portal client',
    files: ['src/devices/**', 'src/protocol/**', 'src/journal/**', 'src/storage/**', 'src/tokens/**', 'src/portal/**'],
  },
  { layer: 'station', what: 'the runtime that carries effects out; startStation()', files: ['src/station/**', 'src/app.ts'] },
  { layer: 'supervisor', what: 'the owner of the running station', files: ['src/supervisor/**'] },
  {
    layer: 'clients',
    what: "the technician port, the service manager's side (service/), metrics, the board's SBOM",
    files: ['src/technician/**', 'src/service/**', 'src/metrics/**', 'src/sbom/**'],
  },
  {
    layer: 'entry points',
    what: 'wiring and command lines',
    files: [
      'src/supervised.ts',
      'src/main.ts',
      'src/daemon.ts',
      'src/lifecycle.ts',
      'src/boot/**',
      'src/cli/**',
      'src/demo/**',
      'src/fleet/**',
      'src/reference-server/**',
    ],
  },
];

const ROOT = import.meta.dirname;

/** The pure core's files (ARCHITECTURE.md, "Rules of the house"). */
export const CORE_FILES = ['src/station/core.ts', 'src/station/core/**', 'src/station/core-types.ts'];

/**
 * The pure core's allow-list: the only files it may import values from (and re-export), as paths
 * relative to the repository ('dir/*' is every file of that folder). Types may come from anywhere:
 * they are gone at run time. Not a package, not a Node module, not a file outside this list, and
 * no import() (the core is synchronous). Record 0159.
 */
export const CORE_ALLOWED = ['src/station/core.ts', 'src/station/core/*', 'src/station/core-types.ts', 'src/protocol/types.ts', 'src/mask.ts'];

/**
 * Whether `file` (relative to the repository, '.ts') is on CORE_ALLOWED.
 * @param {string} file
 */
const coreMayImport = (file) =>
  CORE_ALLOWED.some((p) => (p.endsWith('/*') ? file.startsWith(p.slice(0, -1)) && !file.slice(p.length - 1).includes('/') : file === p));

/**
 * The eslint rule that keeps the pure core to its allow-list (planted files in
 * test/unit/lint-core-imports.test.ts show it fail).
 * @type {import('eslint').Rule.RuleModule}
 */
const coreImportsRule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { refused: "the pure core imports values only from {{allowed}}; '{{source}}' is not on that list (types: `import type`)" },
  },
  create(context) {
    const here = relative(ROOT, context.filename);
    /** @param {import('estree').Node} node @param {string} source */
    const check = (node, source) => {
      const target = source.startsWith('.') ? relative(ROOT, resolve(dirname(context.filename), source)).replace(/\.js$/, '.ts') : null;
      if (target === null || !coreMayImport(target)) context.report({ node, messageId: 'refused', data: { source, allowed: CORE_ALLOWED.join(', ') } });
    };
    /** @typedef {{ importKind?: string, exportKind?: string }} Kinds */
    /** @param {Kinds & { specifiers?: Kinds[] }} node */
    const typeOnly = (node) =>
      node.importKind === 'type' ||
      node.exportKind === 'type' ||
      (node.specifiers !== undefined && node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
    return here.startsWith('..')
      ? {}
      : {
          ImportDeclaration: (node) => void (typeOnly(node) ? undefined : check(node, String(node.source.value))),
          ExportNamedDeclaration: (node) => void (node.source == null || typeOnly(node) ? undefined : check(node, String(node.source.value))),
          ExportAllDeclaration: (node) => void (typeOnly(node) ? undefined : check(node, String(node.source.value))),
          ImportExpression: (node) => context.report({ node, messageId: 'refused', data: { source: 'import()', allowed: CORE_ALLOWED.join(', ') } }),
        };
  },
};

/** The pure core's rules: its import allow-list, and no timer, clock or process (also used by the planted-file test). */
export const coreConfig = {
  files: CORE_FILES,
  plugins: { 'pickup-core': { rules: { imports: coreImportsRule } } },
  rules: {
    'pickup-core/imports': 'error',
    'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'performance', 'Date', 'process'],
  },
};

/**
 * A row's pattern ('dir/**' or a file) as a test of a path relative to the repository.
 * @param {string} pattern
 * @param {string} file
 */
const matches = (pattern, file) => (pattern.endsWith('/**') ? file.startsWith(pattern.slice(0, -2)) : file === pattern);

/**
 * The layer of a path relative to the repository ('src/…'), or undefined when no row claims it.
 * @param {string} file
 * @returns {string | undefined}
 */
export function layerOf(file) {
  return LAYERS.find((row) => row.files.some((p) => matches(p, file)))?.layer;
}

/**
 * Every .ts file of src/ (the technician page is static assets), relative to the repository.
 * @returns {string[]}
 */
export function sourceFiles(root = ROOT) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (path !== 'src/technician/page') walk(path);
      } else if (e.name.endsWith('.ts')) out.push(path);
    }
  };
  walk('src');
  return out.sort();
}

/**
 * The table as import-x/no-restricted-paths zones: per layer, its files may not import any file of
 * a layer above. Files are listed one by one (absolute paths), because a row may take single files
 * out of a folder that a later row claims, which the rule's globs cannot say.
 */
export function layerZones(root = ROOT, files = sourceFiles(root)) {
  /** @type {Map<string, string[]>} */
  const byLayer = new Map(LAYERS.map((row) => [row.layer, []]));
  for (const f of files) {
    const layer = layerOf(f);
    if (layer === undefined) throw new Error(`${f} is in no layer: add it to LAYERS in eslint.config.js (and ARCHITECTURE.md's table)`);
    byLayer.get(layer)?.push(resolve(root, f));
  }
  return LAYERS.flatMap((row, i) => {
    const above = LAYERS.slice(i + 1);
    const target = byLayer.get(row.layer) ?? [];
    const from = above.flatMap((a) => byLayer.get(a.layer) ?? []);
    if (target.length === 0 || from.length === 0) return [];
    return [
      {
        target,
        from,
        message: `a ${row.layer} file imports only from its layer and the ones below (${above.map((a) => a.layer).join(', ')} are above; ARCHITECTURE.md, layers)`,
      },
    ];
  });
}

/** The eslint config block that keeps the layers (also used by the test that plants violations). */
export function layersConfig(root = ROOT, files = sourceFiles(root)) {
  return {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: root, zones: layerZones(root, files) }] },
  };
}

export default tseslint.config(
  {
    ignores: ['dist/', 'app/', 'bench/out/', 'node_modules/', 'coverage/', 'test-artifacts/', '.rig/', '.board/', 'release/', '.cache/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'test/hw/*.mjs', 'test/support/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // One schema builder for the whole code base: src/schema.ts chooses zod's dialect and makes its
    // settings (English messages, jitless) before any schema is built (docs/decisions/0067).
    files: ['src/**'],
    rules: {
      'no-restricted-syntax': ['error', ...SRC_SYNTAX],
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [ZOD_THROUGH_SCHEMA], paths: ONE_SLEEP_IMPORTS }],
    },
  },
  {
    // The one sleep and the one retry schedule themselves.
    files: ['src/time.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SRC_SYNTAX.filter((r) => !ONE_SLEEP_SYNTAX.includes(r) && !ONE_BACKOFF_SYNTAX.includes(r))] },
  },
  {
    // The one exit itself.
    files: ['src/exit.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SRC_SYNTAX.filter((r) => !ONE_EXIT_SYNTAX.includes(r))] },
  },
  // The pure core: values only from its allow-list, types from anywhere; no timers, no clock.
  coreConfig,
  {
    // The one module that imports zod itself, to choose the dialect and make its settings.
    files: ['src/schema.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  layersConfig(),
  {
    // CLI entry points and the demo terminal talk to a person on stdout by design.
    files: ['src/cli/**', 'src/demo/**', 'bench/**', 'src/main.ts', 'systemd/**', 'scripts/**', 'packaging/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Release bundle scripts: plain .mjs run by the host's (or the board's) node without a build
    // step, outside the TypeScript project, so linted without type information.
    files: ['scripts/**/*.mjs', 'packaging/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { project: false, projectService: false, program: null },
      sourceType: 'module',
      globals: Object.fromEntries(['console', 'process', 'performance', 'fetch', 'URL', 'setTimeout', 'clearTimeout'].map((g) => [g, 'readonly'])),
    },
  },
  {
    // The pages' scripts run in the browser: tsc checks their names against the DOM
    // (src/devices/kiosk/page/tsconfig.json, src/technician/page/tsconfig.json, `npm run check`),
    // which no-undef cannot know. They cannot import src/time.ts either: their waits are the
    // browser's own timers.
    files: ['src/devices/kiosk/page/*.js', 'src/technician/page/*.js'],
    rules: { 'no-undef': 'off', 'no-restricted-syntax': ['error', SCHEMA_NAMESPACE] },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
);
