/**
 * The USB policy of a board profile: which devices it allows, a profile naming a device twice (a
 * ConfigError with the path), and a rules file an administrator edited told from one it wrote. The
 * command that writes the rules, and USBGuard's own parser reading them: usb-policy-cli.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBoardProfile } from '../../src/config/board-profile.js';
import { inputRules, isUnchangedInputRulesFile, renderInputRulesFile } from '../../src/devices/usb/input-rules.js';
import { isUnchangedPolicyFile, policyRules, renderPolicyFile, usbPolicyOf } from '../../src/devices/usb/policy.js';
import { ConfigError } from '../../src/errors.js';
import { audio, ftdi, profile, profileFile } from '../support/usb-profiles.js';

const ROOT = join(import.meta.dirname, '../..');
const HW = join(ROOT, 'hardware');

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

  it('pins a built-in device to its port with its exact interfaces; the same ids on two ports are two devices; a pin without exact interfaces is refused', () => {
    const scanner = { kind: 'hid', identifierType: 'RFID', vendorId: '0xffff', productId: '0x0035' };
    const p = loadBoardProfile(
      profileFile(
        profile({
          scanners: [
            { ...scanner, path: '/dev/hidraw1', usbPort: '1-1.2', usbInterfaces: ['03:01:01', '03:00:00'] },
            { ...scanner, path: '/dev/hidraw2', usbPort: '1-1.3', usbInterfaces: ['03:01:01', '03:00:00'] },
          ],
          keypad: null,
          usb: { hubs: false, devices: [{ ...ftdi, interfaces: ['ff:ff:ff'], port: '1-1.4' }] },
        }),
      ),
    );
    expect(policyRules(usbPolicyOf(p).policy)).toBe(
      [
        '# scanners.0: HID scanner (RFID), on port 1-1.2',
        'allow id ffff:0035 via-port "1-1.2" with-interface { 03:01:01 03:00:00 }',
        '# scanners.1: HID scanner (RFID), on port 1-1.3',
        'allow id ffff:0035 via-port "1-1.3" with-interface { 03:01:01 03:00:00 }',
        "# usb.devices.0: RFID reader's FT232R adapter, on port 1-1.4",
        'allow id 0403:6001 serial "FT4RFID1" via-port "1-1.4" with-interface ff:ff:ff',
        '',
      ].join('\n'),
    );
    expect(() => loadBoardProfile(profileFile(profile({ scanners: [{ ...scanner, usbPort: '1-1.2' }] })))).toThrow(
      /scanners\.0\.usbInterfaces: a device pinned to its port \(usbPort 1-1\.2\) is named by its exact interfaces too/,
    );
    expect(() => loadBoardProfile(profileFile(profile({ usb: { devices: [{ ...ftdi, port: '1-1.4' }] } })))).toThrow(
      /usb\.devices\.0\.interfaces\.0: a device pinned to its port \(1-1\.4\) is named by its exact interfaces: no \*/,
    );
    expect(() => loadBoardProfile(profileFile(profile({ usb: { devices: [{ ...ftdi, port: 'usb1' }] } })))).toThrow(
      /usb\.devices\.0\.port: must be a USB port/,
    );
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

  it("keeps every HID scanner's and the keypad's event node from logind and libinput, none of usb.devices'; an edited file told apart", () => {
    const p = loadBoardProfile(profileFile(profile({ usb: { devices: [ftdi, audio] } })));
    const { policy } = usbPolicyOf(p);
    expect(inputRules(policy)).toBe(
      [
        '# scanners.0: HID scanner (BAR_CODE)',
        'SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:0627:0001.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"',
        '# keypad: HID keypad',
        'SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:04D9:1203.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"',
        '',
      ].join('\n'),
    );
    const text = renderInputRulesFile(policy, { file: '/p.json', name: 'test board' });
    expect(isUnchangedInputRulesFile(text)).toBe(true);
    expect(isUnchangedInputRulesFile(text.replace('TAG-="power-switch"', ''))).toBe(false);
    expect(isUnchangedInputRulesFile(renderPolicyFile(policy, { file: '/p.json', name: 'test board' }))).toBe(false);
  });

  it('the shipped profiles all have a policy', () => {
    for (const f of ['rpi4-12-boxes.json', 'rpi5-8-boxes.json', 'virt-board-12-boxes.json']) {
      expect(policyRules(usbPolicyOf(loadBoardProfile(join(HW, f))).policy), f).toContain('allow with-interface match-all { 09:00:* }');
    }
  });
});
