/** The GPIO tamper switch and buzzer on the sysfs backend with a fake onoff Gpio and fake timers. */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpioBuzzer, GpioTamperSwitch } from '../../src/devices/gpio/alarm-devices.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import { FAKE_CHIPS, FakeGpioWorld } from '../support/fake-onoff.js';

const log = pino({ level: 'silent' });
const CHIP = 'pinctrl-bcm2711';
const BASE = 512;
const backend = (world: FakeGpioWorld) => new SysfsBackend({ Gpio: world.Gpio, chips: FAKE_CHIPS });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('GPIO tamper switch', () => {
  it('reads open = active at start, reports each debounced change both ways', async () => {
    const world = new FakeGpioWorld();
    world.setInput(BASE + 20, 1);
    const t = await GpioTamperSwitch.open(backend(world), { line: { chip: CHIP, offset: 20, activeLow: false, bias: 'as-is' }, debounceMs: 30, log });
    expect(await t.read()).toBe(true);
    expect(t.name).toBe('tamper switch (pinctrl-bcm2711:20, active high)');
    const seen: boolean[] = [];
    t.onChange((open) => seen.push(open));
    world.setInput(BASE + 20, 0);
    await vi.advanceTimersByTimeAsync(10);
    world.setInput(BASE + 20, 1); // a bounce shorter than the debounce time
    await vi.advanceTimersByTimeAsync(10);
    world.setInput(BASE + 20, 0);
    await vi.advanceTimersByTimeAsync(29);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([false]);
    world.setInput(BASE + 20, 1);
    await vi.advanceTimersByTimeAsync(30);
    expect(seen).toEqual([false, true]);
    await t.close();
  });
});

describe('GPIO buzzer', () => {
  it('requested silent; a beep is a pulse of its length; silence() ends it at once', async () => {
    const world = new FakeGpioWorld();
    const b = await GpioBuzzer.open(backend(world), { line: { chip: CHIP, offset: 21, activeLow: true }, log });
    expect(world.raw(BASE + 21)).toBe(1); // active low: silent is high
    const beep = b.beep(80);
    await vi.advanceTimersByTimeAsync(0);
    expect(world.raw(BASE + 21)).toBe(0);
    await vi.advanceTimersByTimeAsync(79);
    expect(world.raw(BASE + 21)).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await beep;
    expect(world.raw(BASE + 21)).toBe(1);

    let done = false;
    const long = b.beep(4_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(100);
    await b.silence();
    expect(world.raw(BASE + 21)).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    await long;
    expect(b.health().ok).toBe(true);
    // The next beep waits for the cut pulse to settle on the line (silent meanwhile), then sounds.
    const next = b.beep(50);
    await vi.advanceTimersByTimeAsync(3_890); // the cut pulse's own end: 4000 ms after it began
    expect(world.raw(BASE + 21)).toBe(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(world.raw(BASE + 21)).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    await next;
    expect(world.raw(BASE + 21)).toBe(1);
    await b.close();
  });

  it('a beep waiting for the line is cancelled by silence(): it never sounds', async () => {
    const world = new FakeGpioWorld();
    const b = await GpioBuzzer.open(backend(world), { line: { chip: CHIP, offset: 23, activeLow: false }, log });
    const first = b.beep(1_000);
    await vi.advanceTimersByTimeAsync(10);
    await b.silence(); // cut: the line's pulse settles only at its own end (sysfs)
    await first;
    const waiting = b.beep(200); // waits for the line
    await vi.advanceTimersByTimeAsync(100);
    await b.silence(); // a lock pulse starts meanwhile
    await vi.advanceTimersByTimeAsync(2_000);
    await waiting;
    expect(world.history(BASE + 23)).toEqual([0, 1, 0]); // only the first beep ever reached the line
    await b.close();
  });

  it('clamps a beep to MAX_BEEP_MS', async () => {
    const world = new FakeGpioWorld();
    const b = await GpioBuzzer.open(backend(world), { line: { chip: CHIP, offset: 22, activeLow: false }, log });
    const beep = b.beep(60_000);
    await vi.advanceTimersByTimeAsync(5_000);
    await beep;
    expect(world.raw(BASE + 22)).toBe(0);
    await b.close();
  });
});
