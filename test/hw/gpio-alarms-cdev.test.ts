/** Tamper switch and buzzer on the character-device backend (libgpiod tools), through the whole station. Rig VM only. */
import { describe } from 'vitest';
import { CdevBackend } from '../../src/devices/gpio/cdev.js';
import { alarmsOnBoard } from './gpio-alarms-contract.js';
import { HAS_GPIOD_TOOLS } from './sim.js';

describe.skipIf(!HAS_GPIOD_TOOLS)('alarms on the character-device backend (gpio-sim)', () => {
  alarmsOnBoard('rig-alarms-cdev', () => CdevBackend.open(), 500);
});
