/** The keys a HID keypad may use to clear a typed PIN (src/devices/hid/keypad.ts maps each to its HID usage). */
export const CLEAR_KEY_NAMES = ['escape', 'numlock', 'delete', 'kp-asterisk', 'kp-slash', 'kp-minus', 'kp-period'] as const;
export type ClearKeyName = (typeof CLEAR_KEY_NAMES)[number];
