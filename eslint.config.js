// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** src/schema.ts re-exports zod/mini, whose `z` export is all of it: import it as a namespace. */
const SCHEMA_NAMESPACE = {
  selector: "ImportDeclaration[source.value=/(^|\\/)schema\\.js$/] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
  message: "use import * as z from '<path>/schema.js' (tree-shaking; docs/decisions/0044)",
};

/** Schemas are built with src/schema.ts, which chooses zod's dialect and makes its settings first. */
const ZOD_THROUGH_SCHEMA = {
  regex: '^zod($|/)',
  message: "build schemas with import * as z from '<path>/schema.js' (src/schema.ts, docs/decisions/0067)",
};

/** The layers the supervisor builds on never know it or its clients. */
const BELOW_SUPERVISOR = {
  regex: '(^|/)(supervisor/|supervised\\.js$|technician/)',
  message: 'below the supervisor: do not import it or its clients (the technician port)',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'app/',
      'bench/out/',
      'node_modules/',
      'coverage/',
      'test-artifacts/',
      '.rig/',
      '.board/',
      'release/',
      '.cache/',
      'src/technician/page/**',
    ],
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
      'no-restricted-syntax': ['error', SCHEMA_NAMESPACE],
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [ZOD_THROUGH_SCHEMA] }],
    },
  },
  {
    // The pure core: types from anywhere, values only from the pure protocol types and its own
    // files. No device implementation, no got, no pino, no timers, no Node I/O (ARCHITECTURE.md).
    files: ['src/station/core.ts', 'src/station/core/**', 'src/station/core-types.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\.{1,2}/|\\.\\./\\.\\./protocol/types\\.js$|\\.\\./protocol/types\\.js$)',
              message: 'the core imports no package or Node module',
              allowTypeImports: true,
            },
            {
              regex: '^\\.\\./(\\.\\./)?(devices|config|technician|supervisor|protocol/(?!types))',
              message: 'the core imports only types from outside station/',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'performance', 'Date', 'process'],
    },
  },
  {
    // The layers the supervisor builds on never know it or its clients: the supervisor owns the
    // running station, not the other way round (ARCHITECTURE.md, layers).
    files: [
      'src/station/**',
      'src/devices/**',
      'src/config/**',
      'src/protocol/**',
      'src/journal/**',
      'src/storage/**',
      'src/app.ts',
      'src/errors.ts',
      'src/log.ts',
      'src/time.ts',
      'src/schema.ts',
    ],
    ignores: ['src/station/core.ts', 'src/station/core/**', 'src/station/core-types.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [BELOW_SUPERVISOR, ZOD_THROUGH_SCHEMA],
        },
      ],
    },
  },
  {
    // The one module that imports zod itself, to choose the dialect and make its settings.
    files: ['src/schema.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [BELOW_SUPERVISOR] }] },
  },
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
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
);
