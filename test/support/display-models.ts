/**
 * The far side of the I2C bus, for tests: models of the controllers that turn what reached the bus
 * into what a real display would show, a fake bus that feeds them (unit tests), and a PNG writer
 * for the OLED framebuffer. The rig's test feeds the same models from the kernel's i2c tracepoints.
 *
 * The models are written from the datasheets, not from the drivers: the HD44780 starts in 8-bit
 * mode as after power-on, latches a nibble on E's falling edge, and checks the initialisation
 * delays (against the clock it is given); the SSD1306/SH1106 parses the command stream.
 */
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { pino } from 'pino';
import type { I2cBus } from '../../src/devices/display/i2c/bus.js';
import type { Pcf8574Pins } from '../../src/devices/display/hd44780.js';
import { OledDisplay, type OledOptions } from '../../src/devices/display/ssd1306.js';

/** ROM A00 characters that differ from ASCII. */
const A00: Readonly<Record<number, string>> = { 0x5c: '¥', 0x7e: '→', 0x7f: '←' };

/** A HD44780 behind a PCF8574: feed it the bytes latched onto the expander's pins. */
export class Hd44780Model {
  private pinsNow = 0;
  private eightBit = true;
  private high: number | null = null;
  private addr = 0;
  private cg = false;
  readonly ddram = new Uint8Array(0x80).fill(0x20);
  readonly cgram = new Uint8Array(64);
  displayOn = false;
  backlight = false;
  twoLines = false;
  /** Protocol violations seen (a wrong init, data changing while E is high, RW set, a too-short wait). */
  readonly violations: string[] = [];
  /** Instructions executed (8-bit values), in order. */
  readonly instructions: number[] = [];
  private busyUntil = 0;
  private initStep = 0;
  private readonly poweredAt: number;

  constructor(
    private readonly pins: Pcf8574Pins,
    private readonly columns: number,
    private readonly rows: number,
    /** The clock the waits are checked against (ms); in unit tests Date.now under fake timers. */
    private readonly now: () => number = () => 0,
  ) {
    this.poweredAt = now();
  }

  private bit(n: number): boolean {
    return (this.pinsNow & (1 << n)) !== 0;
  }

  write(byte: number): void {
    const e = 1 << this.pins.e;
    const before = this.pinsNow;
    this.pinsNow = byte;
    this.backlight = this.bit(this.pins.backlight);
    if (this.bit(this.pins.rw)) this.violations.push('RW high: the driver never reads');
    if (before & e && byte & e && (before & ~e) !== (byte & ~e)) this.violations.push('data changed while E high');
    if (!(before & e) && byte & e && (before & ~e) !== (byte & ~e)) this.violations.push('RS/data set together with E rising (no set-up)');
    if (before & e && !(byte & e)) this.latch();
  }

  private latch(): void {
    const p = this.pins;
    const nibble = (this.bit(p.d4) ? 1 : 0) | (this.bit(p.d5) ? 2 : 0) | (this.bit(p.d6) ? 4 : 0) | (this.bit(p.d7) ? 8 : 0);
    const rs = this.bit(p.rs);
    if (this.eightBit) {
      // D0-D3 are not wired: they read 0.
      this.execute(nibble << 4, rs);
      return;
    }
    if (this.high === null) {
      this.high = nibble;
      return;
    }
    const v = (this.high << 4) | nibble;
    this.high = null;
    this.execute(v, rs);
  }

  private wait(ms: number): void {
    this.busyUntil = this.now() + ms;
  }

  private execute(v: number, rs: boolean): void {
    const t = this.now();
    if (t < this.busyUntil) this.violations.push(`instruction 0x${v.toString(16)} while busy (${this.busyUntil - t} ms early)`);
    if (rs) {
      if (this.cg) {
        this.cgram[this.addr & 0x3f] = v & 0x1f;
        this.addr = (this.addr + 1) & 0x3f;
      } else {
        this.ddram[this.addr & 0x7f] = v;
        this.addr = this.addr === 0x27 ? 0x40 : this.addr === 0x67 ? 0x00 : (this.addr + 1) & 0x7f;
      }
      return;
    }
    this.instructions.push(v);
    // The datasheet's 4-bit initialisation: three 8-bit function sets, then 4-bit.
    if (this.initStep < 3) {
      if (v !== 0x30) return void this.violations.push(`init step ${this.initStep + 1}: expected 0x30, got 0x${v.toString(16)}`);
      if (this.initStep === 0 && t - this.poweredAt < 40) this.violations.push('first instruction less than 40 ms after power-on');
      this.initStep++;
      this.wait(this.initStep === 1 ? 4.1 : 0.1);
      return;
    }
    if (v & 0x80) {
      this.cg = false;
      this.addr = v & 0x7f;
    } else if (v & 0x40) {
      this.cg = true;
      this.addr = v & 0x3f;
    } else if (v & 0x20) {
      this.eightBit = (v & 0x10) !== 0;
      this.twoLines = (v & 0x08) !== 0;
    } else if (v & 0x08) {
      this.displayOn = (v & 0x04) !== 0;
    } else if (v & 0x04) {
      if (v !== 0x06) this.violations.push(`entry mode 0x${v.toString(16)}: expected increment without shift`);
    } else if (v & 0x02) {
      this.addr = 0;
      this.cg = false;
      this.wait(1.52);
    } else if (v === 0x01) {
      this.ddram.fill(0x20);
      this.addr = 0;
      this.cg = false;
      this.wait(1.52);
    }
  }

