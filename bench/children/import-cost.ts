/**
 * How long one module graph takes to load in a fresh process: prints {specifier, bootMs, importMs}.
 * bootMs is Node's own start-up before this script runs (performance.now() at the first line).
 *
 *   node import-cost.js SPECIFIER
 */
const bootMs = performance.now();
const specifier = process.argv[2] ?? '';
const t0 = performance.now();
await import(specifier);
const importMs = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ specifier, bootMs, importMs })}\n`);
