/** GpioLockBank on the sysfs backend with a fake onoff Gpio: OFF at start, pulse timing, clamp, no overlap, watchdog, close. */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpioLockBank, clampPulse } from '../../src/devices/gpio/locks.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import type { OutputLine } from '../../src/devices/gpio/types.js';
import { HARD_MAX_PULSE_MS } from '../../src/devices/types.js';
import { FAKE_CHIPS, FakeGpioWorld } from '../support/fake-onoff.js';

const log = pino({ level: 'silent' });
const CHIP = 'pinctrl-bcm2711';
const BASE = 512;

async function setup() {
  const world = new FakeGpioWorld();
  const backend = new SysfsBackend({ Gpio: world.Gpio, chips: FAKE_CHIPS });
  const bank = await GpioLockBank.open(backend, {
    locks: new Map([
      [1, { chip: CHIP, offset: 17, activeLow: false }],
      [2, { chip: CHIP, offset: 27, activeLow: true }],
    ]),
    watchdogMarginMs: 500,
    log,
  });
  return { world, backend, bank };
}

describe('GPIO lock bank (sysfs backend, fake onoff)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('creates every output at its OFF level: no ON glitch, ever (active-high and active-low)', async () => {
    const { world } = await setup();
    // line numbers come from the chip base resolved by label, never from the offset alone
    expect(world.history(BASE + 17)).toEqual([0]);
    expect(world.history(BASE + 27)).toEqual([1]);
  });

  it('pulses for the given time and resolves once OFF', async () => {
    const { world, bank } = await setup();
    let done = false;
    const p = bank.pulse(1, 600).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0); // pulses start in order, on the bank's chain
    expect(world.raw(BASE + 17)).toBe(1);
    expect(bank.isEnergized(1)).toBe(true);
    await vi.advanceTimersByTimeAsync(599);
    expect(world.raw(BASE + 17)).toBe(1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(world.raw(BASE + 17)).toBe(0);
    expect(bank.isEnergized(1)).toBe(false);
  });

  it('drives an active-low lock low to energize it, high after', async () => {
    const { world, bank } = await setup();
    const p = bank.pulse(2, 100);
    await vi.advanceTimersByTimeAsync(0);
    expect(world.raw(BASE + 27)).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    await p;
    expect(world.history(BASE + 27)).toEqual([1, 0, 1]);
  });

  it(`clamps every pulse to HARD_MAX_PULSE_MS (${HARD_MAX_PULSE_MS})`, async () => {
    expect(clampPulse(60_000)).toBe(HARD_MAX_PULSE_MS);
    expect(clampPulse(-5)).toBe(0);
    expect(clampPulse(Number.NaN)).toBe(0);
    const { world, bank } = await setup();
    const p = bank.pulse(1, 1_000_000);
    await vi.advanceTimersByTimeAsync(HARD_MAX_PULSE_MS - 1);
    expect(world.raw(BASE + 17)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(world.raw(BASE + 17)).toBe(0);
    await p;
  });

  it('never overlaps pulses: the second waits for the first', async () => {
    const { world, bank } = await setup();
    const a = bank.pulse(1, 300);
    const b = bank.pulse(2, 300);
    await vi.advanceTimersByTimeAsync(150);
    expect(world.raw(BASE + 17)).toBe(1);
    expect(world.raw(BASE + 27)).toBe(1); // box 2 still OFF
    await vi.advanceTimersByTimeAsync(150);
    expect(world.raw(BASE + 17)).toBe(0);
    expect(world.raw(BASE + 27)).toBe(0); // now box 2
    await vi.advanceTimersByTimeAsync(300);
    await Promise.all([a, b]);
    expect(world.raw(BASE + 27)).toBe(1);
  });

  it('rejects an unknown box without touching any line', async () => {
    const { world, bank } = await setup();
    await expect(bank.pulse(9, 100)).rejects.toThrow(/no lock for box 9/);
    expect(world.history(BASE + 17)).toEqual([0]);
  });

  it('close() mid-pulse drives the lock OFF at once', async () => {
    const { world, bank } = await setup();
    const p = bank.pulse(1, 2000).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    await bank.close();
    expect(world.raw(BASE + 17)).toBe(0);
    expect(world.raw(BASE + 27)).toBe(1);
    expect(await p).toBeInstanceOf(Error);
    await expect(bank.pulse(1, 100)).rejects.toThrow(/closed/);
  });

  it('a write failure ends the pulse with a DeviceError and a health fault', async () => {
    const { world, bank } = await setup();
    const p = bank.pulse(1, 200).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    world.failWrites = true;
    await vi.advanceTimersByTimeAsync(200);
    const e = await p;
    expect(String(e)).toMatch(/DeviceError: pinctrl-bcm2711:17: cannot end pulse/);
    expect(bank.health().ok).toBe(false);
  });
});

describe('GPIO lock bank watchdog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A line whose backend never ends its pulse (a bug): only the watchdogs can. */
  function stuckLine() {
    const writes: boolean[] = [];
    let active = false;
    let endOfPulse = 0;
    const line: OutputLine = {
      name: 'stuck:0',
      write: (a) => {
        writes.push(a);
        active = a;
        return Promise.resolve();
      },
      pulse: () => {
        active = true;
        return new Promise(() => undefined);
      },
      endOfPulse: () => {
        endOfPulse++;
        active = false;
      },
      close: () => Promise.resolve(),
    };
    return { line, writes, isActive: () => active, endOfPulses: () => endOfPulse };
  }

  it('drives the line OFF at the pulse deadline and reports a pulse not confirmed within the margin', async () => {
    const stuck = stuckLine();
    const backend = {
      kind: 'sysfs' as const,
      output: () => Promise.resolve(stuck.line),
      input: () => Promise.reject(new Error('no')),
      forceOff: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const bank = await GpioLockBank.open(backend, { locks: new Map([[1, { chip: 'x', offset: 0, activeLow: false }]]), watchdogMarginMs: 500, log });
    const p = bank.pulse(1, 600).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(600);
    expect(stuck.endOfPulses()).toBe(1);
    expect(stuck.isActive()).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(String(await p)).toMatch(/not confirmed OFF within 500 ms of its end; forced OFF/);
    expect(stuck.writes.at(-1)).toBe(false);
    expect(bank.health()).toMatchObject({ ok: false });
    expect(bank.isEnergized(1)).toBe(false);
  });
});
