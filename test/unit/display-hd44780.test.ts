/**
 * The HD44780 + PCF8574 driver against a fake I2C bus with a HD44780 model behind it (the model
 * decodes the expander's pin writes as the controller would, from power-on): initialisation,
 * what the screen shows for a deposit's texts in English and Czech, changed rows only, the
 * backlight bit, custom characters, and a backpack that does not answer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import {
  byteBytes,
  COMMON_BACKPACK_PINS,
  CUSTOM_SLOTS,
  Hd44780Display,
  layoutLcd,
  nibbleBytes,
  rowAddress,
  type Hd44780Options,
  type Pcf8574Pins,
} from '../../src/devices/display/hd44780.js';
import { cellGlyph } from '../../src/devices/display/font.js';
import { SERVER_TEXTS } from '../../src/reference-server/messages.js';
import { FakeI2cBus, glyphKey, Hd44780Model } from '../support/display-models.js';

const log = pino({ level: 'silent' });
const size = { columns: 20, rows: 4 };
const EN = SERVER_TEXTS.en.depositClosing(3);
const CS = SERVER_TEXTS.cs.depositClosing(3);
/** Names of the custom characters the model may find, drawn from the font (what the driver should have written). */
const CZECH_NAMES = new Map([...'áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ'].map((ch) => [glyphKey(cellGlyph(ch) ?? []), ch]));

function rig(over: Partial<Hd44780Options> = {}, pins: Pcf8574Pins = COMMON_BACKPACK_PINS) {
  const bus = new FakeI2cBus();
  const o: Hd44780Options = {
    bus: 1,
    address: 0x27,
    size,
    overflow: 'wrap',
    pins,
    backlight: true,
    czech: 'transliterate',
    reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
    openTimeoutMs: 5_000,
    log,
    opener: bus.opener,
    ...over,
  };
  const model = new Hd44780Model(pins, o.size.columns, o.size.rows, () => Date.now());
  bus.devices.set(0x27, { sendByte: (b) => model.write(b) });
  return { bus, model, display: new Hd44780Display(o) };
}

