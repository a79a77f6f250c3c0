/** createBoardHardware on a fake onoff world: order (locks OFF first), wiring, hooks, and cleanup on failure. */
import { ASSIST_TEXTS } from '../../src/config/messages.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { messagesSchema, speechSchema, type Config } from '../../src/config/schema.js';
import { SimKeypad } from '../../src/devices/simulated/inputs.js';
import { createBoardHardware, type InputDevicesFactory } from '../../src/devices/board.js';
import type { Display } from '../../src/devices/types.js';
import { boardHardwareSchema, type BoardProfileInput } from '../../src/devices/board-config.js';
import { SysfsBackend } from '../../src/devices/gpio/sysfs.js';
import { FAKE_CHIPS, FakeGpioWorld } from '../support/fake-onoff.js';

const log = pino({ level: 'silent' });
const C = 'pinctrl-bcm2711';
const BASE = 512;

function setup(profile: BoardProfileInput, boxNumbers = [1, 2]) {
  const f = join(mkdtempSync(join(tmpdir(), 'board-')), 'profile.json');
  writeFileSync(f, JSON.stringify(profile));
  const config = {
    station: { boxes: boxNumbers.map((n) => ({ number: n, id: `id-${n}` })) },
    log: { level: 'silent' },
    messages: messagesSchema.parse({}),
    speech: speechSchema.parse({}),
  } as unknown as Config;
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

/** The input drivers' part, faked: no scanners, no HID keypad, a display that only remembers. */
function fakeDisplay(): Display {
  let lines: readonly string[] = [];
  return {
    name: 'fake display',
    show: (l) => ((lines = [...l]), Promise.resolve()),
    lastShown: () => lines,
    health: () => ({ ok: true, detail: null }),
    onHealthChange: () => () => undefined,
    close: () => Promise.resolve(),
  };
}
const noInputs: InputDevicesFactory = () => Promise.resolve({ scanners: [], keypad: null, display: fakeDisplay() });

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
    const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: noInputs });
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

  it("watches USBGuard as a device of the board: its health is the station's to judge like any device's", async () => {
    const s = setup(PROFILE);
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    writeFileSync(join(dir, 'authorized_default'), '0\n');
    const usbGuard = { stateFile: join(dir, 'state'), bootDefaultFile: join(dir, 'authorized_default') };
    const down = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: noInputs, usbGuard });
    const guard = down.devices().find((d) => d.name === 'USB policy (usbguard.service)');
    expect(guard?.health().ok).toBe(false);
    expect(down.usbGuard?.bootDefault()).toBe('0');
    await down.close();
    writeFileSync(join(dir, 'state'), 'running\n');
    const up = await createBoardHardware(s.config, setup(PROFILE).hw, log, { openBackend: setup(PROFILE).openBackend, createInputDevices: noInputs, usbGuard });
    expect(up.usbGuard?.enforcing()).toBe(true);
    await up.close();
    // A profile that says it has no USBGuard (a development rig) has no such device.
    const none = await createBoardHardware(s.config, setup(PROFILE).hw, log, {
      openBackend: setup(PROFILE).openBackend,
      createInputDevices: noInputs,
      usbGuard: null,
    });
    expect(none.usbGuard ?? null).toBeNull();
    await none.close();
  });

  it('passes the profile to the input drivers and builds a gpio-matrix keypad itself', async () => {
    const s = setup({
      ...PROFILE,
      keypad: { kind: 'gpio-matrix', rows: [{ chip: C, offset: 12, activeLow: true }], columns: [{ chip: C, offset: 13, activeLow: true }], keys: ['5'] },
    });
    let seen: unknown;
    const inputs: InputDevicesFactory = (profile) => {
      seen = profile.keypad?.kind;
      return noInputs(profile, log, { lang: 'en', words: ASSIST_TEXTS.en.kiosk, holdMs: 2_000 });
    };
    const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: inputs });
    expect(seen).toBe('gpio-matrix');
    expect(hw.keypad?.name).toBe('matrix keypad (1x1)');
    expect(s.world.raw(BASE + 12)).toBe(0); // idle: the row is driven active (low)
    await hw.close();
  });

  it("a touchscreen's keypad and a tactile matrix keypad beside it both type; each reports its own health", async () => {
    const s = setup({
      ...PROFILE,
      keypad: { kind: 'gpio-matrix', rows: [{ chip: C, offset: 12, activeLow: true }], columns: [{ chip: C, offset: 13, activeLow: true }], keys: ['5'] },
    });
    const screen = new SimKeypad();
    const inputs: InputDevicesFactory = () => Promise.resolve({ scanners: [], keypad: screen, keypads: [screen], display: fakeDisplay() });
    const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: inputs });
    const keys: string[] = [];
    hw.keypad?.onKey((k) => keys.push(k.kind === 'digit' ? k.digit : k.kind));
    screen.press({ kind: 'digit', digit: '1' });
    await Promise.resolve();
    expect(keys).toEqual(['1']);
    expect(hw.devices().map((d) => d.name)).toEqual(expect.arrayContaining(['simulated keypad', 'matrix keypad (1x1)']));
    await hw.close();
  });

  it('a kiosk display takes PINs beside a tactile keypad (its problem then leaves the station UP), and alone it does not', async () => {
    const matrix = {
      kind: 'gpio-matrix' as const,
      rows: [{ chip: C, offset: 12, activeLow: true }],
      columns: [{ chip: C, offset: 13, activeLow: true }],
      keys: ['5'],
    };
    const cases: [BoardProfileInput, boolean][] = [
      [{ ...PROFILE, display: { kind: 'kiosk' }, keypad: matrix }, true],
      [{ ...PROFILE, display: { kind: 'kiosk' }, keypad: { kind: 'hid', vendorId: 0x1234, productId: 0x5678 } }, true],
      [{ ...PROFILE, display: { kind: 'kiosk' } }, false],
      [{ ...PROFILE, keypad: matrix }, false],
    ];
    for (const [profile, serves] of cases) {
      const s = setup(profile);
      const hw = await createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: noInputs });
      expect(hw.servesWithoutDisplay, JSON.stringify({ display: profile.display, keypad: profile.keypad?.kind })).toBe(serves);
      await hw.close();
    }
  });

  it('builds the tamper switch and the buzzer of the profile (buzzer silent), after the locks', async () => {
    const { hw, config, world, order, openBackend } = setup({ ...PROFILE, tamper: { chip: C, offset: 22 }, buzzer: { chip: C, offset: 23 } });
    world.setInput(BASE + 22, 1);
    const station = await createBoardHardware(config, hw, log, { openBackend, createInputDevices: noInputs });
    expect(order.slice(0, 3)).toEqual([BASE + 4, BASE + 5, BASE + 6]);
    expect(await station.tamper?.read()).toBe(true);
    expect(world.raw(BASE + 23)).toBe(0);
    expect(station.devices().map((d) => d.name)).toContain('buzzer (pinctrl-bcm2711:23, active high)');
    expect(station.locks.describeLine?.(2)).toBe('pinctrl-bcm2711:5, active low');
    expect(station.doors.describeLine?.(1)).toBe('pinctrl-bcm2711:7, active high');
    await station.close();
  });

  it('if a later device fails, what was opened is closed again with every lock OFF', async () => {
    const s = setup({ ...PROFILE, cancelButton: { chip: 'no-such-chip', offset: 1 } });
    await expect(createBoardHardware(s.config, s.hw, log, { openBackend: s.openBackend, createInputDevices: noInputs })).rejects.toThrow(
      /no GPIO chip labelled "no-such-chip"/,
    );
    expect([s.world.raw(BASE + 4), s.world.raw(BASE + 5)]).toEqual([0, 1]);
    expect(s.world.line(BASE + 7).exported).toBe(false); // doors released
  });
});
