/** Voltage and signal sources: parsers on fixture text, and the monitor on injected reads. */
import { describe, expect, it } from 'vitest';
import { powerSchema } from '../../src/devices/board-config.js';
import { ConfiguredPowerMonitor } from '../../src/devices/power/monitor.js';
import { parseOperstate, parseScaledNumber, parseSignalOutput, parseWirelessQuality } from '../../src/devices/power/parse.js';

const WIRELESS = `Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
 face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
 wlan0: 0000   54.  -56.  -256        0      0      0      0     16        0
  wlp2s0: 0000   70.  -40.  -256        0      0      0      0      0        0
`;

describe('power parsers', () => {
  it('scales sysfs numbers: hwmon mV, power_supply uV', () => {
    expect(parseScaledNumber('12034\n', 0.001)).toBe(12.034);
    expect(parseScaledNumber('5100000\n', 1e-6)).toBe(5.1);
    expect(parseScaledNumber('n/a\n', 1)).toBeNull();
  });

  it('wired: up is 100, anything else 0', () => {
    expect(parseOperstate('up\n')).toBe(100);
    expect(parseOperstate('down\n')).toBe(0);
    expect(parseOperstate('dormant\n')).toBe(0);
  });

  it('Wi-Fi: link quality of the interface as percent of the maximum', () => {
    expect(parseWirelessQuality(WIRELESS, 'wlan0', 70)).toBe(77);
    expect(parseWirelessQuality(WIRELESS, 'wlp2s0', 70)).toBe(100);
    expect(parseWirelessQuality(WIRELESS, 'wlan1', 70)).toBeNull();
    expect(parseWirelessQuality(WIRELESS.split('\n').slice(0, 2).join('\n'), 'wlan0', 70)).toBeNull();
  });

  it('modem: a percent, or AT+CSQ rssi 0..31 (99 = unknown)', () => {
    expect(parseSignalOutput('73\n')).toBe(73);
    expect(parseSignalOutput('73%\n')).toBe(73);
    expect(parseSignalOutput('+CSQ: 31,99\r\nOK\r\n')).toBe(100);
    expect(parseSignalOutput('+CSQ: 15,0\r\nOK\r\n')).toBe(48);
    expect(parseSignalOutput('+CSQ: 99,99\r\nOK\r\n')).toBeNull();
    expect(parseSignalOutput('ERROR')).toBeNull();
  });
});

describe('power monitor', () => {
  const files: Record<string, string> = {
    '/sys/class/hwmon/hwmon1/in0_input': '12100\n',
    '/sys/class/net/eth0/operstate': 'up\n',
    '/proc/net/wireless': WIRELESS,
  };
  const readText = (p: string): Promise<string> =>
    p in files ? Promise.resolve(files[p]!) : Promise.reject(Object.assign(new Error('ENOENT'), { code: 'ENOENT' }));

  it('defaults: no voltage (mains, not measured), wired eth0', async () => {
    const m = new ConfiguredPowerMonitor(powerSchema.parse({}), { readText });
    expect(await m.inputVoltage()).toBeNull();
    expect(await m.internetSignalStrength()).toBe(100);
  });

  it('reads a hwmon file with its scale, and Wi-Fi quality', async () => {
    const m = new ConfiguredPowerMonitor(
      powerSchema.parse({ voltage: { kind: 'file', path: '/sys/class/hwmon/hwmon1/in0_input', scale: 0.001 }, signal: { kind: 'wifi', interface: 'wlan0' } }),
      { readText },
    );
    expect(await m.inputVoltage()).toBe(12.1);
    expect(await m.internetSignalStrength()).toBe(77);
  });

  it('a fixed voltage; a modem command; null when a source cannot tell', async () => {
    const m = new ConfiguredPowerMonitor(
      powerSchema.parse({ voltage: { kind: 'fixed', volts: 230 }, signal: { kind: 'command', command: ['mmcli', '-m', '0'] } }),
      {
        readText,
        run: (argv) => (argv[0] === 'mmcli' ? Promise.resolve('+CSQ: 20,99\n') : Promise.reject(new Error('no'))),
      },
    );
    expect(await m.inputVoltage()).toBe(230);
    expect(await m.internetSignalStrength()).toBe(65);
    const broken = new ConfiguredPowerMonitor(
      powerSchema.parse({ voltage: { kind: 'file', path: '/missing', scale: 1 }, signal: { kind: 'wired', interface: 'eth9' } }),
      { readText },
    );
    expect(await broken.inputVoltage()).toBeNull();
    expect(await broken.internetSignalStrength()).toBeNull();
  });
});
