/** The matrix keypad's scan logic on a fake onoff world wired like a real keypad (copper, not timing). */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpioMatrixKeypad, keyOf } from '../../src/devices/gpio/matrix-keypad.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import type { KeypadKey } from '../../src/devices/types.js';
import { FAKE_CHIPS, FakeGpioWorld } from '../support/fake-onoff.js';

const CHIP = 'pinctrl-bcm2711';
const BASE = 512;
const ROWS = [5, 6, 13, 19];
const COLS = [20, 21, 26];
const KEYS = ['123', '456', '789', '*0#'];

/** A keypad: a held key connects its row to its column; columns are pulled up. */
function keypadWorld() {
  const world = new FakeGpioWorld();
  const held = new Set<string>();
  world.wire = (n) => {
    const c = COLS.indexOf(n - BASE);
    if (c < 0) return undefined;
    for (const key of held) {
      const r = KEYS.findIndex((row) => row[c] === key);
      if (r >= 0 && world.lines.get(BASE + ROWS[r]!)?.raw === 0) return 0;
    }
    return 1;
  };
  const refresh = (): void => COLS.forEach((c) => world.refresh(BASE + c));
  return {
    world,
    press: (k: string) => (held.add(k), refresh()),
    release: (k: string) => (held.delete(k), refresh()),
  };
}

async function open(world: FakeGpioWorld) {
  const backend = new SysfsBackend({ Gpio: world.Gpio, chips: FAKE_CHIPS });
  return GpioMatrixKeypad.open(backend, {
    rows: ROWS.map((offset) => ({ chip: CHIP, offset, activeLow: true })),
    columns: COLS.map((offset) => ({ chip: CHIP, offset, activeLow: true, bias: 'pull-up' as const })),
    keys: KEYS,
    specialKeys: { '*': 'backspace', '#': 'enter' },
    debounceMs: 20,
    settleMs: 2,
    log: pino({ level: 'silent' }),
  });
}

describe('GPIO matrix keypad', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('maps characters: digits, the configured specials, nothing else', () => {
    expect(keyOf('7', { '*': 'backspace' })).toEqual({ kind: 'digit', digit: '7' });
    expect(keyOf('*', { '*': 'backspace' })).toEqual({ kind: 'backspace' });
    expect(keyOf('A', { '*': 'backspace' })).toBeNull();
  });

  it('idles with every row active, finds the key on a column edge, reports it once while held', async () => {
    const kp = keypadWorld();
    const keypad = await open(kp.world);
    expect(ROWS.map((r) => kp.world.raw(BASE + r))).toEqual([0, 0, 0, 0]);
    const keys: KeypadKey[] = [];
    keypad.onKey((k) => keys.push(k));

    kp.press('8');
    await vi.advanceTimersByTimeAsync(19);
    expect(keys).toEqual([]); // still debouncing
    await vi.advanceTimersByTimeAsync(100);
    expect(keys).toEqual([{ kind: 'digit', digit: '8' }]);
    expect(ROWS.map((r) => kp.world.raw(BASE + r))).toEqual([0, 0, 0, 0]); // idle again
    await vi.advanceTimersByTimeAsync(1000);
    expect(keys).toHaveLength(1);

    kp.release('8');
    await vi.advanceTimersByTimeAsync(100);
    kp.press('#');
    await vi.advanceTimersByTimeAsync(100);
    kp.release('#');
    await vi.advanceTimersByTimeAsync(100);
    kp.press('*');
    await vi.advanceTimersByTimeAsync(100);
    expect(keys).toEqual([{ kind: 'digit', digit: '8' }, { kind: 'enter' }, { kind: 'backspace' }]);
    await keypad.close();
  });

  it('ignores two keys at once (ambiguous) and reports the one left held', async () => {
    const kp = keypadWorld();
    const keypad = await open(kp.world);
    const keys: KeypadKey[] = [];
    keypad.onKey((k) => keys.push(k));
    kp.press('1');
    kp.press('5');
    await vi.advanceTimersByTimeAsync(200);
    expect(keys).toEqual([]);
    kp.release('1');
    await vi.advanceTimersByTimeAsync(200);
    expect(keys).toEqual([{ kind: 'digit', digit: '5' }]);
    await keypad.close();
  });

  it('a bounce shorter than the debounce time is no key', async () => {
    const kp = keypadWorld();
    const keypad = await open(kp.world);
    const keys: KeypadKey[] = [];
    keypad.onKey((k) => keys.push(k));
    kp.press('3');
    await vi.advanceTimersByTimeAsync(5);
    kp.release('3');
    await vi.advanceTimersByTimeAsync(200);
    expect(keys).toEqual([]);
    await keypad.close();
  });
});
