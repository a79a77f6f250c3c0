/**
 * A reproduction loop, not part of the normal rig run: the gpio contract's "reports a cancel button
 * press once per press" (gpio-contract.ts), step for step, RIG_LOOP times on each cdev tool
 * generation, counting failures instead of stopping at the first one. It skips unless RIG_LOOP is
 * set (scripts/rig/run.sh passes it into the VM):
 *
 *   RIG_LOOP=200 RIG_TESTS=test/hw/gpio-input-ready-loop.test.ts RIG_TIMEOUT=3600 scripts/rig/run.sh
 *
 * With RIG_LOOP_STALL=1 the kernel's gap between "line requested" and "edge interrupt armed" is
 * made long, as a busy or preempted CPU makes it (see stallIrqThreadCreation).
 *
 * For each press that is never reported it prints what the kernel shows: the line's level, and
 * gpiomon's interrupt count (/proc/interrupts; it accumulates over requests) at the end of the
 * previous press and now. The line high with the count unchanged means the pull-up raised no
 * interrupt: it came before gpiomon's edge interrupt was armed, although open() had already said
 * "ready" (the race that REQUEST_FD_HELD in gpiod-tools.ts closes).
 */
import { execFileSync, spawn as nodeSpawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CdevBackend, type SpawnFn } from '../../src/devices/gpio/cdev.js';
import { GpioButton } from '../../src/devices/gpio/inputs.js';
import type { GpiodVersion } from '../../src/devices/gpio/gpiod-tools.js';
import { HAS_GPIOD_TOOLS, report, silentLog, simChip, sleep, waitFor } from './sim.js';

const LOOPS = Number(process.env['RIG_LOOP'] ?? '0');
const STALL = process.env['RIG_LOOP_STALL'] === '1';
const DEBOUNCE_MS = 100;
const OFFSET = 10;
/** Where the rig puts the v2 tools (as gpio-cdev-v2.test.ts; importing it would register its tests here). */
const GPIOD_V2_BIN = '/opt/gpiod2/bin';

/** The tools of one generation through PATH, as the station finds them. */
function spawnWith(version: GpiodVersion): SpawnFn {
  const path = version === 2 ? `${GPIOD_V2_BIN}:${process.env['PATH'] ?? ''}` : (process.env['PATH'] ?? '');
  return (command, args, options) => nodeSpawn(command, args, { ...options, env: { ...process.env, PATH: path } });
}

/**
 * Arming a line's edge interrupt (request_threaded_irq, inside gpiomon's request) creates the
 * interrupt's thread, which kthreadd (pid 2) forks and which must run once before the request goes
 * on. Here kthreadd goes to CPU 1 and a SCHED_FIFO loop takes CPU 1 (the kernel's RT throttling
 * leaves other tasks there 50 ms per second), while vitest and every tool this test starts run on
 * CPU 0: the gap stretches to up to ~1 s. Returns the undo.
 */
function stallIrqThreadCreation(): () => void {
  const taskset = (...args: string[]): void => void execFileSync('taskset', args, { stdio: 'ignore' });
  taskset('-p', '1', String(process.pid));
  taskset('-p', '1', String(process.ppid));
  taskset('-p', '2', '2');
  const hog = nodeSpawn('taskset', ['2', 'chrt', '-f', '10', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' });
  return () => {
    hog.kill('SIGKILL');
    taskset('-p', '3', '2');
    taskset('-p', '3', String(process.ppid));
    taskset('-p', '3', String(process.pid));
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** gpiomon's interrupt count from /proc/interrupts (one gpiomon runs at a time here); null without one. */
function gpiomonIrqCount(): number | null {
  const row = readFileSync('/proc/interrupts', 'utf8')
    .split('\n')
    .find((l) => /\bgpiomon\b/.test(l));
  const counts = row
    ?.trim()
    .split(/\s+/)
    .slice(1, 1 + cpus().length);
  return counts ? counts.reduce((sum, c) => sum + Number(c), 0) : null;
}

describe.skipIf(!HAS_GPIOD_TOOLS || !(LOOPS > 0))(
  `cdev input readiness, ${LOOPS} presses per tool generation${STALL ? ', irq thread creation stalled' : ''}`,
  () => {
    for (const [version, label] of [
      [2, 'rig-cdev2'],
      [1, 'rig-cdev'],
    ] as const) {
      it.skipIf(version === 2 && !existsSync(`${GPIOD_V2_BIN}/gpiomon`))(
        `libgpiod v${version}: every press right after open() is reported`,
        async () => {
          const chip = simChip(label);
          const backend = await CdevBackend.open({ spawn: spawnWith(version), version });
          const missed: string[] = [];
          const openMs: number[] = [];
          const undoStall = STALL ? stallIrqThreadCreation() : () => undefined;
          const t0 = performance.now();
          let irqCount: number | null = null;
          try {
            for (let i = 1; i <= LOOPS; i++) {
              chip.pull(OFFSET, 'down');
              await sleep(50);
              const opening = performance.now();
              const button = await GpioButton.open(backend, {
                name: 'cancel button',
                line: { chip: label, offset: OFFSET, activeLow: false, bias: 'as-is' },
                debounceMs: DEBOUNCE_MS,
                log: silentLog,
              });
              openMs.push(performance.now() - opening);
              let presses = 0;
              button.onPress(() => presses++);
              chip.pull(OFFSET, 'up');
              try {
                await waitFor('press', () => presses === 1, 5000);
              } catch {
                missed.push(
                  `#${i}: no press in 5 s; line level ${chip.value(OFFSET)}; gpiomon irq count ${irqCount ?? 'n/a'} before, ${gpiomonIrqCount() ?? 'n/a'} now`,
                );
              }
              chip.pull(OFFSET, 'down');
              await sleep(DEBOUNCE_MS * 3);
              if (presses > 1) missed.push(`#${i}: ${presses} presses`);
              irqCount = gpiomonIrqCount();
              await button.close();
            }
          } finally {
            undoStall();
          }
          await backend.close();
          report(
            `[loop v${version}${STALL ? ' stalled' : ''}] ${LOOPS - missed.length}/${LOOPS} presses reported in ${Math.round((performance.now() - t0) / 1000)} s; ` +
              `open() median ${Math.round(median(openMs))} ms, max ${Math.round(Math.max(...openMs))} ms`,
          );
          for (const m of missed) report(`[loop v${version}] ${m}`);
          expect(missed).toEqual([]);
        },
        LOOPS * 10_000,
      );
    }
  },
);