/** Start (running the datasheet's waits on fake timers). */
async function started(d: Hd44780Display): Promise<void> {
  const p = d.start();
  await vi.advanceTimersByTimeAsync(100);
  await p;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('PCF8574 byte encoding', () => {
  it('a nibble is clocked with E low, high, low; RS and the backlight bit ride along (common mapping)', () => {
    expect(nibbleBytes(0x3, false, COMMON_BACKPACK_PINS, true)).toEqual([0x38, 0x3c, 0x38]);
    expect(nibbleBytes(0xa, true, COMMON_BACKPACK_PINS, false)).toEqual([0xa1, 0xa5, 0xa1]);
    expect(byteBytes(0x41, true, COMMON_BACKPACK_PINS, true)).toEqual([0x49, 0x4d, 0x49, 0x19, 0x1d, 0x19]);
  });
  it('another backpack wiring: data on P0-P3, RS P4, E P6, backlight P7', () => {
    const pins = { d4: 0, d5: 1, d6: 2, d7: 3, rs: 4, rw: 5, e: 6, backlight: 7 };
    expect(nibbleBytes(0x5, true, pins, true)).toEqual([0x95, 0xd5, 0x95]);
  });
  it('row addresses of 20x4 and 16x4', () => {
    expect([0, 1, 2, 3].map((r) => rowAddress(r, 20))).toEqual([0x00, 0x40, 0x14, 0x54]);
    expect([0, 1, 2, 3].map((r) => rowAddress(r, 16))).toEqual([0x00, 0x40, 0x10, 0x50]);
  });
});

describe('layoutLcd', () => {
  const text = (rows: readonly (readonly number[])[]) => rows.map((r) => String.fromCharCode(...r).trimEnd());
  it('transliterates and fits like the serial LCD (wrap)', () => {
    expect(text(layoutLcd(CS, { size, overflow: 'wrap', czech: 'transliterate' }).rows)).toEqual(['Vlozte polozku do', 'schranky 3', 'a zavrete dvirka', '']);
  });
  it('custom characters: accented letters get slots in order of appearance, the rest of the row stays ROM', () => {
    const s = layoutLcd(CS, { size, overflow: 'wrap', czech: 'custom-characters' });
    expect(s.slots).toEqual(['ž', 'á', 'ř', 'í', null, null, null, null]);
    expect(s.rows[0]?.slice(0, 6)).toEqual([0x56, 0x6c, 0x6f, 0, 0x74, 0x65]);
  });
  it('more than 8 different letters: the first 8 are drawn, later ones transliterated', () => {
    const s = layoutLcd(['áčďéěíňó řšťú'], { size, overflow: 'wrap', czech: 'custom-characters' });
    expect(s.slots).toEqual([...'áčďéěíňó']);
    expect(String.fromCharCode(...(s.rows[0] ?? [])).slice(9, 13)).toBe('rstu');
  });
  it('a letter still on screen keeps its slot; a freed slot takes a new letter', () => {
    const first = layoutLcd(['čř'], { size, overflow: 'cut', czech: 'custom-characters' });
    const next = layoutLcd(['řž'], { size, overflow: 'cut', czech: 'custom-characters' }, first.slots);
    expect(first.slots.slice(0, 2)).toEqual(['č', 'ř']);
    expect(next.slots.slice(0, 2)).toEqual(['ž', 'ř']);
    expect(CUSTOM_SLOTS).toBe(8);
  });
  it("ROM A00's ¥ and → are never sent for backslash and tilde", () => {
    expect(text(layoutLcd(['a\\b~c'], { size, overflow: 'cut', czech: 'transliterate' }).rows)[0]).toBe('a/b-c');
  });
});

describe('Hd44780Display on a fake bus', () => {
  it("initialises by the datasheet's 4-bit sequence and waits, backlight on, display on", async () => {
    const { model, display } = rig();
    await started(display);
    expect(model.violations).toEqual([]);
    expect(model.instructions.slice(0, 9)).toEqual([0x30, 0x30, 0x30, 0x20, 0x28, 0x08, 0x01, 0x06, 0x0c]);
    expect(model.displayOn).toBe(true);
    expect(model.backlight).toBe(true);
    expect(display.health()).toEqual({ ok: true, detail: null });
    await display.close();
  });

  it('a deposit in English and in Czech (transliterated) shows as the serial LCD would fit it', async () => {
    const { model, display } = rig();
    await started(display);
    await display.show(EN);
    expect(model.text()).toEqual(['Put the item in box', '3', 'and close the door', ''].map((l) => l.padEnd(20)));
    await display.show(CS);
    expect(model.text().map((l) => l.trimEnd())).toEqual(['Vlozte polozku do', 'schranky 3', 'a zavrete dvirka', '']);
    expect(model.violations).toEqual([]);
    expect(display.lastShown()).toEqual(CS);
    await display.close();
  });

  it('Czech with custom characters: the controller shows the accented letters', async () => {
    const { model, display } = rig({ czech: 'custom-characters' });
    await started(display);
    await display.show(CS);
    expect(model.text(CZECH_NAMES).map((l) => l.trimEnd())).toEqual(['Vložte položku do', 'schránky 3', 'a zavřete dvířka', '']);
    await display.show(['Vyzvedněte položky', 'ze schránky 4']);
    expect(model.text(CZECH_NAMES).map((l) => l.trimEnd())).toEqual(['Vyzvedněte položky', 'ze schránky 4', '', '']);
    expect(model.violations).toEqual([]);
    await display.close();
  });

  it('only changed rows are rewritten; the same lines again write nothing', async () => {
    const { bus, model, display } = rig();
    await started(display);
    await display.show(['Scan an item', 'or enter your PIN']);
    const before = model.instructions.length;
    const transfers = bus.transfers.length;
    await display.show(['Scan an item', 'PIN: ****']);
    const addressed = model.instructions.slice(before).filter((v) => v & 0x80);
    expect(addressed).toEqual([0x80 | 0x40]);
    expect(bus.transfers.length - transfers).toBe(6 + 20 * 6);
    const again = bus.transfers.length;
    await display.show(['Scan an item', 'PIN: ****']);
    expect(bus.transfers.length).toBe(again);
    expect(model.text()[1]?.trimEnd()).toBe('PIN: ****');
    await display.close();
  });

  it('every byte carries the backlight bit: on stays on, off stays off', async () => {
    for (const backlight of [true, false]) {
      const { bus, model, display } = rig({ backlight });
      await started(display);
      await display.show(EN);
      const bytes = bus.transfers.map((t) => (t.kind === 'byte' ? t.byte : -1));
      expect(bytes.every((b) => ((b & 0x08) !== 0) === backlight)).toBe(true);
      expect(model.backlight).toBe(backlight);
      await display.close();
    }
  });

  it('16x2 with cut overflow', async () => {
    const { model, display } = rig({ size: { columns: 16, rows: 2 }, overflow: 'cut' });
    await started(display);
    await display.show(EN);
    expect(model.text()).toEqual(['Put the item in ', 'and close the do']);
    await display.close();
  });
});

describe('a backpack that does not answer', () => {
  it('missing at start: health says so, show() records; once it answers it is initialised and drawn', async () => {
    const { bus, model, display } = rig();
    bus.nacking.add(0x27);
    const health: unknown[] = [];
    display.onHealthChange((h) => health.push(h));
    await started(display);
    expect(display.health().ok).toBe(false);
    expect(display.health().detail).toMatch(/^display i2c-1 0x27 \(HD44780\): no answer at this address \(EREMOTEIO/);
    await expect(display.show(EN)).resolves.toBeUndefined();
    bus.nacking.delete(0x27);
    await vi.advanceTimersByTimeAsync(600);
    expect(display.health().ok).toBe(true);
    expect(model.text()[0]).toBe('Put the item in box ');
    expect(model.violations).toEqual([]);
    expect(health.length).toBeGreaterThanOrEqual(1);
    await display.close();
  });

  it('stops answering mid-update: down, retried with backoff, redrawn in full when back', async () => {
    const { bus, model, display } = rig();
    await started(display);
    await display.show(EN);
    bus.nacking.add(0x27);
    await display.show(CS);
    expect(display.health().detail).toMatch(/no answer at this address/);
    const opens = bus.opens;
    await vi.advanceTimersByTimeAsync(500 + 100);
    expect(bus.opens).toBe(opens + 1); // one retry after initialMs
    await vi.advanceTimersByTimeAsync(1000 + 100);
    expect(bus.opens).toBe(opens + 2); // the next after initialMs × factor
    bus.nacking.delete(0x27);
    await vi.advanceTimersByTimeAsync(2000 + 100);
    expect(display.health().ok).toBe(true);
    expect(model.text().map((l) => l.trimEnd())).toEqual(['Vlozte polozku do', 'schranky 3', 'a zavrete dvirka', '']);
    await display.close();
  });

  it('no bus at all (i2c not enabled): the health tells how to enable it', async () => {
    const { bus, display } = rig();
    bus.openError = 'ENOENT';
    await started(display);
    expect(display.health().detail).toMatch(/\/dev\/i2c-1: bus not found .*dtparam=i2c_arm=on/);
    await display.close();
  });
});
