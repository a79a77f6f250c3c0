/**
 * The built `pickup-station` as a process: a wrong command line exits 2 with
 * what is wrong and the usage text, a bad config exits 78 with its paths — never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../dist/src/main.js');
/** What the unit runs: each mode bundled in a file of its own (scripts/app/build.mjs). */
const APP_MAIN = join(import.meta.dirname, '../../app/main.js');

function run(args: string[], main = MAIN): { code: number | null; err: string; out: string } {
  const r = spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env['PATH'] }, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, err: r.stderr, out: r.stdout };
}
const STACK = /\n\s+at .+[:(]/;

describe('usage errors: exit 2, the usage text, no stack', () => {
  it.each([
    [['--config'], /argument missing/],
    [['run', '--config'], /argument missing/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['run', 'extra'], /Unexpected argument 'extra'/],
    [['safe-state', '--config'], /argument missing/],
    [['safe-state', '--bogus'], /Unknown option/],
    [['demo', '--x'], /Unknown option '--x'/],
    [['demo', '--locale', 'de'], /demo: --locale must be cs or en, got "de"/],
    [['frobnicate'], /unknown command: frobnicate/],
    [['reload'], /--pid PID \(the daemon, \$MAINPID\) is required/],
    [['reload', '--pid', '1234', '--timeout-ms', 'soon'], /--timeout-ms must be a positive number/],
  ])('pickup-station %j', (args, why) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(why);
    expect(r.err).toContain('usage: pickup-station');
    expect(r.err).not.toMatch(STACK);
  });

  // A usage error thrown in a mode's own bundle file is still one to main.js's bundle (two copies
  // of the error class: told by its name, not by instanceof).
  it.each([
    [['reload'], /--pid PID \(the daemon, \$MAINPID\) is required/],
    [['fleet', '--log-level', 'loud'], /--log-level: one of/],
  ])('the bundled app/main.js %j', (args, why) => {
    const r = run(args, APP_MAIN);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(why);
    expect(r.err).not.toMatch(STACK);
  });
});

describe('a bad config: exit 78 with paths, no stack', () => {
  it('nested 5,000 deep (once a RangeError stack and exit 1, restarted by systemd for ever)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostile-usage-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, `{"station":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`);
    const r = run(['--config', file]);
    expect(r.code).toBe(78);
    expect(r.err).toMatch(/station\.a\.a.*: nested more than 32 levels deep/);
    expect(r.err).not.toMatch(STACK);
    const s = run(['safe-state', '--config', file]);
    expect(s.code).toBe(78);
    expect(s.err).not.toMatch(STACK);
  });

  it('not JSON at all, a directory, a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostile-usage-'));
    writeFileSync(join(dir, 'bytes.json'), Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]));
    for (const [file, why] of [
      [join(dir, 'bytes.json'), /not valid JSON/],
      [dir, /not a regular file/],
      [join(dir, 'missing.json'), /cannot read: ENOENT/],
    ] as const) {
      const r = run(['--config', file]);
      expect(r.code, file).toBe(78);
      expect(r.err).toMatch(why);
      expect(r.err).not.toMatch(STACK);
    }
  });
});
