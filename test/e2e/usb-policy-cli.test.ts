/**
 * `pickup-station usb-policy` as the installer and the path unit run it (`node dist/src/main.js
 * usb-policy`): the rules file written 0600 atomically, a profile change followed, a file an
 * administrator edited kept (the new policy beside it), exit 78 on a profile naming a device twice;
 * and every rule it writes read by USBGuard's own rule parser.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBoardProfile } from '../../src/config/board-profile.js';
import { policyRules, usbPolicyOf } from '../../src/devices/usb/policy.js';
import { audio, ftdi, profile, profileFile, tempDir } from '../support/usb-profiles.js';
import { requireTool, runs } from '../support/tools.js';

const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/src/main.js');
const HAVE_PARSER = requireTool('usbguard-rule-parser', runs('usbguard-rule-parser', ['allow']), 'usbguard');

/**
 * The command with its udev outputs in `udev` and `input` (a test never writes this machine's
 * /etc/udev).
 */
function run(args: string[], udev = join(tempDir(), 'udev.rules'), input = `${udev}.input`): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [MAIN, 'usb-policy', '--udev-rules', udev, '--udev-proposal', `${udev}.proposed`, '--input-rules', input, '--input-proposal', `${input}.proposed`, ...args],
    { encoding: 'utf8' },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.runIf(HAVE_PARSER)("USBGuard's rule parser", () => {
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

  it('reads built-in devices pinned to their port with their exact interfaces (via-port, equals) as written', () => {
    const p = loadBoardProfile(
      profileFile(
        profile({
          scanners: [
            { kind: 'hid', identifierType: 'BAR_CODE', vendorId: '0x0627', productId: '0x0001', usbPort: '1-1.2', usbInterfaces: ['03:01:01'] },
            { kind: 'hid', identifierType: 'RFID', vendorId: '0xffff', productId: '0x0035', usbPort: '1-1.3', usbInterfaces: ['03:01:01', '03:00:00'] },
          ],
          usb: { devices: [{ ...ftdi, interfaces: ['ff:ff:ff'], port: '1-1.4' }] },
        }),
      ),
    );
    const rules = policyRules(usbPolicyOf(p).policy)
      .split('\n')
      .filter((l) => l.startsWith('allow id'));
    expect(rules).toEqual([
      'allow id 0627:0001 via-port "1-1.2" with-interface 03:01:01',
      'allow id ffff:0035 via-port "1-1.3" with-interface { 03:01:01 03:00:00 }',
      'allow id 04d9:1203 with-interface match-all { 03:*:* }',
      'allow id 0403:6001 serial "FT4RFID1" via-port "1-1.4" with-interface ff:ff:ff',
    ]);
    for (const rule of rules) expect(execFileSync('usbguard-rule-parser', [rule], { encoding: 'utf8' })).toContain(`OUTPUT: ${rule}`);
  });
});

