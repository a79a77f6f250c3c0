/**
 * The USB policy of a board profile: which devices it allows, the rules file USBGuard's own parser
 * accepts, a profile naming a device twice (exit 78 with the path, nothing written), and a rules
 * file an administrator edited (kept; the new policy beside it). The command runs as the installer
 * and the path unit run it: `node dist/src/main.js usb-policy`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, existsSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBoardProfile } from '../../src/config/board-profile.js';
import { isUnchangedPolicyFile, policyRules, renderPolicyFile, usbPolicyOf } from '../../src/devices/usb/policy.js';
import { ConfigError } from '../../src/errors.js';

const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/src/main.js');
const HW = join(ROOT, 'hardware');

const box = { number: 1, lock: { chip: 'c', offset: 0 }, door: { chip: 'c', offset: 1 } };
const ftdi = { name: "RFID reader's FT232R adapter", vendorId: '0x0403', productId: '0x6001', serialNumber: 'FT4RFID1', interfaces: ['ff:*:*'] };
const audio = { name: 'USB audio adapter', vendorId: '0d8c', productId: '0014', interfaces: ['01:*:*', '03:*:*'] };

function profile(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'test board',
    boxes: [box],
    scanners: [{ kind: 'hid', identifierType: 'BAR_CODE', vendorId: '0x0627', productId: '0x0001' }],
    keypad: { kind: 'hid', vendorId: '0x04d9', productId: '0x1203' },
    ...extra,
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'usb-policy-'));
}

function profileFile(p: unknown, dir = tempDir()): string {
  const f = join(dir, 'profile.json');
  writeFileSync(f, JSON.stringify(p));
  return f;
}

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, 'usb-policy', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the USB policy of a board profile', () => {
  it('allows the HID scanners and keypad by their ids with HID interfaces only, usb.devices as written, and hubs', () => {
    const p = loadBoardProfile(profileFile(profile({ usb: { devices: [ftdi, audio] } })));
    const { policy, problems } = usbPolicyOf(p);
    expect(problems).toEqual([]);
    expect(policyRules(policy)).toBe(
      [
        '# usb.hubs',
        'allow with-interface match-all { 09:00:* }',
        '# scanners.0: HID scanner (BAR_CODE)',
        'allow id 0627:0001 with-interface match-all { 03:*:* }',
        '# keypad: HID keypad',
        'allow id 04d9:1203 with-interface match-all { 03:*:* }',
        "# usb.devices.0: RFID reader's FT232R adapter",
        'allow id 0403:6001 serial "FT4RFID1" with-interface match-all { ff:*:* }',
        '# usb.devices.1: USB audio adapter',
        'allow id 0d8c:0014 with-interface match-all { 01:*:* 03:*:* }',
        '',
      ].join('\n'),
    );
  });

  it("writes rules that USBGuard's own rule parser accepts, each as written", () => {
    const p = loadBoardProfile(profileFile(profile({ usb: { devices: [ftdi, audio] } })));
    const rules = policyRules(usbPolicyOf(p).policy)
      .split('\n')
      .filter((l) => l.startsWith('allow'));
    expect(rules).toHaveLength(5);
    for (const rule of rules) {
      const out = execFileSync('usbguard-rule-parser', [rule], { encoding: 'utf8' });
      expect(out).toContain(`OUTPUT: ${rule}`);
    }
  });

  it('leaves hubs out when the profile says so, and two identical HID scanners told apart by path are one rule', () => {
    const scanner = { kind: 'hid', identifierType: 'RFID', vendorId: '0xffff', productId: '0x0035' };
    const p = loadBoardProfile(
      profileFile(
        profile({
          scanners: [
            { ...scanner, path: '/dev/hidraw1' },
            { ...scanner, path: '/dev/hidraw2' },
          ],
          keypad: null,
          usb: { hubs: false },
        }),
      ),
    );
    expect(policyRules(usbPolicyOf(p).policy)).toBe('# scanners.0, scanners.1: HID scanner (RFID)\nallow id ffff:0035 with-interface match-all { 03:*:* }\n');
  });

  it('refuses a profile naming a device twice: a ConfigError with the path of the second naming', () => {
    const twice = profile({ usb: { devices: [ftdi, { ...audio }, { ...ftdi, name: 'again' }, { ...audio, vendorId: '0x0627', productId: '0x0001' }] } });
    let error: unknown;
    try {
      loadBoardProfile(profileFile(twice));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { path: 'usb.devices.2', message: 'names a USB device a second time: usb.devices.0 already allows it', value: '"0403:6001 serial FT4RFID1"' },
      { path: 'usb.devices.3', message: 'names a USB device a second time: scanners.0 already allows it', value: '"0627:0001"' },
    ]);
  });

  it('refuses an interface pattern USBGuard would not read, and a name that would break out of its comment', () => {
    expect(() => loadBoardProfile(profileFile(profile({ usb: { devices: [{ ...ftdi, interfaces: ['FF:*'] }] } })))).toThrow(
      /usb\.devices\.0\.interfaces\.0: must be an interface pattern/,
    );
    expect(() => loadBoardProfile(profileFile(profile({ usb: { devices: [{ ...ftdi, name: 'x\nallow' }] } })))).toThrow(
      /usb\.devices\.0\.name: must be printable/,
    );
  });

  it('tells a file it wrote, unchanged, from an edited one', () => {
    const text = renderPolicyFile(usbPolicyOf(loadBoardProfile(profileFile(profile({})))).policy, { file: '/p.json', name: 'test board' });
    expect(isUnchangedPolicyFile(text)).toBe(true);
    expect(isUnchangedPolicyFile(`${text}allow id 1234:5678\n`)).toBe(false);
    expect(isUnchangedPolicyFile(text.replace('0627:0001', '0627:0002'))).toBe(false);
    expect(isUnchangedPolicyFile('allow\n')).toBe(false);
  });

  it('the shipped profiles all have a policy', () => {
    for (const f of ['rpi4-12-boxes.json', 'rpi5-8-boxes.json', 'virt-board-12-boxes.json']) {
      const r = run(['--profile', join(HW, f), '--print']);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('allow with-interface match-all { 09:00:* }');
    }
  });
});

describe('pickup-station usb-policy', () => {
  it('writes the rules file 0600 atomically, then finds it up to date', () => {
    const dir = tempDir();
    const rules = join(dir, 'rules.d', '50-profile.conf');
    mkdirSync(join(dir, 'rules.d'));
    const p = profileFile(profile({ usb: { devices: [ftdi] } }), dir);
    const first = run(['--profile', p, '--rules', rules, '--proposal', join(dir, 'proposed')]);
    expect(first).toMatchObject({ status: 0, stdout: `usb-policy: 3 device rule(s) written to ${rules}\n` });
    expect(statSync(rules).mode & 0o777).toBe(0o600);
    expect(readFileSync(rules, 'utf8')).toContain('allow id 0403:6001 serial "FT4RFID1" with-interface match-all { ff:*:* }');
    const second = run(['--profile', p, '--rules', rules, '--proposal', join(dir, 'proposed')]);
    expect(second).toMatchObject({ status: 0, stdout: `usb-policy: ${rules} already up to date (3 device rule(s))\n` });
  });

  it('follows a profile change: the new device is in, the old one out', () => {
    const dir = tempDir();
    const rules = join(dir, '50-profile.conf');
    const p = profileFile(profile({ usb: { devices: [ftdi] } }), dir);
    expect(run(['--profile', p, '--rules', rules]).status).toBe(0);
    writeFileSync(p, JSON.stringify(profile({ usb: { devices: [audio] } })));
    expect(run(['--profile', p, '--rules', rules]).status).toBe(0);
    const text = readFileSync(rules, 'utf8');
    expect(text).toContain('allow id 0d8c:0014');
    expect(text).not.toContain('0403:6001');
  });

  it('keeps a rules file an administrator edited, and writes the new policy beside it as a proposal', () => {
    const dir = tempDir();
    const rules = join(dir, '50-profile.conf');
    const proposal = join(dir, 'profile.conf.proposed');
    const p = profileFile(profile({}), dir);
    expect(run(['--profile', p, '--rules', rules, '--proposal', proposal]).status).toBe(0);
    appendFileSync(rules, 'allow id 1234:5678\n');
    const edited = readFileSync(rules, 'utf8');
    writeFileSync(p, JSON.stringify(profile({ usb: { devices: [audio] } })));
    const r = run(['--profile', p, '--rules', rules, '--proposal', proposal]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `usb-policy: warning: ${rules} was edited by hand and is kept as it is; the profile's policy is in ${proposal} (compare, then move it over ${rules} or delete ${rules} to have it written again)\n`,
    );
    expect(readFileSync(rules, 'utf8')).toBe(edited);
    expect(readFileSync(proposal, 'utf8')).toContain('allow id 0d8c:0014');
    expect(statSync(proposal).mode & 0o777).toBe(0o600);
  });

  it('exits 78 on a profile naming a device twice, each problem with its path, and writes nothing', () => {
    const dir = tempDir();
    const rules = join(dir, '50-profile.conf');
    const p = profileFile(profile({ usb: { devices: [ftdi, ftdi] } }), dir);
    const r = run(['--profile', p, '--rules', rules]);
    expect(r.status).toBe(78);
    expect(r.stderr).toBe(
      `invalid config board profile ${p} (hardware.profile): 1 problem(s)\n  usb.devices.1: names a USB device a second time: usb.devices.0 already allows it (got "0403:6001 serial FT4RFID1")\n`,
    );
    expect(existsSync(rules)).toBe(false);
  });

  it('reads the profile through the station config, as the path unit runs it; simulated hardware has none', () => {
    const dir = tempDir();
    const p = profileFile(profile({}), dir);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ hardware: { kind: 'board', profile: 'profile.json' } }));
    const rules = join(dir, 'out.conf');
    expect(run(['--config', config, '--rules', rules]).status).toBe(0);
    expect(readFileSync(rules, 'utf8')).toContain(`#   ${p} (test board)`);
    writeFileSync(config, JSON.stringify({ hardware: { kind: 'simulated' } }));
    expect(run(['--config', config, '--rules', join(dir, 'none.conf')])).toMatchObject({
      status: 0,
      stdout: 'usb-policy: simulated hardware, no USB policy written\n',
    });
    expect(existsSync(join(dir, 'none.conf'))).toBe(false);
  });
});
