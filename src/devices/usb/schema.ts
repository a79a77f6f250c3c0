/**
 * The board profile's `usb` section: the USB devices the station uses that no other section names
 * by their USB ids (a serial scanner's or the RFID reader's USB-serial adapter, a USB audio adapter,
 * a touchscreen's controller), and whether hubs are allowed. HID scanners and a HID keypad are
 * allowed by their own sections' ids. Everything else stays unauthorised (policy.ts).
 */
import * as z from '../../schema.js';
import { EXACT_INTERFACE, reconnectSchema, usbId, usbPort } from '../input/schema.js';

/** A USBGuard interface pattern "cc:ss:pp" (class, subclass, protocol; hex, `*` for any subclass or protocol). */
export const INTERFACE_PATTERN = /^[0-9a-f]{2}:([0-9a-f]{2}|\*):([0-9a-f]{2}|\*)$/;

export const usbDeviceSchema = z
  .strictObject({
    /** What it is, for the policy file and the technician: "RFID reader's FT232R adapter". */
    name: z.string().check(z.minLength(1), z.maxLength(80), z.regex(/^[^"\\\p{Cc}]+$/u, 'must be printable, without quotes or backslashes')),
    vendorId: usbId,
    productId: usbId,
    /** Only the unit with this USB serial number (two identical adapters: one entry each). */
    serialNumber: z._default(
      z.nullable(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(126),
            z.regex(/^[\x20-\x7e]+$/, 'must be printable ASCII'),
            z.regex(/^[^"\\]+$/, 'must not contain quotes or backslashes'),
          ),
      ),
      null,
    ),
    /**
     * Every interface it may offer, as "cc:ss:pp" patterns (hex): "ff:*:*" for an FTDI adapter,
     * "02:*:*" and "0a:*:*" for a CDC-ACM one, "01:*:*" for audio. A device with these ids offering
     * another interface (a stick posing as the adapter) stays unauthorised.
     */
    interfaces: z
      .array(z.string().check(z.regex(INTERFACE_PATTERN, 'must be an interface pattern like "ff:*:*" (hex class:subclass:protocol, lower case)')))
      .check(z.minLength(1), z.maxLength(16)),
    /**
     * The USB port it is wired to inside the station ("1-1.3", as /sys/bus/usb/devices names it): a
     * device built in (the RFID reader's adapter, a Pi 3's own Ethernet) is allowed on that port only
     * (USBGuard's `via-port`), and then with its exact `interfaces` (no `*`). null: on any port.
     */
    port: z._default(z.nullable(usbPort), null),
  })
  .check(
    z.superRefine((d, ctx) => {
      if (d.port === null) return;
      d.interfaces.forEach((i, n) => {
        if (!EXACT_INTERFACE.test(i))
          ctx.addIssue({
            code: 'custom',
            path: ['interfaces', n],
            message: `a device pinned to its port (${d.port}) is named by its exact interfaces: no *`,
            input: i,
          });
      });
    }),
  );
export type UsbDeviceEntry = z.output<typeof usbDeviceSchema>;

/** Where the station learns whether USBGuard enforces the policy (src/devices/usb/guard.ts). */
export const usbGuardSchema = z.strictObject({
  /** Written by usbguard.service's drop-in (systemd/usbguard-dropin.conf) after each start and stop. */
  stateFile: z._default(z.string().check(z.minLength(1)), '/run/pickup-station-usbguard/state'),
  /** The kernel's default for new USB devices ("0" with usbcore.authorized_default=0 on the command line). */
  bootDefaultFile: z._default(z.string().check(z.minLength(1)), '/sys/module/usbcore/parameters/authorized_default'),
});

export const usbProfileSchema = z.strictObject({
  /** USB devices allowed besides the HID scanners and keypad (which their sections allow). */
  devices: z._default(z.array(usbDeviceSchema).check(z.maxLength(32)), []),
  /** Allow USB hubs (interface class 09 only); devices behind a hub still need a rule of their own. */
  hubs: z._default(z.boolean(), true),
  /**
   * USBGuard watched: the station is out of service while it does not run (record 0145). null only
   * on a board without USBGuard on purpose (a development rig); every station has it.
   */
  guard: z._default(z.nullable(usbGuardSchema), {
    stateFile: '/run/pickup-station-usbguard/state',
    bootDefaultFile: '/sys/module/usbcore/parameters/authorized_default',
  }),
  /** Restart delays of the USB watch's uevent monitor (udevadm monitor) when it ends. */
  reconnect: z.prefault(reconnectSchema, {}),
  /** How long the uevent monitor may take to start before that attempt counts as failed (ms). */
  openTimeoutMs: z._default(z.intIn(10, 600_000), 5_000),
});
export type UsbProfile = z.output<typeof usbProfileSchema>;
