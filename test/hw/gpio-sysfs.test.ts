/** The sysfs backend (onoff) on gpio-sim lines. Runs in the rig VM (scripts/rig/run.sh); skips elsewhere. */
import { describe, expect, it } from 'vitest';
import { SysfsBackend, loadOnoff } from '../../src/devices/gpio/sysfs.js';
import { listSysfsChips, resolveSysfsNumber } from '../../src/devices/gpio/sysfs-chips.js';
import { gpioContract } from './gpio-contract.js';
import { HAS_GPIO_SIM, report } from './sim.js';

const LABEL = 'rig-sysfs';

describe.skipIf(!HAS_GPIO_SIM)('GPIO sysfs backend on gpio-sim', () => {
  it('resolves the chip base from its label (gpio-sim is not at base 0)', () => {
    const chip = listSysfsChips().find((c) => c.label === LABEL);
    report(`[${LABEL}] sysfs chips: ${JSON.stringify(listSysfsChips())}`);
    expect(chip).toBeDefined();
    expect(chip!.base).toBeGreaterThan(0);
    expect(resolveSysfsNumber({ chip: LABEL, offset: 5 }, listSysfsChips())).toBe(chip!.base + 5);
  });

  gpioContract(LABEL, async () => new SysfsBackend({ Gpio: await loadOnoff() }), 500, 250);
});
