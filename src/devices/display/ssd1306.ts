/**
 * A 128×64 monochrome OLED with an SSD1306 or SH1106 controller on I2C (addresses 0x3C or 0x3D),
 * implementing Display.
 *
 * The lines are drawn with the repository's bitmap font (font.ts: ASCII and the accented Latin
 * letters, Czech complete; other characters transliterated): 21 columns × 4 rows, each row a
 * 16-pixel band (two of the controller's 8-pixel pages), glyphs 5 px wide in 6 px cells, capitals'
 * accents above them. Fitting (wrap/cut) is the serial LCD's (text.ts).
 *
 * Only the pages whose pixels changed are written (page address, column address, then the page's
 * 128 bytes as I2C block writes of 32). The SH1106 is the same but for its 132-column memory (the
 * panel shows columns 2–129) and its lack of a charge-pump command (its DC-DC is switched by 0xAD).
 *
 * OLEDs burn in: after `idle.dimAfterMs` without a change of the lines or an input (wake()) the
 * contrast drops to `idle.dimContrast`, after `idle.offAfterMs` the panel is switched off (its
 * memory kept); the next show() with new lines or wake() switches it on at full contrast.
 */
import { fitLines, toCharset, type Overflow } from './text.js';
import { hasGlyph, tallGlyph, TALL_ROWS } from './font.js';
import { I2C_BLOCK_MAX, type I2cBus } from './i2c/bus.js';
import { I2cDisplay, type I2cDisplayOptions } from './i2c/i2c-display.js';

export type OledController = 'ssd1306' | 'sh1106';

export interface OledIdle {
  /** Dim after this long without new lines or input; null = never. */
  readonly dimAfterMs: number | null;
  /** Switch the panel off after this long; null = never. */
  readonly offAfterMs: number | null;
  readonly dimContrast: number;
}

export interface OledOptions extends I2cDisplayOptions {
  readonly controller: OledController;
  readonly overflow: Overflow;
  /** 0–255. */
  readonly contrast: number;
  /** Mounted upside down. */
  readonly rotate180: boolean;
  readonly idle: OledIdle;
}

export const OLED_WIDTH = 128;
export const OLED_HEIGHT = 64;
export const OLED_PAGES = OLED_HEIGHT / 8;
export const OLED_TEXT = { columns: 21, rows: 4 } as const;
const CELL_WIDTH = 6;
const ROW_PITCH = 16;
/** Left margin: 21 cells of 6 px are 126 px. */
const LEFT = 1;
/** Glyph top inside its 16-pixel band. */
const TOP = 2;

/** Control bytes: the rest of the transfer is commands / display memory. */
export const CONTROL_COMMANDS = 0x00;
export const CONTROL_DATA = 0x40;

const DISPLAY_OFF = 0xae;
const DISPLAY_ON = 0xaf;
const SET_CONTRAST = 0x81;

/** The framebuffer for `lines`: OLED_PAGES pages of OLED_WIDTH bytes (bit 0 = top pixel of the page). Pure. */
export function renderOled(lines: readonly string[], overflow: Overflow): Uint8Array[] {
  const prepared = lines.map((l) => {
    let out = '';
    for (const ch of toCharset(l, 'utf8')) out += hasGlyph(ch) ? ch : toCharset(ch, 'ascii');
    return out;
  });
  const rows = fitLines(prepared, OLED_TEXT, overflow);
  const pages = Array.from({ length: OLED_PAGES }, () => new Uint8Array(OLED_WIDTH));
  rows.forEach((row, r) => {
    [...row].forEach((ch, c) => {
      const glyph = tallGlyph(ch) ?? tallGlyph('?') ?? [];
      for (let gy = 0; gy < TALL_ROWS; gy++) {
        const bits = glyph[gy] ?? 0;
        const y = r * ROW_PITCH + TOP + gy;
        for (let gx = 0; gx < 5; gx++) {
          if (!(bits & (0x10 >> gx))) continue;
          const x = LEFT + c * CELL_WIDTH + gx;
          const page = pages[y >> 3];
          if (page && x < OLED_WIDTH) page[x] = (page[x] ?? 0) | (1 << (y & 7));
        }
      }
    });
  });
  return pages;
}

