/**
 * The SSD1306/SH1106 OLED driver against a fake I2C bus with a controller model behind it: the
 * framebuffer the controller ends up with is read back as text cell by cell (what a person sees),
 * for a deposit's texts in English and Czech (written as PNGs to test-artifacts/); changed pages
 * only; contrast; dim and off when idle, on at input; the SH1106's column offset; a module that
 * does not answer.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tallGlyph } from '../../src/devices/display/font.js';
import { renderOled } from '../../src/devices/display/ssd1306.js';
import { SERVER_TEXTS } from '../../src/reference-server/messages.js';
import { oledOnFakeBus, readOledText, writePng, type OledModel } from '../support/display-models.js';

const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
const EN = SERVER_TEXTS.en.depositClosing(3);
const CS = SERVER_TEXTS.cs.depositClosing(3);

const read = (m: OledModel) => readOledText(m.pixels(), tallGlyph);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('renderOled', () => {
  it("places a glyph's pixels in the page bits (A at the top left: columns 2-4 lit in its top row)", () => {
    const pages = renderOled(['A'], 'wrap');
    // Tall glyph row 3 (the capital's top) is y = 2 + 3 = 5: bit 5 of page 0.
    expect([...(pages[0] ?? new Uint8Array(128)).subarray(0, 7)].map((b) => (b >> 5) & 1)).toEqual([0, 0, 1, 1, 1, 0, 0]);
  });
});

describe('OledDisplay on a fake bus', () => {
  it('initialises (charge pump, contrast, page addressing) and switches the panel on', async () => {
    const { model, display } = oledOnFakeBus();
    await display.start();
    await display.show(EN);
    expect(model.violations).toEqual([]);
    expect(model.chargePump).toBe(true);
    expect(model.contrast).toBe(0xcf);
    expect(model.displayOn).toBe(true);
    expect(display.health()).toEqual({ ok: true, detail: null });
    await display.close();
  });

  it('a deposit in English and Czech: the framebuffer reads back as the fitted lines, accents drawn', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const { model, display } = oledOnFakeBus();
    await display.start();
    await display.show(EN);
    expect(read(model)).toEqual({ rows: ['Put the item in box 3', 'and close the door', '', ''], stray: 0 });
    writePng(join(ARTIFACTS, 'oled-deposit-en.png'), model.pixels(), 128, 64);
    await display.show(CS);
    expect(read(model)).toEqual({ rows: ['Vložte položku do', 'schránky 3', 'a zavřete dvířka', ''], stray: 0 });
    writePng(join(ARTIFACTS, 'oled-deposit-cs.png'), model.pixels(), 128, 64);
    await display.show(['ŽLUŤOUČKÝ KŮŇ ÚPĚL', 'ĎÁBELSKÉ ÓDY']);
    expect(read(model).rows.slice(0, 2)).toEqual(['ŽLUŤOUČKÝ KŮŇ ÚPĚL', 'ĎÁBELSKÉ ÓDY']);
    await display.close();
  });

  it('only the pages of changed rows are written', async () => {
    const { bus, display } = oledOnFakeBus();
    await display.start();
    await display.show(['Scan an item', 'or enter your PIN']);
    const from = bus.transfers.length;
    await display.show(['Scan an item', 'PIN: ****']);
    const pagesWritten = bus.transfers
      .slice(from)
      .flatMap((t) => (t.kind === 'block' && t.command === 0x00 ? t.data.filter((b) => b >= 0xb0 && b <= 0xb7).map((b) => b & 7) : []));
    expect(pagesWritten).toEqual([2, 3]);
    const same = bus.transfers.length;
    await display.show(['Scan an item', 'PIN: ****']);
    expect(bus.transfers.length).toBe(same);
  });

  it('dims, then switches off when idle; any input (wake) or new lines switch it on at full contrast', async () => {
    const { model, display } = oledOnFakeBus({ idle: { dimAfterMs: 60_000, offAfterMs: 600_000, dimContrast: 1 } });
    await display.start();
    await display.show(EN);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(model.contrast).toBe(0xcf);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(model.contrast).toBe(1);
    expect(model.displayOn).toBe(true);
    await vi.advanceTimersByTimeAsync(540_000);
    expect(model.displayOn).toBe(false);
    expect(display.powerState()).toBe('off');
    display.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(model.displayOn).toBe(true);
    expect(model.contrast).toBe(0xcf);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(model.displayOn).toBe(false);
    await display.show(CS);
    expect(model.displayOn).toBe(true);
    expect(read(model).rows[0]).toBe('Vložte položku do');
    await display.close();
  });

  it('SH1106: its 132-column memory with the panel at column 2, no charge-pump command', async () => {
    const { model, display } = oledOnFakeBus({ controller: 'sh1106' });
    await display.start();
    await display.show(CS);
    expect(model.violations).toEqual([]);
    expect(read(model)).toEqual({ rows: ['Vložte položku do', 'schránky 3', 'a zavřete dvířka', ''], stray: 0 });
    await display.close();
  });

  it('not answering: device health, show() resolves, drawn once it answers', async () => {
    const { bus, model, display } = oledOnFakeBus();
    bus.nacking.add(0x3c);
    await display.start();
    expect(display.health().detail).toMatch(/^display i2c-1 0x3c \(SSD1306\): no answer at this address \(EREMOTEIO/);
    await expect(display.show(EN)).resolves.toBeUndefined();
    bus.nacking.delete(0x3c);
    await vi.advanceTimersByTimeAsync(600);
    expect(display.health().ok).toBe(true);
    expect(read(model).rows[0]).toBe('Put the item in box 3');
    await display.close();
  });
});
