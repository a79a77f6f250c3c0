/** Picks the GPIO backend a board profile asks for (gpio.backend), detecting it for "auto". */
import { existsSync } from 'node:fs';
import { DeviceError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { CdevBackend } from './cdev.js';
import { SysfsBackend, loadOnoff } from './sysfs.js';
import { SYSFS_GPIO_ROOT } from './sysfs-chips.js';
import type { GpioBackend } from './types.js';

export type BackendChoice = 'auto' | 'sysfs' | 'cdev';

async function openSysfs(): Promise<GpioBackend> {
  if (!existsSync(`${SYSFS_GPIO_ROOT}/export`)) throw new DeviceError('gpio sysfs', `${SYSFS_GPIO_ROOT} is absent on this kernel; use gpio.backend "cdev"`);
  let Gpio;
  try {
    Gpio = await loadOnoff();
  } catch (e) {
    throw new DeviceError('gpio sysfs', `cannot load onoff (its epoll addon is built at install): ${errorMessage(e)}`, { cause: e });
  }
  return new SysfsBackend({ Gpio });
}

/**
 * auto: sysfs when /sys/class/gpio exists and onoff loads (edges come straight from epoll),
 * otherwise the character device through the libgpiod tools (Raspberry Pi OS Trixie, Pi 5).
 */
export async function openGpioBackend(choice: BackendChoice, log: Pick<Logger, 'warn'>): Promise<GpioBackend> {
  if (choice === 'sysfs') return openSysfs();
  if (choice === 'cdev') return CdevBackend.open({ log });
  if (existsSync(`${SYSFS_GPIO_ROOT}/export`)) {
    try {
      return await openSysfs();
    } catch (e) {
      log.warn({ error: errorMessage(e) }, 'gpio: sysfs unusable, trying the character device');
    }
  }
  return CdevBackend.open({ log });
}
