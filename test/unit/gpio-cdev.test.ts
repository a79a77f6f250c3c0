/**
 * CdevBackend against a fake child_process.spawn (its last hardware boundary): version detection,
 * chips by label, which scripts it starts for outputs, pulses and inputs (v2 syntax here; v1 runs
 * for real in the rig), the pulse watchdog path, and safe-state's retry while a line is busy, its
 * line-by-line fallback and its release of lock lines left exported through sysfs (a folder laid
 * out as /sys/class/gpio).
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CdevBackend, type SpawnFn } from '../../src/devices/gpio/cdev.js';
import { GpioLockBank } from '../../src/devices/gpio/locks.js';
import { waitFor } from '../support/shared.js';

class FakeChild extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exited = false;
  constructor(readonly pid: number) {
    super();
  }
  exit(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.stdout.end();
    this.stderr.end();
    // As a real ChildProcess: 'exit', then 'close' once its stdio is closed too.
    setImmediate(() => {
      this.emit('exit', code);
      this.emit('close', code);
    });
  }
}

interface Started {
  readonly argv: string[];
  readonly child: FakeChild;
}

function fakeSpawn(opts: { version?: string; busyTimes?: number; busyLine?: string } = {}) {
  const started: Started[] = [];
  const killed: [number, string][] = [];
  let pid = 1000;
  let busy = opts.busyTimes ?? 0;
  const spawn = ((command: string, args: readonly string[]) => {
    const child = new FakeChild(++pid);
    const argv = [command, ...args];
    started.push({ argv, child });
    setImmediate(() => {
      if (command === 'gpioset' && args[0] === '--version') {
        child.stdout.write(opts.version ?? 'gpioset (libgpiod) v2.2.1\n');
        child.exit(0);
      } else if (command === 'gpiodetect') {
        child.stdout.write('gpiochip0 [pinctrl-rp1] (54 lines)\ngpiochip1 [rp1-extra] (8 lines)\n');
        child.exit(0);
      } else if (command === 'gpioset') {
        if (busy > 0 || (opts.busyLine !== undefined && args.includes(opts.busyLine))) {
          if (busy > 0) busy--;
          child.stderr.write('gpioset: unable to request lines on chip /dev/gpiochip0: Device or resource busy\n');
          child.exit(1);
        } else child.exit(0);
      } else if (command === 'sh') {
        const script = args[1] ?? '';
        // A pulse helper prints "ready" once its steps are done; the test decides when (release()).
        if (!script.includes('ms,0')) {
          if (script.includes('gpioget')) child.stdout.write('"7"=inactive\n');
          child.stdout.write('ready\n');
        }
        child.stdin.on('finish', () => child.exit(143));
      }
    });
    return child;
  }) as unknown as SpawnFn;
  const killGroup = (p: number, signal: NodeJS.Signals): void => {
    killed.push([p, signal]);
    started.find((s) => s.child.pid === p)?.child.exit(137);
  };
  const scripts = () => started.filter((s) => s.argv[0] === 'sh').map((s) => s.argv[2] ?? '');
  return { spawn, killGroup, started, killed, scripts };
}

const log = pino({ level: 'silent' });

async function until(cond: () => boolean): Promise<void> {
  await waitFor('the fake helper to get there', cond, 2_500);
}

describe('cdev backend (fake spawn)', () => {
  it('detects v2, resolves chips by label, requests an output inactive with set-once then hold', async () => {
    const f = fakeSpawn();
    const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup });
    expect(backend.version).toBe(2);
    const line = await backend.output({ chip: 'pinctrl-rp1', offset: 4, activeLow: true });
    expect(line.name).toBe('pinctrl-rp1:4');
    const [script] = f.scripts();
    expect(script).toContain('gpioset -t 0 -l -c /dev/gpiochip0 4=0 || exit 10');
    expect(script).toContain('gpioset -l -c /dev/gpiochip0 4=0 &');
    await expect(backend.output({ chip: 'pinctrl-bcm2711', offset: 4, activeLow: false })).rejects.toThrow(
      'gpio pinctrl-bcm2711:4: no GPIO chip labelled "pinctrl-bcm2711" (found: pinctrl-rp1, rp1-extra)',
    );
    await expect(backend.output({ chip: 'rp1-extra', offset: 8, activeLow: false })).rejects.toThrow(/offset 8 is out of range/);
    await backend.close();
  });

  it('an input reads gpioget, then waits for gpiomon to hold the line before ready', async () => {
    const f = fakeSpawn();
    const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 2 });
    const input = await backend.input({ chip: 'pinctrl-rp1', offset: 7, activeLow: false, bias: 'pull-up' });
    expect(await input.read()).toBe(false);
    const script = f.scripts().at(-1)!;
    expect(script).toContain('gpioget -b pull-up -c /dev/gpiochip0 7 || exit 10');
    expect(script).toContain('gpiomon -F %E -b pull-up -c /dev/gpiochip0 7 &');
    // Ready only once gpiomon ("$p") holds its line request's descriptor, not when gpioinfo lists it.
    expect(script).toContain('until ls -l /proc/"$p"/fd');
    expect(script).not.toContain('gpioinfo');
    await backend.close();
  });

  describe('pulses', () => {
    it('runs the pulse timed by gpioset itself (-t <ms>ms,0) and then holds the line inactive', async () => {
      const f = fakeSpawn();
      const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 2 });
      const bank = await GpioLockBank.open(backend, { locks: new Map([[1, { chip: 'pinctrl-rp1', offset: 4, activeLow: true }]]), watchdogMarginMs: 500, log });
      const p = bank.pulse(1, 600);
      await until(() => f.scripts().some((s) => s.includes('ms,0')));
      const pulse = f.started.find((s) => s.argv[2]?.includes('ms,0'))!;
      expect(pulse.argv[2]).toContain('gpioset -t 600ms,0 -l -c /dev/gpiochip0 4=1 || exit 10');
      expect(pulse.argv[2]).toContain('gpioset -t 0 -l -c /dev/gpiochip0 4=0 || exit 11');
      expect(pulse.argv[2]).toContain('gpioset -l -c /dev/gpiochip0 4=0 &');
      pulse.child.stdout.write('ready\n'); // gpioset ended the pulse and the line is held inactive
      await p;
      expect(bank.isEnergized(1)).toBe(false);
      await bank.close();
      await backend.close();
    });

    it('a pulse helper that never confirms is killed (whole process group) and the line set inactive', async () => {
      const f = fakeSpawn();
      const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 2 });
      const bank = await GpioLockBank.open(backend, { locks: new Map([[1, { chip: 'pinctrl-rp1', offset: 4, activeLow: false }]]), watchdogMarginMs: 50, log });
      const p = bank.pulse(1, 20).catch((e: unknown) => e);
      await until(() => f.scripts().some((s) => s.includes('ms,0')));
      const pulse = f.started.find((s) => s.argv[2]?.includes('ms,0'))!;
      // The helper never prints "ready": 20 ms + 50 ms later the bank gives up on it.
      expect(String(await p)).toMatch(/not confirmed OFF within 50 ms/);
      expect(f.killed).toContainEqual([pulse.child.pid, 'SIGKILL']);
      expect(f.scripts().at(-1)).toContain('gpioset -t 0 -c /dev/gpiochip0 4=0 || exit 10');
      expect(bank.health().ok).toBe(false);
      await bank.close();
      await backend.close();
    });
  });

  it('forceOff (safe-state): one gpioset per chip and polarity, retried while the line is busy', async () => {
    const f = fakeSpawn({ busyTimes: 2 });
    const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 2 });
    await backend.forceOff([
      { chip: 'pinctrl-rp1', offset: 4, activeLow: true },
      { chip: 'pinctrl-rp1', offset: 5, activeLow: true },
      { chip: 'pinctrl-rp1', offset: 6, activeLow: false },
    ]);
    const sets = f.started.filter((s) => s.argv[0] === 'gpioset' && s.argv[1] !== '--version').map((s) => s.argv.join(' '));
    expect(sets).toEqual([
      'gpioset -t 0 -l -c /dev/gpiochip0 4=0 5=0',
      'gpioset -t 0 -l -c /dev/gpiochip0 4=0 5=0',
      'gpioset -t 0 -l -c /dev/gpiochip0 4=0 5=0',
      'gpioset -t 0 -c /dev/gpiochip0 6=0',
    ]);
  });

  it('forceOff gives up after its deadline and names the lines', async () => {
    const f = fakeSpawn({ busyTimes: 1000 });
    const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 1 });
    await expect(backend.forceOff([{ chip: 'pinctrl-rp1', offset: 4, activeLow: false }], 250)).rejects.toThrow(
      /cannot drive OFF: \/dev\/gpiochip0:4: .*Device or resource busy/,
    );
  });

  it('forceOff sets a chip line by line when its group still fails at the deadline: one held line does not keep the others ON', async () => {
    const f = fakeSpawn({ busyLine: '5=0' });
    const backend = await CdevBackend.open({ spawn: f.spawn, killGroup: f.killGroup, version: 2, sysfsRoot: join(tmpdir(), 'no-such-sysfs') });
    const off = backend.forceOff(
      [4, 5, 6].map((offset) => ({ chip: 'pinctrl-rp1', offset, activeLow: false })),
      250,
    );
    await expect(off).rejects.toThrow(/cannot drive OFF: \/dev\/gpiochip0:5: .*Device or resource busy$/);
    const sets = f.started.filter((s) => s.argv[0] === 'gpioset' && s.argv[1] !== '--version').map((s) => s.argv.join(' '));
    expect(sets.slice(-3)).toEqual(['gpioset -t 0 -c /dev/gpiochip0 4=0', 'gpioset -t 0 -c /dev/gpiochip0 5=0', 'gpioset -t 0 -c /dev/gpiochip0 6=0']);
  });

  it('forceOff first drives OFF and unexports a lock line left exported through sysfs (else every cdev request is refused)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sysfs-gpio-'));
    mkdirSync(join(root, 'gpiochip512'));
    for (const [k, v] of Object.entries({ label: 'pinctrl-rp1', base: '512', ngpio: '54' })) writeFileSync(join(root, 'gpiochip512', k), `${v}\n`);
    for (const n of [516, 517]) {
      mkdirSync(join(root, `gpio${n}`));
      writeFileSync(join(root, `gpio${n}`, 'direction'), 'out\n');
    }
    writeFileSync(join(root, 'unexport'), '');
    const warned: unknown[] = [];
    const f = fakeSpawn();
    const backend = await CdevBackend.open({
      spawn: f.spawn,
      killGroup: f.killGroup,
      version: 2,
      sysfsRoot: root,
      log: { warn: (o: unknown) => void warned.push(o) },
    });
    await backend.forceOff([
      { chip: 'pinctrl-rp1', offset: 4, activeLow: false },
      { chip: 'pinctrl-rp1', offset: 5, activeLow: true },
      { chip: 'pinctrl-rp1', offset: 6, activeLow: false },
    ]);
    // The raw OFF level: low for an active-high lock, high for an active-low one; then unexported
    // (the folder keeps the last number written).
    expect(readFileSync(join(root, 'gpio516', 'direction'), 'utf8')).toBe('low');
    expect(readFileSync(join(root, 'gpio517', 'direction'), 'utf8')).toBe('high');
    expect(readFileSync(join(root, 'unexport'), 'utf8')).toBe('517');
    expect(warned).toEqual([{ lines: ['pinctrl-rp1:4 (gpio516)', 'pinctrl-rp1:5 (gpio517)'] }]);
    const sets = f.started.filter((s) => s.argv[0] === 'gpioset' && s.argv[1] !== '--version').map((s) => s.argv.join(' '));
    expect(sets).toEqual(['gpioset -t 0 -c /dev/gpiochip0 4=0 6=0', 'gpioset -t 0 -l -c /dev/gpiochip0 5=0']);
  });
});
