/**
 * The character-device backend with libgpiod **v2** tools (Debian trixie's, as on Raspberry Pi OS
 * Trixie / Pi 5): the rig puts them in /opt/gpiod2/bin. Same contract as with v1. Skips elsewhere.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CdevBackend } from '../../src/devices/gpio/cdev.js';
import { gpioContract } from './gpio-contract.js';
import { HAS_GPIOD_TOOLS, report } from './sim.js';

export const GPIOD_V2_BIN = '/opt/gpiod2/bin';
const HAS_V2 = HAS_GPIOD_TOOLS && existsSync(`${GPIOD_V2_BIN}/gpioset`);
// This file runs in its own process (vitest forks): the backend spawns the tools through PATH.
if (HAS_V2) process.env['PATH'] = `${GPIOD_V2_BIN}:${process.env['PATH'] ?? ''}`;

describe.skipIf(!HAS_V2)('GPIO character-device backend, libgpiod v2 tools, on gpio-sim', () => {
  it('detects the v2 tools', async () => {
    const backend = await CdevBackend.open();
    report(`[rig-cdev2] libgpiod tools v${backend.version}`);
    expect(backend.version).toBe(2);
    await backend.close();
  });

  gpioContract('rig-cdev2', () => CdevBackend.open(), 3000, 500);
});
