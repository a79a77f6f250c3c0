/**
 * The libgpiod tool command lines (v1 and v2), their output parsers, and the helper script run by
 * a real /bin/sh against stand-in gpioset/gpiomon programs (the kernel side is tested in the rig).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  getArgs,
  holdArgs,
  lineScript,
  monArgs,
  parseGpiodetect,
  parseGpiodVersion,
  parseGpiogetValue,
  parseGpiomonEvent,
  pulseArgs,
  REQUEST_FD_HELD,
  setOnceArgs,
  shellQuote,
} from '../../src/devices/gpio/gpiod-tools.js';
import { sleep } from '../support/shared.js';

const L = { chipPath: '/dev/gpiochip0', offset: 17, activeLow: false };
const LL = { ...L, activeLow: true };

describe('libgpiod tool versions and output', () => {
  it('detects v1 and v2 from --version', () => {
    expect(parseGpiodVersion('gpioset (libgpiod) v1.6.3\nCopyright (C) 2017-2018 Bartosz Golaszewski\n')).toBe(1);
    expect(parseGpiodVersion('gpioset (libgpiod) v2.1.3\nCopyright (C) 2017-2023 Bartosz Golaszewski\n')).toBe(2);
    expect(parseGpiodVersion('gpioset 0.1 (some other tool)')).toBeNull();
  });

  it('parses gpiodetect (same format in v1 and v2)', () => {
    const text = 'gpiochip0 [pinctrl-bcm2711] (58 lines)\ngpiochip1 [raspberrypi-exp-gpio] (8 lines)\n';
    expect(parseGpiodetect(text)).toEqual([
      { name: 'gpiochip0', label: 'pinctrl-bcm2711', lines: 58 },
      { name: 'gpiochip1', label: 'raspberrypi-exp-gpio', lines: 8 },
    ]);
    expect(parseGpiodetect('gpiochip4 [pinctrl-rp1] (54 lines)')).toEqual([{ name: 'gpiochip4', label: 'pinctrl-rp1', lines: 54 }]);
  });

  it('parses gpioget: v1 digits, v2 "line"=active|inactive', () => {
    expect(parseGpiogetValue('1\n')).toBe(true);
    expect(parseGpiogetValue('0\n')).toBe(false);
    expect(parseGpiogetValue('"17"=active\n')).toBe(true);
    expect(parseGpiogetValue('"17"=inactive\n')).toBe(false);
    expect(parseGpiogetValue('garbage')).toBeNull();
  });

  it('parses gpiomon events as formatted by monArgs', () => {
    expect(parseGpiomonEvent(1, '1')).toBe(true);
    expect(parseGpiomonEvent(1, '0')).toBe(false);
    expect(parseGpiomonEvent(2, 'rising')).toBe(true);
    expect(parseGpiomonEvent(2, 'falling')).toBe(false);
    expect(parseGpiomonEvent(2, '1')).toBeNull();
  });
});

describe('libgpiod tool command lines', () => {
  it('v1: chip then offset=value; modes for hold and timed pulse', () => {
    expect(setOnceArgs(1, L, 0)).toEqual(['gpioset', '/dev/gpiochip0', '17=0']);
    expect(holdArgs(1, LL, 0)).toEqual(['gpioset', '--mode=signal', '-l', '/dev/gpiochip0', '17=0']);
    expect(pulseArgs(1, L, 1500)).toEqual(['gpioset', '--mode=time', '--sec=1', '--usec=500000', '/dev/gpiochip0', '17=1']);
    expect(getArgs(1, LL, 'pull-up')).toEqual(['gpioget', '-l', '-B', 'pull-up', '/dev/gpiochip0', '17']);
    expect(monArgs(1, L, 'disable')).toEqual(['gpiomon', '-b', '-F', '%e', '-B', 'disable', '/dev/gpiochip0', '17']);
  });

  it('v2: -c chip; set-once is a zero toggle; the pulse toggles back inactive itself, then exits', () => {
    expect(setOnceArgs(2, L, 1)).toEqual(['gpioset', '-t', '0', '-c', '/dev/gpiochip0', '17=1']);
    expect(holdArgs(2, LL, 0)).toEqual(['gpioset', '-l', '-c', '/dev/gpiochip0', '17=0']);
    expect(pulseArgs(2, L, 600)).toEqual(['gpioset', '-t', '600ms,0', '-c', '/dev/gpiochip0', '17=1']);
    expect(getArgs(2, L, 'as-is')).toEqual(['gpioget', '-c', '/dev/gpiochip0', '17']);
    expect(monArgs(2, LL, 'disable')).toEqual(['gpiomon', '-F', '%E', '-l', '-b', 'disabled', '-c', '/dev/gpiochip0', '17']);
  });

  it('quotes for sh', () => {
    expect(shellQuote(['gpiomon', '-F', '%E', "it's"])).toBe(`gpiomon -F %E 'it'\\''s'`);
  });
});

/** Stand-in tools: each logs its argv and, when holding, waits to be killed. */
function fakeTools(): { dir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gpiod-fake-'));
  const log = join(dir, 'calls.log');
  const tool = (name: string, body: string): void => {
    writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  // --mode=signal (v1) or no -t (v2) holds until SIGTERM; everything else exits at once.
  tool(
    'gpioset',
    `case "$*" in *--mode=signal*) trap 'echo "gpioset released $*" >> ${log}; exit 0' TERM; echo trapped >> ${log}.trap; while :; do sleep 0.1; done;; esac`,
  );
  tool('gpioget', 'echo 1');
  tool('gpiomon', `trap 'exit 0' TERM; sleep 0.3; echo 1; echo 0; while :; do sleep 1; done`);
  return { dir, log };
}

async function untilLogged(log: string, text: string): Promise<void> {
  const has = (): boolean => existsSync(log) && readFileSync(log, 'utf8').includes(text);
  for (let i = 0; i < 500 && !has(); i++) await sleep(10);
  expect(has()).toBe(true);
}

function runScript(script: string, dir: string) {
  const child = spawn('sh', ['-c', script], { env: { ...process.env, PATH: `${dir}:${process.env['PATH']}` }, stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitOut = async (text: string): Promise<void> => {
    for (let i = 0; i < 500 && !out.includes(text); i++) await sleep(10);
    expect(out).toContain(text);
  };
  return { child, exited, waitOut, out: () => out };
}

describe('helper script (real sh, stand-in tools)', () => {
  it('runs its steps, prints the marker, holds, and releases on a newline', async () => {
    const { dir, log } = fakeTools();
    const r = runScript(lineScript([pulseArgs(1, L, 10), setOnceArgs(1, L, 0)], 'ready', holdArgs(1, L, 0)), dir);
    await r.waitOut('ready');
    await untilLogged(`${log}.trap`, 'trapped'); // the stand-in has installed its TERM trap
    r.child.stdin.write('\n');
    expect(await r.exited).not.toBeNull();
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toEqual([
      'gpioset --mode=time --sec=0 --usec=10000 /dev/gpiochip0 17=1',
      'gpioset /dev/gpiochip0 17=0',
      'gpioset --mode=signal /dev/gpiochip0 17=0',
      'gpioset released --mode=signal /dev/gpiochip0 17=0',
    ]);
  });

  it('releases the line when its parent goes away (stdin EOF), as after kill -9 of the station', async () => {
    const { dir, log } = fakeTools();
    const r = runScript(lineScript([setOnceArgs(1, L, 0)], 'ready', holdArgs(1, L, 0)), dir);
    await r.waitOut('ready');
    await untilLogged(`${log}.trap`, 'trapped');
    r.child.stdin.end(); // what the kernel does to the pipe when the station dies
    await r.exited;
    expect(readFileSync(log, 'utf8')).toContain('gpioset released');
  });

  it('stops at a failing step with its exit code and no marker', async () => {
    const { dir } = fakeTools();
    const r = runScript(lineScript([['false'], setOnceArgs(1, L, 0)], 'ready', holdArgs(1, L, 0)), dir);
    expect(await r.exited).toBe(10);
    expect(r.out()).not.toContain('ready');
  });

  it('with a readiness check, prints the marker only once the background tool is up, then its output', async () => {
    const { dir } = fakeTools();
    const r = runScript(lineScript([getArgs(1, L, 'as-is')], 'ready', monArgs(1, L, 'as-is'), `grep -q gpiomon ${join(dir, 'calls.log')}`), dir);
    await r.waitOut('0\n');
    expect(r.out().startsWith('1\nready\n')).toBe(true);
    r.child.stdin.end('\n');
    await r.exited;
  });
});

describe('the line-request check (REQUEST_FD_HELD, real sh, a stand-in ls)', () => {
  /** Runs the check with "$p" = 4242 against a stand-in `ls -l` printing `fds`; its exit code and the ls call. */
  async function check(fds: string[]): Promise<{ code: number | null; lsCall: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'gpiod-fd-'));
    const listing = fds.map((target, i) => `lrwx------ 1 pickup pickup 64 Nov 23 20:31 ${i} -> ${target}`).join('\n');
    writeFileSync(join(dir, 'ls'), `#!/bin/sh\necho "$*" > ${join(dir, 'ls.call')}\nprintf '%s\\n' '${listing}'\n`);
    chmodSync(join(dir, 'ls'), 0o755);
    const child = spawn('sh', ['-c', `p=4242; ${REQUEST_FD_HELD}`], { env: { ...process.env, PATH: `${dir}:${process.env['PATH']}` }, stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, lsCall: readFileSync(join(dir, 'ls.call'), 'utf8').trim() };
  }

  it("looks at the background tool's own descriptors", async () => {
    expect((await check(['/dev/null'])).lsCall).toBe('-l /proc/4242/fd');
  });

  it('is true once a line request is held: uAPI v2 (libgpiod 2.x) or a v1 event request (libgpiod 1.x)', async () => {
    expect((await check(['/dev/null', 'pipe:[2312413]', '/dev/gpiochip0', 'anon_inode:gpio-line'])).code).toBe(0);
    expect((await check(['/dev/null', '/dev/gpiochip0', 'anon_inode:gpio-event'])).code).toBe(0);
  });

  it('is false while the tool has only opened the chip (the kernel has not finished the request)', async () => {
    expect((await check(['/dev/null', 'pipe:[2312413]', '/dev/gpiochip0'])).code).not.toBe(0);
    // Other anonymous inodes, and a v1 line handle (a request without edge detection), do not count.
    expect((await check(['anon_inode:[eventfd]', 'anon_inode:gpio-linehandle', 'anon_inode:[signalfd]'])).code).not.toBe(0);
  });
});
