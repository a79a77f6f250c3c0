/**
 * The schema of one GPIO line in a board profile: the board profile (board-config.ts) and
 * safe-state (safe-state.ts, which validates only the lock lines it drives) share it, so both read
 * a lock line the same way. Its own module: safe-state starts without the rest of the profile's
 * schemas (ARCHITECTURE.md, "Start-up").
 */
import * as z from 'zod';

const chipLabel = z.string().min(1, 'chip label required (see `gpiodetect` or /sys/class/gpio/gpiochip*/label)');
const offset = z.number().int().min(0).max(1023);

/** A lock output or keypad row. activeLow: the line is driven *low* to energize. */
export const outputLineSchema = z.strictObject({ chip: chipLabel, offset, activeLow: z.boolean().default(false) });
/** A door, button or keypad column. bias is applied by the cdev backend; with sysfs it must be wired. */
export const inputLineSchema = z.strictObject({
  chip: chipLabel,
  offset,
  activeLow: z.boolean().default(false),
  bias: z.enum(['as-is', 'pull-up', 'pull-down', 'disable']).default('as-is'),
});

/** `gpio.backend` of a profile. auto: sysfs when /sys/class/gpio exists and onoff loads, else the character device. */
export const gpioBackendSchema = z.enum(['auto', 'sysfs', 'cdev']).default('auto');
