/**
 * The schema of one GPIO line in a board profile: the board profile (board-config.ts) and
 * safe-state (safe-state.ts, which validates only the lock lines it drives) share it, so both read
 * a lock line the same way.
 */
import * as z from '../../schema.js';

const chipLabel = z.string().check(z.minLength(1, 'chip label required (see `gpiodetect` or /sys/class/gpio/gpiochip*/label)'));
const offset = z.number().check(z.int(), z.minimum(0), z.maximum(1023));

/** A lock output or keypad row. activeLow: the line is driven *low* to energize. */
export const outputLineSchema = z.strictObject({ chip: chipLabel, offset, activeLow: z._default(z.boolean(), false) });
/** A door, button or keypad column. bias is applied by the cdev backend; with sysfs it must be wired. */
export const inputLineSchema = z.strictObject({
  chip: chipLabel,
  offset,
  activeLow: z._default(z.boolean(), false),
  bias: z._default(z.enum(['as-is', 'pull-up', 'pull-down', 'disable']), 'as-is'),
});

/** `gpio.backend` of a profile. auto: sysfs when /sys/class/gpio exists and onoff loads, else the character device. */
export const gpioBackendSchema = z._default(z.enum(['auto', 'sysfs', 'cdev']), 'auto');
