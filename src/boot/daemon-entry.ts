/**
 * The bundled app's `daemon.js` (scripts/app/build.mjs): the daemon itself is `daemon.cjs` beside
 * it, loaded through the V8 code cache in NODE_COMPILE_CACHE's folder (code-cache.ts). Never used
 * from tsc's dist/, where main.ts imports daemon.ts directly.
 */
import { fileURLToPath } from 'node:url';
import { loadCommonJs } from './code-cache.js';
import type * as Daemon from '../daemon.js';

const { exports, codeCache } = loadCommonJs(fileURLToPath(new URL('./daemon.cjs', import.meta.url)), process.env['NODE_COMPILE_CACHE'] || null);
const daemon = exports as unknown as typeof Daemon;

export function runDaemon(args: string[]): Promise<number> {
  return daemon.runDaemon(args, { codeCache });
}
