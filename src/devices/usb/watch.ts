/**
 * Sees USB devices the kernel keeps unauthorised (sysfs.ts) as they come and go, and reports them:
 * a warning log line per device that arrives, the list for the technician and the metrics, a
 * count of every arrival, and listeners (the runtime hands the count to the core, which decides
 * what the station does: `security.unknownUsb`).
 *
 * It learns of changes from the kernel's uevents, read from `udevadm monitor --kernel
 * --subsystem-match=usb` (a child process: its link, reopened with backoff like any device's
 * link when it ends), and reads sysfs again after each: a device arriving, its interfaces going or
 * coming when it is deauthorised or authorised, a device leaving. Reads run one at a time; events
 * during a read make one more read after it. No timer: nothing is polled.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { errorMessage } from '../../errors.js';
import { Listeners } from '../device-base.js';
import { ReconnectingDevice, type ReconnectingOptions } from '../reconnecting-device.js';
import type { Link } from '../reconnect.js';
import type { UnknownUsbDevice, UnknownUsbSource, Unsubscribe } from '../types.js';
import { describeUnknown, unauthorisedUsbDevices } from './sysfs.js';

export type { UnknownUsbDevice } from '../types.js';

export const DEFAULT_USB_DEVICES_DIR = '/sys/bus/usb/devices';
export const DEFAULT_USB_MONITOR = ['udevadm', 'monitor', '--kernel', '--subsystem-match=usb'] as const;

export interface UsbWatchOptions extends ReconnectingOptions {
  /** /sys/bus/usb/devices. */
  readonly devicesDir: string;
  /** argv of a process printing a line per USB uevent (udevadm monitor). */
  readonly monitor: readonly string[];
}

class MonitorLink implements Link {
  constructor(private readonly child: ChildProcessWithoutNullStreams) {}
  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

const key = (d: UnknownUsbDevice): string => `${d.port} ${d.vendorId}:${d.productId}`;

export class UsbWatch extends ReconnectingDevice<MonitorLink> implements UnknownUsbSource {
  private present: readonly UnknownUsbDevice[] = [];
  private seen = 0;
  private reading = false;
  private readAgain = false;
  private readonly changes = new Listeners<[readonly UnknownUsbDevice[]]>();

  constructor(private readonly o: UsbWatchOptions) {
    super(`USB watch (${o.devicesDir})`, o);
  }

  unknown(): readonly UnknownUsbDevice[] {
    return this.present;
  }
  seenTotal(): number {
    return this.seen;
  }
  onUnknownChange(listener: (devices: readonly UnknownUsbDevice[]) => void): Unsubscribe {
    return this.changes.add(listener);
  }

  protected openLink(lost: (reason: string) => void): Promise<MonitorLink> {
    const [command, ...args] = this.o.monitor;
    if (command === undefined) return Promise.reject(new Error('no monitor command'));
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams;
      child.once('error', (e) => reject(new Error(`${command}: ${errorMessage(e)}`)));
      child.once('spawn', () => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          // "KERNEL[123.456] add /devices/... (usb)"; the header lines say nothing.
          if (/^(KERNEL|UDEV)\[/.test(line)) this.read();
        });
        child.stderr.resume();
        child.once('exit', (code, signal) => lost(`${command} ended (${signal ?? `exit ${code}`})`));
        resolve(new MonitorLink(child));
      });
    });
  }

  /** Listening: what is plugged in already is read now (a device plugged in before the start). */
  protected override linkUp(): void {
    this.read();
  }

  protected override downDetail(reason: string): string {
    return `${this.name} not watching (${reason}): unknown USB devices are not reported`;
  }

  protected override onClose(): void {
    this.changes.clear();
  }

  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void unauthorisedUsbDevices(this.o.devicesDir)
      .then(
        (now) => this.update(now),
        (e: unknown) => this.log.error({ dir: this.o.devicesDir, error: errorMessage(e) }, 'USB devices could not be read'),
      )
      .finally(() => {
        this.reading = false;
        if (this.readAgain && !this.closed) {
          this.readAgain = false;
          this.read();
        }
      });
  }

  private update(now: readonly UnknownUsbDevice[]): void {
    if (this.closed) return;
    const before = new Set(this.present.map(key));
    const after = new Set(now.map(key));
    for (const d of now)
      if (!before.has(key(d))) {
        this.seen++;
        this.log.warn(
          { usb: { port: d.port, vendorId: d.vendorId, productId: d.productId, deviceClass: d.deviceClass, product: d.product } },
          `unknown USB device kept out: ${describeUnknown(d)}`,
        );
      }
    for (const d of this.present)
      if (!after.has(key(d)))
        this.log.info({ usb: { port: d.port, vendorId: d.vendorId, productId: d.productId } }, `unknown USB device gone: ${describeUnknown(d)}`);
    if (before.size === after.size && [...after].every((k) => before.has(k))) return;
    this.present = now;
    this.changes.emit(now);
  }
}
