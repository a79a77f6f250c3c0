/** Chip base from label + base under an injected sysfs root (the real one is tested in the rig). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSysfsChips, resolveSysfsNumber } from '../../src/devices/gpio/sysfs-chips.js';

function fakeSysfs(chips: Record<string, { label: string; base: number; ngpio: number }>): string {
  const root = mkdtempSync(join(tmpdir(), 'sysfs-gpio-'));
  writeFileSync(join(root, 'export'), '');
  for (const [dir, c] of Object.entries(chips)) {
    mkdirSync(join(root, dir));
    writeFileSync(join(root, dir, 'label'), `${c.label}\n`);
    writeFileSync(join(root, dir, 'base'), `${c.base}\n`);
    writeFileSync(join(root, dir, 'ngpio'), `${c.ngpio}\n`);
  }
  mkdirSync(join(root, 'gpio530')); // an exported line, not a chip
  return root;
}

describe('sysfs chip resolution', () => {
  it('finds a Pi 4 Bookworm line by label + offset (base 512, not 0)', () => {
    const root = fakeSysfs({
      gpiochip512: { label: 'pinctrl-bcm2711', base: 512, ngpio: 58 },
      gpiochip570: { label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8 },
    });
    const chips = listSysfsChips(root);
    expect(chips).toHaveLength(2);
    expect(resolveSysfsNumber({ chip: 'pinctrl-bcm2711', offset: 17 }, chips)).toBe(529);
    expect(resolveSysfsNumber({ chip: 'raspberrypi-exp-gpio', offset: 2 }, chips)).toBe(572);
  });

  it('finds a Pi 5 line on the RP1 chip', () => {
    const chips = listSysfsChips(fakeSysfs({ gpiochip571: { label: 'pinctrl-rp1', base: 571, ngpio: 54 } }));
    expect(resolveSysfsNumber({ chip: 'pinctrl-rp1', offset: 4 }, chips)).toBe(575);
  });

  it('names what exists when the label is missing, and rejects offsets beyond the chip', () => {
    const chips = listSysfsChips(fakeSysfs({ gpiochip512: { label: 'pinctrl-bcm2711', base: 512, ngpio: 58 } }));
    expect(() => resolveSysfsNumber({ chip: 'pinctrl-rp1', offset: 4 }, chips)).toThrow(
      'gpio pinctrl-rp1:4: no GPIO chip labelled "pinctrl-rp1" (found: pinctrl-bcm2711)',
    );
    expect(() => resolveSysfsNumber({ chip: 'pinctrl-bcm2711', offset: 58 }, chips)).toThrow(/offset 58 is out of range: chip "pinctrl-bcm2711" has 58 lines/);
  });

  it('refuses ambiguous labels', () => {
    const chips = listSysfsChips(fakeSysfs({ gpiochip0: { label: 'x', base: 0, ngpio: 8 }, gpiochip8: { label: 'x', base: 8, ngpio: 8 } }));
    expect(() => resolveSysfsNumber({ chip: 'x', offset: 1 }, chips)).toThrow(/2 GPIO chips are labelled "x"/);
  });

  it('reports a missing /sys/class/gpio as a DeviceError', () => {
    expect(() => listSysfsChips('/nonexistent/gpio')).toThrow(/cannot list GPIO chips: ENOENT/);
  });
});
