import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicWrite, atomicWriteSync } from '../../src/storage/atomic-write.js';

const made: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'atomic-'));
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.each([
  ['atomicWrite', (p: string, d: string, o?: { mode?: number; durable?: boolean }) => atomicWrite(p, d, o)],
  ['atomicWriteSync', (p: string, d: string, o?: { mode?: number; durable?: boolean }) => new Promise<void>((resolve) => resolve(atomicWriteSync(p, d, o)))],
])('%s', (_name, write) => {
  it('creates the file with mode 0600 by default and leaves no temp file', async () => {
    const d = dir();
    const f = join(d, 'state.json');
    await write(f, '{"a":1}');
    expect(readFileSync(f, 'utf8')).toBe('{"a":1}');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['state.json']);
  });

  it('replaces an existing file whole, with the mode asked for', async () => {
    const d = dir();
    const f = join(d, 'metrics.prom');
    writeFileSync(f, 'old content that is longer than the new one');
    await write(f, 'new', { mode: 0o644, durable: false });
    expect(readFileSync(f, 'utf8')).toBe('new');
    expect(statSync(f).mode & 0o777).toBe(0o644);
    expect(readdirSync(d)).toEqual(['metrics.prom']);
  });

  it('gives the mode asked for whatever the umask (the unit runs with UMask=0077)', async () => {
    const d = dir();
    const f = join(d, 'pickup-station.prom');
    const old = process.umask(0o077);
    try {
      await write(f, 'x 1\n', { mode: 0o644, durable: false });
    } finally {
      process.umask(old);
    }
    expect(statSync(f).mode & 0o777).toBe(0o644);
  });

  it('fails without leaving a temp file or touching the target when the rename cannot happen', async () => {
    const d = dir();
    const target = join(d, 'occupied');
    mkdirSync(join(target, 'child'), { recursive: true }); // a non-empty folder cannot be replaced by a file
    await expect(write(target, 'x')).rejects.toThrow();
    expect(readdirSync(d)).toEqual(['occupied']);
    expect(readdirSync(target)).toEqual(['child']);
  });

  it('fails when the folder does not exist', async () => {
    await expect(write(join(dir(), 'missing', 'f'), 'x')).rejects.toThrow(/ENOENT/);
  });
});