/** The initialisation commands (datasheet power-on sequence), panel left off and blank-able. */
export function oledInitCommands(o: Pick<OledOptions, 'controller' | 'contrast' | 'rotate180'>): number[] {
  const common = [
    DISPLAY_OFF,
    0xd5,
    0x80, // clock divide / oscillator
    0xa8,
    0x3f, // multiplex 64
    0xd3,
    0x00, // display offset 0
    0x40, // start line 0
    o.rotate180 ? 0xa0 : 0xa1, // segment remap
    o.rotate180 ? 0xc0 : 0xc8, // COM scan direction
    0xda,
    0x12, // COM pins: alternative (128×64)
    SET_CONTRAST,
    o.contrast,
    0xdb,
    0x40, // VCOMH
    0xa4, // show the display memory
    0xa6, // not inverted
  ];
  return o.controller === 'ssd1306'
    ? [...common, 0x20, 0x02, 0x8d, 0x14, 0xd9, 0xf1] // page addressing, charge pump on, pre-charge
    : [...common, 0xad, 0x8b, 0xd9, 0x22]; // SH1106: DC-DC on, pre-charge
}

type Power = 'on' | 'dim' | 'off';

export class OledDisplay extends I2cDisplay {
  /** What the controller's memory holds; null: unknown. */
  private pages: Uint8Array[] | null = null;
  private power: Power = 'on';
  /** What the panel is set to; null: unknown (after init, the panel is off). */
  private panel: Power | null = null;
  private shownLines: readonly string[] | null = null;
  private dimTimer: NodeJS.Timeout | null = null;
  private offTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: OledOptions) {
    super(o.controller.toUpperCase(), o);
  }

  /** Input at the station: back on at full contrast, idle time restarts. */
  wake(): void {
    this.activity();
  }

  override show(lines: readonly string[]): Promise<void> {
    const same = this.shownLines !== null && lines.length === this.shownLines.length && lines.every((l, i) => l === this.shownLines?.[i]);
    this.shownLines = [...lines];
    if (!same) this.activity(false);
    return super.show(lines);
  }

  /** The panel's power state (for tests and the technician). */
  powerState(): Power {
    return this.power;
  }

  private activity(flush = true): void {
    const { dimAfterMs, offAfterMs } = this.o.idle;
    if (this.dimTimer) clearTimeout(this.dimTimer);
    if (this.offTimer) clearTimeout(this.offTimer);
    this.dimTimer = dimAfterMs === null ? null : setTimeout(() => this.setPower('dim'), dimAfterMs);
    this.offTimer = offAfterMs === null ? null : setTimeout(() => this.setPower('off'), offAfterMs);
    const was = this.power;
    this.power = 'on';
    if (flush && was !== 'on') void this.flush();
  }

  private setPower(p: Power): void {
    if (p === 'dim' && this.power === 'off') return;
    this.power = p;
    void this.flush();
  }

  protected override onClose(): void {
    if (this.dimTimer) clearTimeout(this.dimTimer);
    if (this.offTimer) clearTimeout(this.offTimer);
  }

  private commands(bus: I2cBus, cmds: readonly number[]): Promise<void> {
    return this.blocks(bus, CONTROL_COMMANDS, cmds);
  }

  private async blocks(bus: I2cBus, control: number, bytes: readonly number[]): Promise<void> {
    for (let i = 0; i < bytes.length; i += I2C_BLOCK_MAX) await bus.writeI2cBlock(this.o.address, control, Uint8Array.from(bytes.slice(i, i + I2C_BLOCK_MAX)));
  }

  protected async init(bus: I2cBus): Promise<void> {
    this.pages = null;
    this.panel = null;
    await this.commands(bus, oledInitCommands(this.o));
  }

  protected async draw(bus: I2cBus, lines: readonly string[], full: boolean): Promise<void> {
    const before = full ? null : this.pages;
    const next = renderOled(lines, this.o.overflow);
    const offset = this.o.controller === 'sh1106' ? 2 : 0;
    this.pages = null;
    for (let p = 0; p < OLED_PAGES; p++) {
      const page = next[p] ?? new Uint8Array(OLED_WIDTH);
      const old = before?.[p];
      if (old && old.every((b, i) => b === page[i])) continue;
      await this.commands(bus, [0xb0 | p, offset & 0x0f, 0x10 | (offset >> 4)]);
      await this.blocks(bus, CONTROL_DATA, [...page]);
    }
    this.pages = next;
    await this.applyPower(bus, full);
  }

  private async applyPower(bus: I2cBus, full: boolean): Promise<void> {
    const want = this.power;
    if (!full && this.panel === want) return;
    this.panel = null;
    if (want === 'off') await this.commands(bus, [DISPLAY_OFF]);
    else await this.commands(bus, [SET_CONTRAST, want === 'dim' ? this.o.idle.dimContrast : this.o.contrast, DISPLAY_ON]);
    this.panel = want;
  }
}