describe('pickup-station usb-policy', () => {
  it('writes the rules file 0600 atomically, then finds it up to date', () => {
    const dir = tempDir();
    const rules = join(dir, 'rules.d', '50-profile.conf');
    mkdirSync(join(dir, 'rules.d'));
    const p = profileFile(profile({ usb: { devices: [ftdi] } }), dir);
    const udev = join(dir, '70-profile.rules');
    const first = run(['--profile', p, '--rules', rules, '--proposal', join(dir, 'proposed')], udev);
    expect(first).toMatchObject({
      status: 0,
      stdout: `usb-policy: 3 device rule(s) written to ${rules}\nusb-policy: 2 hidraw rule(s) written to ${udev}\nusb-policy: 2 input rule(s) written to ${udev}.input\n`,
    });
    expect(statSync(rules).mode & 0o777).toBe(0o600);
    expect(readFileSync(rules, 'utf8')).toContain('allow id 0403:6001 serial "FT4RFID1" with-interface match-all { ff:*:* }');
    const second = run(['--profile', p, '--rules', rules, '--proposal', join(dir, 'proposed')], udev);
    expect(second).toMatchObject({
      status: 0,
      stdout: `usb-policy: ${rules} already up to date (3 device rule(s))\nusb-policy: ${udev} already up to date (2 hidraw rule(s))\nusb-policy: ${udev}.input already up to date (2 input rule(s))\n`,
    });
  });

  it("writes the HID scanner's and keypad's hidraw udev rules 0644 (not usb.devices'), and keeps an edited one", () => {
    const dir = tempDir();
    const udev = join(dir, '70-profile.rules');
    const p = profileFile(profile({ usb: { devices: [ftdi, audio] } }), dir);
    expect(run(['--profile', p, '--rules', join(dir, 'usbguard.conf')], udev).status).toBe(0);
    expect(statSync(udev).mode & 0o777).toBe(0o644);
    const text = readFileSync(udev, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('SUBSYSTEM'))).toEqual([
      'SUBSYSTEM=="hidraw", KERNELS=="*:0627:0001.*", GROUP="pickup-hid", MODE="0660"',
      'SUBSYSTEM=="hidraw", KERNELS=="*:04D9:1203.*", GROUP="pickup-hid", MODE="0660"',
    ]);
    expect(text).toContain(`#   ${p} (test board)`);

    appendFileSync(udev, 'SUBSYSTEM=="hidraw", KERNELS=="*:1234:5678.*", GROUP="pickup-hid"\n');
    const edited = readFileSync(udev, 'utf8');
    writeFileSync(p, JSON.stringify(profile({ keypad: null })));
    const r = run(['--profile', p, '--rules', join(dir, 'usbguard.conf')], udev);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`usb-policy: warning: ${udev} was edited by hand and is kept as it is; the profile's rules are in ${udev}.proposed`);
    expect(readFileSync(udev, 'utf8')).toBe(edited);
    expect(readFileSync(`${udev}.proposed`, 'utf8')).not.toContain('04D9:1203');
  });

  it("writes the lines that keep the HID devices' event nodes from logind and libinput 0644, for a device a technician adds too", () => {
    const dir = tempDir();
    const udev = join(dir, '70-profile.rules');
    const input = join(dir, '90-input.rules');
    const p = profileFile(profile({ usb: { devices: [ftdi, audio] } }), dir);
    expect(run(['--profile', p, '--rules', join(dir, 'usbguard.conf')], udev, input).status).toBe(0);
    expect(statSync(input).mode & 0o777).toBe(0o644);
    const lines = (f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('SUBSYSTEM'));
    expect(lines(input)).toEqual([
      'SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:0627:0001.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"',
      'SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:04D9:1203.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"',
    ]);
    // A second scanner added to the profile (after the first, before the keypad): its lines in both
    // files, nothing written by hand.
    const added = profile({ usb: { devices: [ftdi, audio] } });
    added.scanners = [...(added.scanners as unknown[]), { kind: 'hid', identifierType: 'RFID', vendorId: '0xffff', productId: '0x0035' }];
    writeFileSync(p, JSON.stringify(added));
    expect(run(['--profile', p, '--rules', join(dir, 'usbguard.conf')], udev, input).stdout).toContain(`usb-policy: 3 input rule(s) written to ${input}`);
    expect(lines(input)[1]).toBe('SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:FFFF:0035.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"');
    expect(lines(udev)[1]).toBe('SUBSYSTEM=="hidraw", KERNELS=="*:FFFF:0035.*", GROUP="pickup-hid", MODE="0660"');
    expect(readFileSync(input, 'utf8')).toContain('# scanners.1: HID scanner (RFID)');
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
      `usb-policy: warning: ${rules} was edited by hand and is kept as it is; the profile's rules are in ${proposal} (compare, then move it over ${rules} or delete ${rules} to have it written again)\n`,
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
