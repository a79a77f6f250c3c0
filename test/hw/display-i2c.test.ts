/**
 * The I2C displays through the kernel: i2c-bus on /dev/i2c-N of the kernel's i2c-stub (chips at
 * 0x27 and 0x3c, loaded by scripts/rig/guest-init.sh). What reached the bus is read back from the
 * kernel's smbus_write tracepoints (tracefs) and decoded by the controller models, with the
 * kernel's timestamps as the HD44780 model's clock (so the datasheet's init waits are checked on
 * real time): the 20×4 LCD screen and the OLED framebuffer of a deposit in English and Czech.
 * The OLED framebuffers leave the VM as base64 between markers on the console; scripts/rig/run.sh
 * writes them to test-artifacts/. Runs in the rig VM; skips elsewhere.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellGlyph, tallGlyph } from '../../src/devices/display/font.js';
import { COMMON_BACKPACK_PINS, Hd44780Display, type Hd44780Options } from '../../src/devices/display/hd44780.js';
import { OledDisplay } from '../../src/devices/display/ssd1306.js';
import { SERVER_TEXTS } from '../../src/reference-server/messages.js';
import { glyphKey, Hd44780Model, OledModel, readOledText, writePng } from '../support/display-models.js';
import { report, silentLog, waitFor } from './sim.js';

const TRACING = '/sys/kernel/tracing';
const STUB_NAME = 'SMBus stub driver';

/** The i2c-stub adapter's bus number, or null where there is none (not in the rig VM). */
function stubBus(): number | null {
  const dir = '/sys/class/i2c-dev';
  if (!existsSync(dir)) return null;
  for (const d of readdirSync(dir)) {
    if (readFileSync(join(dir, d, 'name'), 'utf8').trim() === STUB_NAME) return Number(d.replace('i2c-', ''));
  }
  return null;
}

const BUS = stubBus();
const EN = SERVER_TEXTS.en.depositClosing(3);
const CS = SERVER_TEXTS.cs.depositClosing(3);
const reconnect = { initialMs: 200, maxMs: 1_000, factor: 2 };

interface Write {
  readonly t: number;
  readonly address: number;
  readonly command: number;
  readonly protocol: string;
  readonly data: number[];
}

const write = (file: string, value: string): void => writeFileSync(join(TRACING, file), value);

/** The smbus_write events in the trace buffer since the last clear, then clear it. */
function takeWrites(): Write[] {
  const text = readFileSync(join(TRACING, 'trace'), 'utf8');
  write('trace', '');
  const out: Write[] = [];
  const re = /\s(\d+\.\d+): smbus_write: i2c-(\d+) a=([0-9a-f]+) f=[0-9a-f]+ c=([0-9a-f]+) (\w+) l=(\d+) \[([0-9a-f-]*)\]/;
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (!m || Number(m[2]) !== BUS) continue;
    const buf = (m[7] ?? '') === '' ? [] : (m[7] ?? '').split('-').map((h) => parseInt(h, 16));
    // Block transfers carry their length as the first byte of the traced buffer.
    const data = m[5] === 'I2C_BLOCK_DATA' ? buf.slice(1) : buf;
    out.push({ t: Number(m[1]) * 1000, address: parseInt(m[3] ?? '0', 16), command: parseInt(m[4] ?? '0', 16), protocol: m[5] ?? '', data });
  }
  return out;
}

