/** Tamper switch and buzzer on the sysfs backend (onoff), through the whole station. Rig VM only. */
import { describe } from 'vitest';
import { SysfsBackend, loadOnoff } from '../../src/devices/gpio/sysfs.js';
import { alarmsOnBoard } from './gpio-alarms-contract.js';
import { HAS_GPIO_SIM } from './sim.js';

describe.skipIf(!HAS_GPIO_SIM)('alarms on the sysfs backend (gpio-sim)', () => {
  alarmsOnBoard('rig-alarms', async () => new SysfsBackend({ Gpio: await loadOnoff() }), 250);
});
