/**
 * The daemon's V8 code cache loader (src/boot/code-cache.ts), on real files and V8's real cache:
 * absent -> written -> used; a damaged file, one for other source text and one V8 refuses are never
 * used; caches of older sources are removed when a new one is written. The bundled daemon's use of
 * it is proven in test/e2e/bundle-app.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMONJS_WRAPPER_END, COMMONJS_WRAPPER_START, cacheFileName, loadCommonJs } from '../../src/boot/code-cache.js';

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  cacheDir = join(dir, 'cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A module as the build writes one: the CommonJS function expression, ASCII. */
function writeModule(body: string): string {
  const file = join(dir, 'mod.cjs');
  writeFileSync(file, `${COMMONJS_WRAPPER_START}\n"use strict";\n${body}${COMMONJS_WRAPPER_END}`);
  return file;
}
const BODY = `
function square(n) { return n * n; }
module.exports = { square, url: __pickupModuleUrl, file: __filename, strict: (function () { return this === undefined; })(), path: require('node:path').basename(__dirname) };
`;
const caches = () => readdirSync(cacheDir).filter((n) => n.endsWith('.v8cache'));

describe('loadCommonJs', () => {
  it('without a cache folder: compiled from source, the CommonJS arguments and import.meta.url given, nothing written', async () => {
    const file = writeModule(BODY);
    const { exports, codeCache } = loadCommonJs(file, null);
    expect(exports).toMatchObject({ url: pathToFileURL(file).href, file, strict: true });
    expect((exports['square'] as (n: number) => number)(7)).toBe(49);
    expect(codeCache.use).toBe('off');
    await expect(codeCache.save()).resolves.toBe('off');
  });

  it('absent -> written (name: file, source hash, Node, arch) -> used by the next load -> kept', async () => {
    const file = writeModule(BODY);
    const first = loadCommonJs(file, cacheDir);
    expect(first.codeCache.use).toBe('absent');
    (first.exports['square'] as (n: number) => number)(3); // compiled lazily, so in the cache
    await expect(first.codeCache.save()).resolves.toBe('written');
    expect(caches()).toEqual([cacheFileName(file, readFileSync(file))]);
    expect(caches()[0]).toMatch(new RegExp(`^mod\\.cjs\\.[0-9a-f]{8}\\.${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`));

    const second = loadCommonJs(file, cacheDir);
    expect(second.codeCache.use).toBe('used');
    expect((second.exports['square'] as (n: number) => number)(5)).toBe(25);
    await expect(second.codeCache.save()).resolves.toBe('kept');
  });

  it('a damaged cache file is removed and never handed to V8; the module still loads, and the next save writes a good one', async () => {
    const file = writeModule(BODY);
    await loadCommonJs(file, cacheDir).codeCache.save();
    const cacheFile = join(cacheDir, caches()[0]!);
    const bytes = readFileSync(cacheFile);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(cacheFile, bytes);

    const damaged = loadCommonJs(file, cacheDir);
    expect(damaged.codeCache.use).toBe('damaged');
    expect(caches()).toEqual([]);
    expect((damaged.exports['square'] as (n: number) => number)(4)).toBe(16);
    await expect(damaged.codeCache.save()).resolves.toBe('written');
    expect(loadCommonJs(file, cacheDir).codeCache.use).toBe('used');

    writeFileSync(cacheFile, 'short');
    expect(loadCommonJs(file, cacheDir).codeCache.use).toBe('damaged');
  });

  it('other source text of the same length gets its own cache (V8 itself checks only the length); the old one is removed on save', async () => {
    const file = writeModule(BODY);
    await loadCommonJs(file, cacheDir).codeCache.save();
    const before = caches();
    const changed = writeModule(BODY.replace('n * n', 'n + n'));
    expect(readFileSync(changed).length).toBe(readFileSync(file).length);

    const load = loadCommonJs(changed, cacheDir);
    expect(load.codeCache.use).toBe('absent');
    expect((load.exports['square'] as (n: number) => number)(5)).toBe(10);
    await load.codeCache.save();
    expect(caches()).toHaveLength(1);
    expect(caches()).not.toEqual(before);
  });

  it('a cache V8 refuses (made for other source, its digest intact) is reported as rejected and rewritten', async () => {
    const other = writeModule(`${BODY}\nmodule.exports.extra = 1;\n`);
    await loadCommonJs(other, cacheDir).codeCache.save();
    const otherCache = readFileSync(join(cacheDir, caches()[0]!));
    rmSync(cacheDir, { recursive: true });

    const file = writeModule(BODY);
    const name = cacheFileName(file, readFileSync(file));
    mkdirSync(cacheDir);
    writeFileSync(join(cacheDir, name), otherCache);
    const load = loadCommonJs(file, cacheDir);
    expect(load.codeCache.use).toBe('rejected');
    expect((load.exports['square'] as (n: number) => number)(6)).toBe(36);
    await expect(load.codeCache.save()).resolves.toBe('written');
    expect(loadCommonJs(file, cacheDir).codeCache.use).toBe('used');
  });
});
