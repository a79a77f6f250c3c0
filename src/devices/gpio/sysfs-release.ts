/**
 * A line exported through /sys/class/gpio belongs to the kernel's sysfs interface until it is
 * unexported: every character-device request for it fails with EBUSY. A process that exported a
 * lock line and died (the sysfs backend of an earlier run or release, a technician's
 * `echo N > export`) leaves it that way, possibly energized: safe-state on the cdev backend would
 * retry until its deadline, fail, leave the lock ON, and the station could not start. So before the
 * cdev backend drives the locks OFF, each lock
 * line exported through sysfs is driven to its OFF level through its own sysfs files and
 * unexported; the gpioset that follows then holds it OFF.
 *
 * `direction` "low"/"high" sets the raw level in the same write that makes the line an output
 * (whatever its sysfs `active_low`): "low" is OFF for an active-high lock, "high" for an active-low
 * one. Writable for the service user by hardware/99-pickup-station.rules (group gpio) and for its
 * sandbox by the unit's ReadWritePaths=.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { listSysfsChips, resolveSysfsNumber, SYSFS_GPIO_ROOT, type SysfsChip } from './sysfs-chips.js';
import { lineName, type OutputSpec } from './types.js';

export interface SysfsRelease {
  /** Lines found exported, driven OFF and unexported: "virt-board:0 (gpio472)". */
  readonly released: readonly string[];
  /** Lines found exported that could not be driven OFF or unexported, with the reason. */
  readonly failed: readonly string[];
}

/** Drive OFF and unexport every line of `specs` that is exported under `root`. Never throws. */
export function releaseSysfsExports(specs: readonly OutputSpec[], root: string = SYSFS_GPIO_ROOT): SysfsRelease {
  const released: string[] = [];
  const failed: string[] = [];
  let chips: SysfsChip[];
  try {
    chips = listSysfsChips(root);
  } catch {
    return { released, failed }; // no sysfs GPIO on this kernel: nothing can be exported
  }
  for (const spec of specs) {
    let n: number;
    try {
      n = resolveSysfsNumber(spec, chips);
    } catch {
      continue; // the chip is not in sysfs: the cdev request reports what is wrong with it
    }
    const dir = join(root, `gpio${n}`);
    if (!existsSync(dir)) continue;
    const name = `${lineName(spec)} (gpio${n})`;
    try {
      writeFileSync(join(dir, 'direction'), spec.activeLow ? 'high' : 'low');
      writeFileSync(join(root, 'unexport'), String(n));
      released.push(name);
    } catch (e) {
      failed.push(`${name} is exported through sysfs and cannot be released: ${errorMessage(e)}`);
    }
  }
  return { released, failed };
}
