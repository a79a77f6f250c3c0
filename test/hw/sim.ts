/**
 * gpio-sim from the test side (runs in the rig VM, see scripts/rig/). The chips are created by
 * scripts/rig/guest-init.sh, one per test file, and found here by label through configfs.
 * An output's level is read from sim_gpioN/value; an input is driven by writing pull-up/pull-down
 * to sim_gpioN/pull, which fires real edge interrupts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { sleep } from '../support/shared.js';

export { sleep, waitFor } from '../support/shared.js';

const CONFIGFS = '/sys/kernel/config/gpio-sim';

/** True only where gpio-sim chips exist (the rig VM): everywhere else the hw tests skip. */
export const HAS_GPIO_SIM = existsSync('/sys/class/gpio/export') && existsSync(CONFIGFS);
export const HAS_GPIOD_TOOLS =
  HAS_GPIO_SIM &&
  (() => {
    try {
      execFileSync('gpioset', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

export const silentLog = pino({ level: process.env['RIG_LOG'] ?? 'silent' });

export interface SimChip {
  readonly label: string;
  /** /dev/gpiochipN */
  readonly devPath: string;
  /** Physical level of a line (what the chip sees). */
  value(offset: number): 0 | 1;
  pull(offset: number, level: 'up' | 'down'): void;
}

export function simChip(label: string): SimChip {
  const dev = readFileSync(`${CONFIGFS}/${label}/dev_name`, 'utf8').trim();
  const chip = readFileSync(`${CONFIGFS}/${label}/bank0/chip_name`, 'utf8').trim();
  const attr = (offset: number, name: string): string => `/sys/devices/platform/${dev}/${chip}/sim_gpio${offset}/${name}`;
  return {
    label,
    devPath: `/dev/${chip}`,
    value: (offset) => (readFileSync(attr(offset, 'value'), 'utf8').trim() === '1' ? 1 : 0),
    pull: (offset, level) => writeFileSync(attr(offset, 'pull'), level === 'up' ? 'pull-up' : 'pull-down'),
  };
}

/** A measurement for the rig log (the numbers are the point of these tests). */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Watch a line's level from now until `until` settles; returns the intervals it was at `level`
 * (ms since start). Sampling every ~2 ms: good enough for pulses of hundreds of ms.
 */
export async function recordLevel(
  chip: SimChip,
  offset: number,
  level: 0 | 1,
  until: Promise<unknown>,
): Promise<{ intervals: [number, number][]; settledAt: number }> {
  const t0 = performance.now();
  let done = false;
  let settledAt = 0;
  const settled = until.then(
    () => {
      done = true;
      settledAt = performance.now() - t0;
    },
    (e: unknown) => {
      done = true;
      settledAt = performance.now() - t0;
      throw e;
    },
  );
  settled.catch(() => undefined); // handled by the await below; avoids an "unhandled" report meanwhile
  const intervals: [number, number][] = [];
  let start: number | null = null;
  while (!done) {
    const now = performance.now() - t0;
    const at = chip.value(offset) === level;
    if (at && start === null) start = now;
    if (!at && start !== null) {
      intervals.push([start, now]);
      start = null;
    }
    await sleep(2);
  }
  if (start !== null) intervals.push([start, performance.now() - t0]);
  await settled;
  return { intervals, settledAt };
}
