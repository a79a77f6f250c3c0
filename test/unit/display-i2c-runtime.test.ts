/**
 * The I2C displays inside the station runtime (fake timers, a fake I2C bus with controller models):
 * a display that stops answering makes /state DOWN with its errorMessage and UP again once it
 * answers (redrawn); the OLED is woken from its idle dimming by any input, here a key.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { validateConfig } from '../../src/config/load.js';
import { COMMON_BACKPACK_PINS, Hd44780Display } from '../../src/devices/display/hd44780.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { Display } from '../../src/devices/types.js';
import { StationRuntime } from '../../src/station/runtime.js';
import { ScriptedSender, waitForInput } from '../support/scripted-sender.js';
import { FakeI2cBus, Hd44780Model, oledOnFakeBus } from '../support/display-models.js';

const log = pino({ level: 'silent' });
const STATION = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const reconnect = { initialMs: 500, maxMs: 30_000, factor: 2 };

function config() {
  const { config, problems } = validateConfig({
    station: { id: STATION, boxes: [1, 2].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    hardware: { kind: 'simulated' },
  });
  if (!config) throw new Error(JSON.stringify(problems));
  return config;
}

async function run(display: Display & { start(): Promise<void> }) {
  const sim = new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 50, inputVoltage: 12, internetSignalStrength: 100 });
  const start = display.start();
  await vi.advanceTimersByTimeAsync(100);
  await start;
  const sender = new ScriptedSender(() => waitForInput);
  const runtime = new StationRuntime({ config: config(), hardware: sim.withDisplay(display), client: sender, log });
  await runtime.start();
  await vi.advanceTimersByTimeAsync(0);
  return { sim, sender, runtime };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('I2C displays in the runtime', () => {
  it('an LCD that stops answering: /state DOWN with its errorMessage; answering again: UP, screen redrawn', async () => {
    const bus = new FakeI2cBus();
    const model = new Hd44780Model(COMMON_BACKPACK_PINS, 20, 4, () => Date.now());
    bus.devices.set(0x27, { sendByte: (b) => model.write(b) });
    const display = new Hd44780Display({
      bus: 1,
      address: 0x27,
      size: { columns: 20, rows: 4 },
      overflow: 'wrap',
      pins: COMMON_BACKPACK_PINS,
      backlight: true,
      czech: 'transliterate',
      reconnect,
      openTimeoutMs: 5_000,
      log,
      opener: bus.opener,
    });
    const { sim, sender, runtime } = await run(display);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'UP' });
    const prompt = model.text().map((l) => l.trimEnd());
    expect(prompt.join('')).not.toBe('');

    bus.nacking.add(0x27);
    sim.pressKey({ kind: 'digit', digit: '1' }); // the PIN row changes: a write that is not acknowledged
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state').at(-1)).toMatchObject({
      st: 'DOWN',
      errorMessage: 'display i2c-1 0x27 (HD44780): no answer at this address (EREMOTEIO: not connected, no power, or a different address)',
    });

    bus.nacking.delete(0x27);
    await vi.advanceTimersByTimeAsync(600);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'UP' });
    expect(model.text()[1]?.trimEnd()).toBe('PIN: *');
    expect(model.violations).toEqual([]);
    await runtime.stop();
    await display.close();
  });

  it('the OLED dims when idle and a key press brings it back at full contrast', async () => {
    const { model, display } = oledOnFakeBus({ idle: { dimAfterMs: 60_000, offAfterMs: 600_000, dimContrast: 1 } });
    const { sim, runtime } = await run(display);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(model.contrast).toBe(1);
    sim.pressKey({ kind: 'clear' }); // changes nothing on screen, still an input
    await vi.advanceTimersByTimeAsync(0);
    expect(model.contrast).toBe(0xcf);
    expect(model.displayOn).toBe(true);
    await runtime.stop();
    await display.close();
  });
});