  /** The 8 rows of custom character `slot`. */
  glyph(slot: number): number[] {
    return [...this.cgram.subarray(slot * 8, slot * 8 + 8)];
  }

  /**
   * The screen as text; custom characters are named by `customNames` (their 8 rows as hex, e.g.
   * "0a040e1010110e00" -> "č"), or shown as "□".
   */
  text(customNames: ReadonlyMap<string, string> = new Map()): string[] {
    if (!this.displayOn) return Array.from({ length: this.rows }, () => '');
    const out: string[] = [];
    for (let r = 0; r < this.rows; r++) {
      const base = (r % 2 === 0 ? 0 : 0x40) + (r >= 2 ? this.columns : 0);
      let s = '';
      for (let c = 0; c < this.columns; c++) {
        const code = this.ddram[base + c] ?? 0x20;
        if (code < 0x10) s += customNames.get(glyphKey(this.glyph(code & 7))) ?? '□';
        else s += A00[code] ?? (code >= 0x20 && code < 0x80 ? String.fromCharCode(code) : '�');
      }
      out.push(s);
    }
    return out;
  }
}

export const glyphKey = (rows: readonly number[]): string => rows.map((r) => r.toString(16).padStart(2, '0')).join('');

/** A SSD1306 / SH1106 128×64: feed it I2C block writes (control byte + bytes). */
export class OledModel {
  readonly ram: Uint8Array[];
  private page = 0;
  private column = 0;
  displayOn = false;
  contrast = 0x7f;
  chargePump = false;
  readonly violations: string[] = [];
  private pending: number[] = [];

  constructor(readonly controller: 'ssd1306' | 'sh1106') {
    this.ram = Array.from({ length: 8 }, () => new Uint8Array(this.ramWidth));
  }

  private get ramWidth(): number {
    return this.controller === 'sh1106' ? 132 : 128;
  }

  /** Arguments each command takes. */
  private static args(cmd: number): number {
    if ([0x81, 0xa8, 0xd3, 0xd5, 0xd9, 0xda, 0xdb, 0x8d, 0x20, 0xad].includes(cmd)) return 1;
    if (cmd === 0x21 || cmd === 0x22) return 2;
    return 0;
  }

  write(control: number, bytes: readonly number[]): void {
    if (control === 0x40) {
      for (const b of bytes) {
        const row = this.ram[this.page];
        if (row && this.column < this.ramWidth) row[this.column] = b;
        this.column++;
      }
      return;
    }
    if (control !== 0x00) return void this.violations.push(`unknown control byte 0x${control.toString(16)}`);
    for (const b of bytes) {
      this.pending.push(b);
      const cmd = this.pending[0] ?? 0;
      if (this.pending.length <= OledModel.args(cmd)) continue;
      this.execute(this.pending);
      this.pending = [];
    }
  }

  private execute([cmd = 0, a = 0]: number[]): void {
    if (cmd === 0xae) this.displayOn = false;
    else if (cmd === 0xaf) this.displayOn = true;
    else if (cmd === 0x81) this.contrast = a;
    else if (cmd === 0x8d) {
      if (this.controller === 'sh1106') this.violations.push('0x8D (charge pump) sent to a SH1106');
      this.chargePump = (a & 0x04) !== 0;
    } else if (cmd === 0x20 && a !== 0x02) this.violations.push('only page addressing is modelled');
    else if (cmd >= 0xb0 && cmd <= 0xb7) this.page = cmd & 7;
    else if (cmd <= 0x0f) this.column = (this.column & 0xf0) | cmd;
    else if (cmd >= 0x10 && cmd <= 0x1f) this.column = (this.column & 0x0f) | ((cmd & 0x0f) << 4);
  }

  /** The visible 128×64 pixels (row-major, 1 = lit), whatever the panel's power. */
  pixels(): Uint8Array {
    const off = this.controller === 'sh1106' ? 2 : 0;
    const px = new Uint8Array(128 * 64);
    for (let y = 0; y < 64; y++) for (let x = 0; x < 128; x++) px[y * 128 + x] = ((this.ram[y >> 3]?.[x + off] ?? 0) >> (y & 7)) & 1;
    return px;
  }

  /** The framebuffer as text art ('#' lit, '.' dark), for failure messages. */
  art(): string {
    const px = this.pixels();
    const lines: string[] = [];
    for (let y = 0; y < 64; y++) lines.push([...px.subarray(y * 128, y * 128 + 128)].map((p) => (p ? '#' : '.')).join(''));
    return lines.join('\n');
  }
}

