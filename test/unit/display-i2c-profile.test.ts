/** The board-profile sections of the I2C displays and the kiosk: defaults, hex addresses, the backpack's pins, problems with paths. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displaySchema, inputProfileSchema } from '../../src/devices/input/index.js';

const REPO = join(import.meta.dirname, '../..');

describe('display kinds hd44780-i2c and oled-i2c', () => {
  it('HD44780: bus 1, 0x27, 20x4, the common backpack wiring, backlight on, Czech transliterated', () => {
    expect(inputProfileSchema.parse({ display: { kind: 'hd44780-i2c' } }).display).toEqual({
      kind: 'hd44780-i2c',
      bus: 1,
      address: 0x27,
      columns: 20,
      rows: 4,
      overflow: 'wrap',
      backlight: true,
      pins: { rs: 0, rw: 1, e: 2, backlight: 3, d4: 4, d5: 5, d6: 6, d7: 7 },
      czech: 'transliterate',
      reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
      openTimeoutMs: 5_000,
    });
  });

  it('addresses as numbers or hex strings', () => {
    expect(inputProfileSchema.parse({ display: { kind: 'hd44780-i2c', address: '0x3F' } }).display).toMatchObject({ address: 0x3f });
    expect(inputProfileSchema.parse({ display: { kind: 'oled-i2c', address: 61 } }).display).toMatchObject({ address: 0x3d });
  });

  it('OLED: SSD1306 at 0x3C, contrast 207, dimmed after a minute and off after ten', () => {
    expect(inputProfileSchema.parse({ display: { kind: 'oled-i2c' } }).display).toEqual({
      kind: 'oled-i2c',
      controller: 'ssd1306',
      bus: 1,
      address: 0x3c,
      overflow: 'wrap',
      contrast: 0xcf,
      rotate180: false,
      idle: { dimAfterMs: 60_000, offAfterMs: 600_000, dimContrast: 1 },
      reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
      openTimeoutMs: 5_000,
    });
  });

  it('problems are reported with their paths', () => {
    const r = inputProfileSchema.safeParse({ display: { kind: 'hd44780-i2c', address: '0x99', rows: 5, pins: { e: 0 } } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['display.address', 'display.pins', 'display.rows']);
    const o = inputProfileSchema.safeParse({ display: { kind: 'oled-i2c', controller: 'ssd1309', idle: { dimAfterMs: 5 } } });
    expect(o.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['display.controller', 'display.idle.dimAfterMs']);
  });

  it('kiosk: port 8091 on loopback, the secret from its socket unit, bounded; a tactile keypad beside it is allowed', () => {
    expect(inputProfileSchema.parse({ display: { kind: 'kiosk' } }).display).toEqual({
      kind: 'kiosk',
      port: 8091,
      developmentOwnPort: false,
      cancelLabel: 'Cancel',
      keepAliveMs: 15_000,
      secretHashFile: '/run/pickup-station-kiosk/secret.sha256',
      maxConnections: 16,
      maxStreams: 2,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      idleTimeoutMs: 30_000,
      streamBufferBytes: 65_536,
      refusalLogIntervalMs: 60_000,
      reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
      pageTimeoutMs: 20_000,
      browser: {
        restartCommand: ['systemctl', '--no-ask-password', 'restart', 'pickup-station-kiosk.service'],
        commandTimeoutMs: 120_000,
        startMs: 120_000,
        restartLimit: 3,
      },
    });
    // A tactile keypad beside the touchscreen (a blind patron's) types too.
    const r = inputProfileSchema.safeParse({ display: { kind: 'kiosk' }, keypad: { kind: 'hid', vendorId: 1, productId: 2 } });
    expect(r.success).toBe(true);
  });

  it('the example display sections in hardware/displays/ are valid; the kiosk unit opens the default port', () => {
    const dir = join(REPO, 'hardware/displays');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(['hd44780-i2c.json', 'kiosk.json', 'oled-i2c.json']);
    for (const f of files) expect(displaySchema.safeParse(JSON.parse(readFileSync(join(dir, f), 'utf8'))).error, f).toBeUndefined();
    const unit = readFileSync(join(REPO, 'systemd/pickup-station-kiosk.service'), 'utf8');
    const kiosk = displaySchema.parse({ kind: 'kiosk' });
    const port = kiosk.kind === 'kiosk' ? kiosk.port : -1;
    expect(unit).toContain(`http://127.0.0.1:${port}/`);
    expect(unit).toContain(`/dev/tcp/127.0.0.1/${port}`);
    expect(unit).toMatch(/^After=.*\bpickup-station\.service\b/m);
    expect(unit).toMatch(/^BindsTo=pickup-station-kiosk\.socket$/m);
  });
});
