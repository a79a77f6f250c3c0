/**
 * Resolves a chip label to its sysfs GPIO base. Bases are assigned by the kernel at boot and
 * changed between kernels (Raspberry Pi OS Bookworm numbers from 512+, gpio-sim got 1016 in the
 * rig), so a profile names chips by label and this file finds the number every time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceError } from '../../errors.js';
import type { LineRef } from './types.js';

export const SYSFS_GPIO_ROOT = '/sys/class/gpio';

export interface SysfsChip {
  readonly label: string;
  readonly base: number;
  readonly ngpio: number;
}

/** Every gpiochip under `root` (injectable for unit tests only; onoff itself always uses /sys/class/gpio). */
export function listSysfsChips(root = SYSFS_GPIO_ROOT): SysfsChip[] {
  let entries: string[];
  try {
    entries = readdirSync(root).filter((e) => e.startsWith('gpiochip'));
  } catch (e) {
    throw new DeviceError(`gpio ${root}`, `cannot list GPIO chips: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
  const chips: SysfsChip[] = [];
  for (const entry of entries) {
    const dir = join(root, entry);
    try {
      const label = readFileSync(join(dir, 'label'), 'utf8').trim();
      const base = Number.parseInt(readFileSync(join(dir, 'base'), 'utf8').trim(), 10);
      const ngpio = Number.parseInt(readFileSync(join(dir, 'ngpio'), 'utf8').trim(), 10);
      if (Number.isInteger(base) && Number.isInteger(ngpio)) chips.push({ label, base, ngpio });
    } catch {
      // A chip directory without the attributes (a race with hot-unplug) is not ours to use.
    }
  }
  return chips;
}

/** The global sysfs number of a line, or a DeviceError naming the labels that do exist. */
export function resolveSysfsNumber(ref: LineRef, chips: readonly SysfsChip[]): number {
  const matches = chips.filter((c) => c.label === ref.chip);
  const known = chips.map((c) => c.label).join(', ') || 'none';
  if (matches.length === 0) throw new DeviceError(`gpio ${ref.chip}:${ref.offset}`, `no GPIO chip labelled "${ref.chip}" (found: ${known})`);
  if (matches.length > 1)
    throw new DeviceError(`gpio ${ref.chip}:${ref.offset}`, `${matches.length} GPIO chips are labelled "${ref.chip}"; labels must be unique`);
  const chip = matches[0]!;
  if (ref.offset >= chip.ngpio)
    throw new DeviceError(`gpio ${ref.chip}:${ref.offset}`, `offset ${ref.offset} is out of range: chip "${ref.chip}" has ${chip.ngpio} lines`);
  return chip.base + ref.offset;
}