/** Device models behind a fake bus, by address. */
export interface BusDevice {
  sendByte?(byte: number): void;
  block?(command: number, data: readonly number[]): void;
}

export type Transfer =
  | { readonly address: number; readonly kind: 'byte'; readonly byte: number }
  | { readonly address: number; readonly kind: 'block'; readonly command: number; readonly data: number[] };

/** An I2cBus where the kernel would be: the models answer; an absent (or `nacking`) address fails as the kernel does (EREMOTEIO). */
export class FakeI2cBus {
  readonly devices = new Map<number, BusDevice>();
  readonly transfers: Transfer[] = [];
  nacking = new Set<number>();
  opens = 0;
  /** When set, opening the bus fails with this errno code. */
  openError: string | null = null;

  private check(address: number): void {
    if (!this.devices.has(address) || this.nacking.has(address)) throw Object.assign(new Error('Remote I/O error'), { code: 'EREMOTEIO' });
  }

  opener = (bus: number): Promise<I2cBus> => {
    if (this.openError !== null) return Promise.reject(Object.assign(new Error(`cannot open /dev/i2c-${bus}`), { code: this.openError }));
    this.opens++;
    return Promise.resolve({
      path: `/dev/i2c-${bus}`,
      sendByte: (address, byte) => {
        this.check(address);
        this.transfers.push({ address, kind: 'byte', byte });
        this.devices.get(address)?.sendByte?.(byte);
        return Promise.resolve();
      },
      writeI2cBlock: (address, command, data) => {
        if (data.length > 32) return Promise.reject(new Error('I2C block longer than 32 bytes'));
        this.check(address);
        this.transfers.push({ address, kind: 'block', command, data: [...data] });
        this.devices.get(address)?.block?.(command, [...data]);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    });
  };
}

/** Write a 1-bit framebuffer (row-major) as a grayscale PNG, `scale`× enlarged, lit pixels in an OLED's blue-white. */
export function writePng(path: string, pixels: Uint8Array, width: number, height: number, scale = 4): void {
  const w = width * scale;
  const h = height * scale;
  const raw = Buffer.alloc((w + 1) * h);
  for (let y = 0; y < h; y++) {
    raw[y * (w + 1)] = 0;
    for (let x = 0; x < w; x++) raw[y * (w + 1) + 1 + x] = pixels[Math.floor(y / scale) * width + Math.floor(x / scale)] ? 0xe8 : 0x10;
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** Every character the OLED text reader tries, in order of preference. */
const OLED_CANDIDATES = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)), ...'áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽäöüÄÖÜ'];

/**
 * Read the text back from an OLED framebuffer as a person would: each 6×16 cell compared with the
 * font's glyphs at the position the layout puts them (21 × 4, glyphs at x 1+6c, y 16r+2). A cell
 * that matches no glyph reads "□"; lit pixels outside every glyph box are reported too.
 */
export function readOledText(pixels: Uint8Array, glyphOf: (ch: string) => readonly number[] | undefined): { rows: string[]; stray: number } {
  const lit = (x: number, y: number): boolean => pixels[y * 128 + x] === 1;
  const rows: string[] = [];
  const covered = new Uint8Array(128 * 64);
  for (let r = 0; r < 4; r++) {
    let s = '';
    for (let c = 0; c < 21; c++) {
      const x0 = 1 + c * 6;
      const y0 = r * 16 + 2;
      const cell: number[] = [];
      for (let gy = 0; gy < 11; gy++) {
        let bits = 0;
        for (let gx = 0; gx < 5; gx++) {
          covered[(y0 + gy) * 128 + x0 + gx] = 1;
          if (lit(x0 + gx, y0 + gy)) bits |= 0x10 >> gx;
        }
        cell.push(bits);
      }
      const key = cell.join(',');
      s += OLED_CANDIDATES.find((ch) => (glyphOf(ch) ?? []).join(',') === key) ?? '□';
    }
    rows.push(s.trimEnd());
  }
  let stray = 0;
  for (let i = 0; i < pixels.length; i++) if (pixels[i] === 1 && covered[i] !== 1) stray++;
  return { rows, stray };
}

/**
 * An OLED driver on a fake bus with its controller model at 0x3C: an SSD1306 as the profile's
 * defaults set it up (no idle dimming), with `over` in place of any option.
 */
export function oledOnFakeBus(over: Partial<OledOptions> = {}): { bus: FakeI2cBus; model: OledModel; display: OledDisplay } {
  const bus = new FakeI2cBus();
  const o: OledOptions = {
    controller: 'ssd1306',
    bus: 1,
    address: 0x3c,
    overflow: 'wrap',
    contrast: 0xcf,
    rotate180: false,
    idle: { dimAfterMs: null, offAfterMs: null, dimContrast: 1 },
    reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
    openTimeoutMs: 5_000,
    log: pino({ level: 'silent' }),
    opener: bus.opener,
    ...over,
  };
  const model = new OledModel(o.controller);
  bus.devices.set(0x3c, { block: (control, data) => model.write(control, data) });
  return { bus, model, display: new OledDisplay(o) };
}
