/** createBoardHardware on a fake onoff world: order (locks OFF first), wiring, hooks, and cleanup on failure. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { StationConfig } from '../../src/config/schema.js';
import { createBoardHardware, type InputDevicesFactory } from '../../src/devices/board.js';
import { boardHardwareSchema, type BoardProfileInput } from '../../src/devices/board-config.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import { FAKE_CHIPS, FakeGpioWorld } from './support/fake-onoff.js';

const log = pino({ level: 'silent' });
const C = 'pinctrl-bcm2711';
const BASE = 512;

function setup(profile: BoardProfileInput, boxNumbers = [1, 2]) {
  const f = join(mkdtempSync(join(tmpdir(), 'board-')), 'profile.json');
  writeFileSync(f, JSON.stringify(profile));
  const config = { station: { boxes: boxNumbers.map((n) => ({ number: n, id: `id-${n}` })) }, log: { level: 'silent' } } as unknown as StationConfig;
  const world = new FakeGpioWorld();
  const order: number[] = [];
  const Gpio = world.Gpio;
  const Recording = class extends Gpio {
    constructor(...args: ConstructorParameters<typeof Gpio>) {
      super(...args);
      order.push(args[0]);
    }
  };
  const openBackend = () => Promise.resolve(new SysfsBackend({ Gpio: Recording, chips: FAKE_CHIPS }));
  return { hw: boardHardwareSchema.parse({ kind: 'board', profile: f }), config, world, order, openBackend };
}

const PROFILE: BoardProfileInput = {
  name: 'test board',
  boxes: [
    { number: 1, lock: { chip: C, offset: 4 }, door: { chip: C, offset: 7 } },
    { number: 2, lock: { chip: C, offset: 5, activeLow: true }, door: { chip: C, offset: 8 } },
    { number: 3, lock: { chip: C, offset: 6 }, door: { chip: C, offset: 9 } },
  ],
  cancelButton: { chip: C, offset: 27, activeLow: true },
};

describe('board assembly', () => {
  it('requests every lock of the profile OFF before any input, then doors of configured boxes and the button', async () => {
    const s = setup(PROFILE);
    const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend });
    expect(s.order).toEqual([BASE + 4, BASE + 5, BASE + 6, BASE + 7, BASE + 8, BASE + 27]);
    expect(hw.locks.boxNumbers).toEqual([1, 2, 3]); // box 3 is not configured, but its lock is held OFF too
    expect([s.world.raw(BASE + 4), s.world.raw(BASE + 5), s.world.raw(BASE + 6)]).toEqual([0, 1, 0]);
    expect(hw.cancelButton?.name).toBe('cancel button (pinctrl-bcm2711:27)');
    expect(hw.keypad).toBeNull();
    expect(hw.scanners).toEqual([]);
    await hw.display.show(['Hello']);
    expect(hw.display.lastShown()).toEqual(['Hello']);
    expect(await hw.power.internetSignalStrength()).not.toBeUndefined();
    await hw.close();
    expect(s.world.raw(BASE + 5)).toBe(1);
  });

  it('takes scanners, keypad and display from the input drivers hook', async () => {
    const s = setup(PROFILE);
    const display = { name: 'd', show: () => Promise.resolve(), lastShown: () => [], health: () => ({ ok: true, detail: null }), onHealthChange: () => () => undefined, close: () => Promise.resolve() };
    const inputs: InputDevicesFactory = (profile) => {
      expect(profile.name).toBe('test board');
      return Promise.resolve({ scanners: [], keypad: null, display });
    };
    const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: inputs });
    expect(hw.display).toBe(display);
    await hw.close();
  });

  it('if a later device fails, what was opened is closed again with every lock OFF', async () => {
    const s = setup({ ...PROFILE, cancelButton: { chip: 'no-such-chip', offset: 1 } });
    await expect(createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend })).rejects.toThrow(/no GPIO chip labelled "no-such-chip"/);
    expect([s.world.raw(BASE + 4), s.world.raw(BASE + 5)]).toEqual([0, 1]);
    expect(s.world.line(BASE + 7).exported).toBe(false); // doors released
  });
});
