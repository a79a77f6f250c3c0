/** Doors, cancel button and debounce on the sysfs backend with a fake onoff Gpio and fake timers. */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpioButton, GpioDoorSensors } from '../../src/devices/gpio/inputs.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import type { DoorState } from '../../src/devices/types.js';
import { FAKE_CHIPS, FakeGpioWorld } from '../support/fake-onoff.js';

const log = pino({ level: 'silent' });
const CHIP = 'pinctrl-bcm2711';
const BASE = 512;

async function doors(world: FakeGpioWorld) {
  const backend = new SysfsBackend({ Gpio: world.Gpio, chips: FAKE_CHIPS });
  return GpioDoorSensors.open(backend, {
    doors: new Map([
      [1, { chip: CHIP, offset: 5, activeLow: false, bias: 'as-is' as const }],
      [2, { chip: CHIP, offset: 6, activeLow: true, bias: 'pull-up' as const }],
    ]),
    debounceMs: 30,
    log,
  });
}

describe('GPIO door sensors', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads the initial state, active = OPEN, honouring activeLow', async () => {
    const world = new FakeGpioWorld();
    world.setInput(BASE + 5, 1);
    world.setInput(BASE + 6, 1); // active-low: high = inactive = CLOSED
    const d = await doors(world);
    expect(await d.read(1)).toBe('OPEN');
    expect(await d.read(2)).toBe('CLOSED');
    await expect(d.read(3)).rejects.toThrow(/no door sensor for box 3/);
  });

  it('reports a change once, after the line has been quiet for the debounce time', async () => {
    const world = new FakeGpioWorld();
    const d = await doors(world);
    const seen: [number, DoorState][] = [];
    d.onChange((box, st) => seen.push([box, st]));
    // bounce: 1 0 1 0 1 over 20 ms
    for (const v of [1, 0, 1, 0, 1] as const) {
      world.setInput(BASE + 5, v);
      await vi.advanceTimersByTimeAsync(5);
    }
    // last edge at t=20, now t=25: quiet since 5 ms
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(24);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([[1, 'OPEN']]);
    expect(await d.read(1)).toBe('OPEN');
  });

  it('drops a glitch shorter than the debounce time (the value is re-read, unchanged)', async () => {
    const world = new FakeGpioWorld();
    const d = await doors(world);
    const seen: DoorState[] = [];
    d.onChange((_, st) => seen.push(st));
    world.setInput(BASE + 5, 1);
    await vi.advanceTimersByTimeAsync(10);
    world.setInput(BASE + 5, 0);
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([]);
    expect(await d.read(1)).toBe('CLOSED');
  });

  it('never calls a listener synchronously and stops after close', async () => {
    const world = new FakeGpioWorld();
    const d = await doors(world);
    const seen: DoorState[] = [];
    d.onChange((_, st) => seen.push(st));
    await d.close();
    world.setInput(BASE + 5, 1);
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([]);
    expect(world.line(BASE + 5).exported).toBe(false);
  });
});

describe('GPIO cancel button', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports one press per debounced press; the release is not a press', async () => {
    const world = new FakeGpioWorld();
    world.setInput(BASE + 22, 1); // active-low button, released = high
    const backend = new SysfsBackend({ Gpio: world.Gpio, chips: FAKE_CHIPS });
    const b = await GpioButton.open(backend, {
      name: 'cancel button',
      line: { chip: CHIP, offset: 22, activeLow: true, bias: 'pull-up' },
      debounceMs: 20,
      log,
    });
    let presses = 0;
    b.onPress(() => presses++);
    world.setInput(BASE + 22, 0);
    world.setInput(BASE + 22, 1);
    world.setInput(BASE + 22, 0);
    await vi.advanceTimersByTimeAsync(20);
    expect(presses).toBe(1);
    world.setInput(BASE + 22, 1);
    await vi.advanceTimersByTimeAsync(20);
    expect(presses).toBe(1);
    expect(b.name).toBe('cancel button (pinctrl-bcm2711:22)');
  });
});
