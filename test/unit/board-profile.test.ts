/** Board profiles: the shipped ones validate; bad ones give ConfigErrors with paths, before any line is touched. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfigObject } from '../../src/config/load.js';
import { createBoardHardware } from '../../src/devices/board.js';
import { boardHardwareSchema } from '../../src/devices/board-config.js';
import { loadBoardProfile } from '../../src/config/board-profile.js';
import { ConfigError } from '../../src/errors.js';
import { configProblems } from '../support/config-problems.js';
import { STATION } from '../support/shared.js';

const HW = join(import.meta.dirname, '../../hardware');

function profileFile(profile: unknown): string {
  const f = join(mkdtempSync(join(tmpdir(), 'profile-')), 'p.json');
  writeFileSync(f, typeof profile === 'string' ? profile : JSON.stringify(profile));
  return f;
}

const box = (n: number, lock: number, door: number) => ({
  number: n,
  lock: { chip: 'pinctrl-bcm2711', offset: lock },
  door: { chip: 'pinctrl-bcm2711', offset: door },
});

describe('board profiles', () => {
  it('ships a Pi 4 profile (12 boxes, sysfs or cdev) and a Pi 5 profile (8 boxes, cdev, matrix keypad)', () => {
    const pi4 = loadBoardProfile(join(HW, 'rpi4-12-boxes.json'), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(pi4.boxes).toHaveLength(12);
    expect(pi4.boxes[0]!.lock).toEqual({ chip: 'pinctrl-bcm2711', offset: 4, activeLow: false });
    expect(pi4.scanners.map((x) => x.kind)).toEqual(['serial', 'hid']); // the input drivers' sections, validated with their schema
    expect(pi4.keypad).toMatchObject({ kind: 'hid', vendorId: 0x04d9, productId: 0x1203 });
    const pi5 = loadBoardProfile(join(HW, 'rpi5-8-boxes.json'), [1, 8]);
    expect(pi5.gpio.backend).toBe('cdev');
    expect(pi5.boxes.every((b) => b.lock.chip === 'pinctrl-rp1' && b.lock.activeLow)).toBe(true);
    expect(pi5.keypad).toMatchObject({ kind: 'gpio-matrix', keys: ['123', '456', '789', '*0#'], scanSettleMs: 20 });
  });

  it('reports each problem with its path: duplicate lines, bad offsets, keypad shape, unknown keys', () => {
    const f = profileFile({
      name: 'bad',
      gpio: { backend: 'spi' },
      boxes: [box(1, 4, 5), box(1, 4, 6), { ...box(3, 2000, 7), colour: 'red' }],
      keypad: {
        kind: 'gpio-matrix',
        rows: [{ chip: 'c', offset: 1 }],
        columns: [
          { chip: 'c', offset: 2 },
          { chip: 'c', offset: 3 },
        ],
        keys: ['1', '2'],
      },
      display: { kind: 'serial', path: 'ttyS0' },
    });
    const paths = configProblems(() => loadBoardProfile(f)).map((p) => `${p.path}: ${p.message}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^gpio\.backend: /),
        expect.stringMatching(/^boxes\.2\.lock\.offset: /),
        expect.stringMatching(/^boxes\.2: .*colour/),
        expect.stringMatching(/^keypad\.keys: needs one string per row \(1\)/),
        expect.stringMatching(/^display\.path: must be an absolute device path/),
      ]),
    );
  });

  it('refuses a keypad row on a line a lock already uses', () => {
    const f = profileFile({
      name: 'clash',
      boxes: [box(1, 4, 5)],
      keypad: { kind: 'gpio-matrix', rows: [{ chip: 'pinctrl-bcm2711', offset: 4 }], columns: [{ chip: 'pinctrl-bcm2711', offset: 9 }], keys: ['1'] },
    });
    expect(configProblems(() => loadBoardProfile(f))).toEqual([
      expect.objectContaining({ path: 'keypad.rows.0', message: 'line pinctrl-bcm2711:4 is already used by boxes.0.lock' }),
    ]);
  });

  it('refuses a line used twice and a duplicate box number', () => {
    const f = profileFile({ name: 'dup', boxes: [box(1, 4, 5), box(1, 4, 6)] });
    const ps = configProblems(() => loadBoardProfile(f));
    expect(ps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'boxes.1.number', message: 'duplicate box number' }),
        expect.objectContaining({ path: 'boxes.1.lock', message: 'line pinctrl-bcm2711:4 is already used by boxes.0.lock' }),
      ]),
    );
  });

  it('requires every configured box to be wired', () => {
    const f = profileFile({ name: 'two', boxes: [box(1, 4, 5), box(2, 6, 7)] });
    expect(configProblems(() => loadBoardProfile(f, [1, 2, 3]))).toEqual([
      { path: 'boxes', message: 'station.boxes has box 3, which this profile does not wire' },
    ]);
  });

  it('reports an unreadable or non-JSON profile, naming the file', () => {
    expect(() => loadBoardProfile('/nonexistent/profile.json')).toThrow(
      /board profile \/nonexistent\/profile.json \(hardware.profile\).*\n.*cannot read: ENOENT/,
    );
    expect(() => loadBoardProfile(profileFile('{ nope'))).toThrow(/not valid JSON/);
  });

  it('the station config accepts hardware.kind "board" with power sources', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'pw'), 'Abcdefghij0123456789\n');
    const { config } = loadConfigObject(
      {
        station: { id: STATION.id, passwordFile: join(dir, 'pw'), boxes: [{ number: 1, id: 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001' }] },
        server: { baseUrl: 'https://library.example/pickup' },
        hardware: { kind: 'board', profile: join(HW, 'rpi4-12-boxes.json'), power: { signal: { kind: 'wifi' } } },
      },
      'test',
      {},
    );
    expect(config.hardware).toEqual({
      kind: 'board',
      profile: join(HW, 'rpi4-12-boxes.json'),
      power: { voltage: { kind: 'fixed', volts: null }, signal: { kind: 'wifi', interface: 'wlan0', maxQuality: 70 } },
    });
    expect(boardHardwareSchema.safeParse({ kind: 'board' }).success).toBe(false);
  });

  it('createBoardHardware throws the ConfigError before opening any GPIO backend', async () => {
    const f = profileFile({ name: 'one', boxes: [box(1, 4, 5)] });
    let opened = false;
    const config = { station: { boxes: [{ number: 2, id: 'x' }] }, log: { level: 'silent' } } as unknown as Parameters<typeof createBoardHardware>[0];
    await expect(
      createBoardHardware(config, boardHardwareSchema.parse({ kind: 'board', profile: f }), pino({ level: 'silent' }), {
        openBackend: () => {
          opened = true;
          return Promise.reject(new Error('must not be reached'));
        },
      }),
    ).rejects.toBeInstanceOf(ConfigError);
    expect(opened).toBe(false);
  });
});
