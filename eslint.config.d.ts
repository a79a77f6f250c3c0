/** Types of what eslint.config.js exports besides the config itself (its layer table, for the tests). */
import type { Linter } from 'eslint';

export interface LayerRow {
  readonly layer: string;
  readonly what: string;
  readonly files: readonly string[];
}
export declare const LAYERS: readonly LayerRow[];
export declare function layerOf(file: string): string | undefined;
export declare function sourceFiles(root?: string): string[];
export declare function layersConfig(
  root?: string,
  files?: readonly string[],
): Linter.Config & { rules: { 'import-x/no-restricted-paths': [string, { basePath: string; zones: unknown[] }] } };
/** The one sleep's lint: the syntax a promise made only to wait has, and the promise timers' modules. */
export declare const ONE_SLEEP_SYNTAX: readonly { readonly selector: string; readonly message: string }[];
export declare const ONE_SLEEP_IMPORTS: readonly { readonly name: string; readonly message: string }[];
/** One way to wait, one exit, one retry schedule: their syntax rules, and every syntax rule src/ keeps. */
export declare const ONE_WAIT_SYNTAX: readonly { readonly selector: string; readonly message: string }[];
export declare const ONE_EXIT_SYNTAX: readonly { readonly selector: string; readonly message: string }[];
export declare const ONE_BACKOFF_SYNTAX: readonly { readonly selector: string; readonly message: string }[];
export declare const SRC_SYNTAX: readonly { readonly selector: string; readonly message: string }[];
/** The pure core's files, the allow-list it imports values from, and its lint (record 0159). */
export declare const CORE_FILES: readonly string[];
export declare const CORE_ALLOWED: readonly string[];
export declare const coreConfig: Linter.Config;
declare const config: Linter.Config[];
export default config;