describe.skipIf(BUS === null)('I2C displays through i2c-dev on i2c-stub (0x27 LCD, 0x3c OLED)', () => {
  const bus = BUS ?? 0;
  beforeAll(() => {
    // The transfers run on libuv's worker threads, on either CPU, and the trace merges the CPUs'
    // buffers by timestamp: under TCG the CPUs' own clocks (trace_clock local/global) disagree and
    // events came out of order. So: every thread of this process on CPU 0 (new ones inherit it),
    // and the clocksource's monotonic time (one clock for all CPUs) for the waits.
    execFileSync('taskset', ['-a', '-p', '1', String(process.pid)], { stdio: 'ignore' });
    write('trace_clock', 'mono');
    write('buffer_size_kb', '4096');
    write('events/smbus/smbus_write/enable', '1');
    write('trace', '');
  });
  afterAll(() => write('events/smbus/smbus_write/enable', '0'));

  it('HD44780 20x4: the kernel saw the 4-bit init with its waits and the deposit texts, English and Czech (custom characters)', async () => {
    const o: Hd44780Options = {
      bus,
      address: 0x27,
      size: { columns: 20, rows: 4 },
      overflow: 'wrap',
      pins: COMMON_BACKPACK_PINS,
      backlight: true,
      czech: 'custom-characters',
      reconnect,
      openTimeoutMs: 10_000,
      log: silentLog,
    };
    const d = new Hd44780Display(o);
    write('trace', '');
    await d.start();
    expect(d.health()).toEqual({ ok: true, detail: null });
    const first = takeWrites().filter((w) => w.address === 0x27);
    // The model powers on at the first transfer (the probe): the first instruction must come > 40 ms later.
    let clock = first[0]?.t ?? 0;
    const model = new Hd44780Model(COMMON_BACKPACK_PINS, 20, 4, () => clock);
    const feed = (writes: readonly Write[]): number => {
      for (const w of writes) {
        expect(w.protocol).toBe('BYTE');
        clock = w.t;
        model.write(w.command);
      }
      return writes.length;
    };
    feed(first);
    const waits = model.instructions.length;
    report(`[i2c] HD44780 init: ${first.length} bytes in ${(clock - (first[0]?.t ?? 0)).toFixed(1)} ms`);
    expect(model.violations).toEqual([]);
    expect(model.instructions.slice(0, 9)).toEqual([0x30, 0x30, 0x30, 0x20, 0x28, 0x08, 0x01, 0x06, 0x0c]);
    expect(waits).toBe(9);

    const names = new Map([...'áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ'].map((ch) => [glyphKey(cellGlyph(ch) ?? []), ch]));
    await d.show(EN);
    report(`[i2c] HD44780 English: ${feed(takeWrites().filter((w) => w.address === 0x27))} bytes on the bus`);
    expect(model.text(names).map((l) => l.trimEnd())).toEqual(['Put the item in box', '3', 'and close the door', '']);
    await d.show(CS);
    report(`[i2c] HD44780 Czech: ${feed(takeWrites().filter((w) => w.address === 0x27))} bytes on the bus`);
    expect(model.violations).toEqual([]);
    const screen = model.text(names);
    report(`[i2c] HD44780 decoded:\n${screen.map((l) => `  |${l}|`).join('\n')}`);
    expect(screen.map((l) => l.trimEnd())).toEqual(['Vložte položku do', 'schránky 3', 'a zavřete dvířka', '']);
    expect(model.backlight).toBe(true);
    await d.close();
  });

  it('SSD1306 128x64: the framebuffer the kernel saw written reads back as the deposit texts (PNG artifacts)', async () => {
    const d = new OledDisplay({
      controller: 'ssd1306',
      bus,
      address: 0x3c,
      overflow: 'wrap',
      contrast: 0xcf,
      rotate180: false,
      idle: { dimAfterMs: null, offAfterMs: null, dimContrast: 1 },
      reconnect,
      openTimeoutMs: 10_000,
      log: silentLog,
    });
    const model = new OledModel('ssd1306');
    const feed = (): void => {
      for (const w of takeWrites().filter((x) => x.address === 0x3c)) {
        expect(w.protocol).toBe('I2C_BLOCK_DATA');
        model.write(w.command, w.data);
      }
    };
    write('trace', '');
    await d.start();
    expect(d.health()).toEqual({ ok: true, detail: null });
    for (const [name, lines, expected] of [
      ['en', EN, ['Put the item in box 3', 'and close the door', '', '']],
      ['cs', CS, ['Vložte položku do', 'schránky 3', 'a zavřete dvířka', '']],
    ] as const) {
      await d.show(lines);
      feed();
      expect(model.violations).toEqual([]);
      expect(model.displayOn).toBe(true);
      const png = join(tmpdir(), `oled-deposit-${name}-kernel.png`);
      writePng(png, model.pixels(), 128, 64);
      report(`[artifact oled-deposit-${name}-kernel.png]${readFileSync(png).toString('base64')}[/artifact]`);
      expect(readOledText(model.pixels(), tallGlyph)).toEqual({ rows: expected, stray: 0 });
    }
    await d.close();
  });

  it('an address nothing answers at: device health names it, retried with backoff, never a throw', async () => {
    const d = new Hd44780Display({
      bus,
      address: 0x3f,
      size: { columns: 16, rows: 2 },
      overflow: 'cut',
      pins: COMMON_BACKPACK_PINS,
      backlight: true,
      czech: 'transliterate',
      reconnect,
      openTimeoutMs: 10_000,
      log: silentLog,
    });
    await d.start();
    await expect(d.show(EN)).resolves.toBeUndefined();
    const detail = d.health().detail ?? '';
    report(`[i2c] missing display: ${detail}`);
    expect(d.health().ok).toBe(false);
    expect(detail).toMatch(new RegExp(`^display i2c-${bus} 0x3f \\(HD44780\\): no answer at this address \\((ENXIO|ENODEV|EREMOTEIO)`));
    // Retries reach the bus: the probe's transfer is attempted again (the kernel traces attempts too).
    write('trace', '');
    await waitFor('a retry on the bus', () => readFileSync(join(TRACING, 'trace'), 'utf8').includes('a=03f'), 5_000);
    await d.close();
  });
});
