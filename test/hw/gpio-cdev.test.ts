/** The character-device backend (libgpiod tools) on gpio-sim lines. Runs in the rig VM; skips elsewhere. */
import { describe, expect, it } from 'vitest';
import { CdevBackend } from '../../src/devices/gpio/cdev.js';
import { gpioContract } from './gpio-contract.js';
import { HAS_GPIOD_TOOLS, report } from './sim.js';

describe.skipIf(!HAS_GPIOD_TOOLS)('GPIO character-device backend (gpiod tools) on gpio-sim', () => {
  it('detects the libgpiod tools version', async () => {
    const backend = await CdevBackend.open();
    report(`[rig-cdev] libgpiod tools v${backend.version}`);
    expect([1, 2]).toContain(backend.version);
    await backend.close();
  });

  gpioContract('rig-cdev', () => CdevBackend.open(), 3000, 500);
});
