/**
 * The GPIO matrix keypad on gpio-sim, both backends. gpio-sim lines are not wired to each other,
 * so a small emulator plays the keypad: while a key is "held", its column follows its row
 * (pulled down while the row is driven active-low), every other column is pulled up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CdevBackend } from '../../src/devices/gpio/cdev.js';
import { GpioMatrixKeypad } from '../../src/devices/gpio/matrix-keypad.js';
import { SysfsBackend, loadOnoff } from '../../src/devices/gpio/sysfs.js';
import type { GpioBackend } from '../../src/devices/gpio/types.js';
import type { KeypadKey } from '../../src/devices/types.js';
import { HAS_GPIO_SIM, HAS_GPIOD_TOOLS, report, silentLog, type SimChip, simChip, sleep, waitFor } from './sim.js';

const ROWS = [0, 1, 2, 3];
const COLS = [4, 5, 6];
const KEYS = ['123', '456', '789', '*0#'];

function emulator(chip: SimChip) {
  let held: [number, number] | null = null;
  let running = true;
  const last = new Map<number, 'up' | 'down'>();
  const set = (col: number, level: 'up' | 'down'): void => {
    if (last.get(col) === level) return;
    last.set(col, level);
    chip.pull(col, level);
  };
  for (const c of COLS) set(c, 'up');
  const loop = (async () => {
    while (running) {
      COLS.forEach((col, ci) => set(col, held && held[1] === ci && chip.value(ROWS[held[0]]!) === 0 ? 'down' : 'up'));
      await sleep(1);
    }
  })();
  return {
    press: (key: string) => {
      const r = KEYS.findIndex((row) => row.includes(key));
      held = [r, KEYS[r]!.indexOf(key)];
    },
    release: () => {
      held = null;
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function suite(label: string, open: () => Promise<GpioBackend>, settleMs: number): void {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup = [];
  });

  it('reports each key once on press, rows idle active, no repeat while held', async () => {
    const chip = simChip(label);
    const emu = emulator(chip);
    cleanup.push(emu.stop);
    const backend = await open();
    cleanup.push(() => backend.close());
    const keypad = await GpioMatrixKeypad.open(backend, {
      rows: ROWS.map((offset) => ({ chip: label, offset, activeLow: true })),
      columns: COLS.map((offset) => ({ chip: label, offset, activeLow: true, bias: 'as-is' as const })),
      keys: KEYS,
      specialKeys: { '*': 'backspace', '#': 'enter' },
      debounceMs: 30,
      settleMs,
      log: silentLog,
    });
    cleanup.push(() => keypad.close());
    // Idle: every row driven active (low), so any key press reaches its column.
    expect(ROWS.map((r) => chip.value(r))).toEqual([0, 0, 0, 0]);

    const keys: KeypadKey[] = [];
    keypad.onKey((k) => keys.push(k));
    for (const [key, expected] of [
      ['5', { kind: 'digit', digit: '5' }],
      ['#', { kind: 'enter' }],
      ['1', { kind: 'digit', digit: '1' }],
    ] as const) {
      const t0 = performance.now();
      const before = keys.length;
      emu.press(key);
      await waitFor(`key ${key}`, () => keys.length > before, 60_000);
      report(`[${label}] key ${key} reported after ${Math.round(performance.now() - t0)} ms`);
      expect(keys.at(-1)).toEqual(expected);
      await sleep(settleMs * 10 + 300); // held: must not repeat
      expect(keys.length).toBe(before + 1);
      emu.release();
      await waitFor('rows idle again', () => ROWS.every((r) => chip.value(r) === 0), 30_000);
      await sleep(settleMs * 10 + 300);
    }
    expect(keys.length).toBe(3);
  });
}

describe.skipIf(!HAS_GPIO_SIM)('GPIO matrix keypad, sysfs backend', () => {
  suite('rig-matrix', async () => new SysfsBackend({ Gpio: await loadOnoff() }), 20);
});

describe.skipIf(!HAS_GPIOD_TOOLS)('GPIO matrix keypad, cdev backend', () => {
  suite('rig-matrix-cdev', () => CdevBackend.open(), 120);
});
