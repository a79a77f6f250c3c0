/**
 * Whether USBGuard enforces the station's USB policy now, and whether the kernel kept the devices
 * present at power-on unauthorised until it started. A station without it fails closed (record
 * 0145): the kernel keeps every new device unauthorised (`usbcore.authorized_default=0` from the
 * board's command line, USBGuard's `AuthorizedDefault=none` on each controller), and the station is
 * out of service while USBGuard does not run — this device's health is a fault like any device's:
 * `/state` DOWN with the reason, the technician status, `pickup_station_usb_guard_enforcing`.
 *
 * usbguard.service's drop-in (systemd/usbguard-dropin.conf) writes its state, as root, into a folder
 * only root writes (made at boot by the release's tmpfiles line): "running" after each start,
 * "stopped RESULT CODE STATUS" after each stop, whatever ended it (systemd runs ExecStopPost= after a
 * kill -9 too). No file: USBGuard has not started since the board booted (masked, not installed, or
 * it failed before it ran). The folder is watched (inotify): nothing is polled.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { DeviceBase, faulty, HEALTHY } from '../device-base.js';
import type { UsbGuardSource } from '../types.js';

export interface UsbGuardOptions {
  /** The file usbguard.service's drop-in writes. */
  readonly stateFile: string;
  /** The kernel's default for new USB devices: /sys/module/usbcore/parameters/authorized_default. */
  readonly bootDefaultFile: string;
  readonly log: Logger;
}

/** The guard's state as its file says it: the words a technician and the server read. */
export function guardProblem(text: string | null): string | null {
  if (text === null) return 'USB policy not enforced: usbguard.service has not run since the board booted (masked, not installed, or failed at its start)';
  const [word = '', result = '', code = '', status = ''] = text.trim().split(/\s+/);
  if (word === 'running') return null;
  if (word === 'stopped') {
    const how = [result && result !== 'success' ? `result ${result}` : '', code && status ? `${code} ${status}` : ''].filter(Boolean).join(', ');
    return `USB policy not enforced: usbguard.service stopped${how ? ` (${how})` : ''}`;
  }
  return `USB policy not enforced: usbguard.service's state is unreadable ("${text
    .trim()
    .slice(0, 40)
    .replace(/\p{Cc}/gu, ' ')}")`;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The state file's text; null when there is none; the error's code when it is there but cannot be read. */
function readState(file: string): { text: string | null } | { error: string } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return code === 'ENOENT' ? { text: null } : { error: code };
  }
}

export class UsbGuardWatch extends DeviceBase implements UsbGuardSource {
  private watcher: FSWatcher | null = null;
  private boot: string | null = null;

  constructor(private readonly o: UsbGuardOptions) {
    super('USB policy (usbguard.service)', faulty('USB policy not read yet'));
  }

  enforcing(): boolean {
    return this.health().ok;
  }

  bootDefault(): string | null {
    return this.boot;
  }

  /** Read both now, and follow the guard's state. A folder that cannot be watched is a problem of its own. */
  start(): void {
    this.boot = readText(this.o.bootDefaultFile)?.trim() ?? null;
    if (this.boot !== '0')
      this.o.log.warn(
        { authorizedDefault: this.boot, file: this.o.bootDefaultFile },
        'USB devices present at power-on were authorised before USBGuard started: the kernel command line lacks usbcore.authorized_default=0 (cmdline.txt; applied at the next boot after the install)',
      );
    const name = basename(this.o.stateFile);
    try {
      this.watcher = watch(dirname(this.o.stateFile), { persistent: false }, (_event, file) => {
        if (file === null || file === name) this.read();
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
        this.setHealth(faulty(`USB policy not watched: ${dirname(this.o.stateFile)} went away`));
      });
    } catch (e) {
      this.setHealth(faulty(`USB policy not watched: ${dirname(this.o.stateFile)} cannot be watched (${(e as NodeJS.ErrnoException).code ?? 'error'})`));
      return;
    }
    this.read();
  }

  private read(): void {
    const state = readState(this.o.stateFile);
    const problem =
      'error' in state ? `USB policy not known: usbguard.service's state file ${this.o.stateFile} cannot be read (${state.error})` : guardProblem(state.text);
    const before = this.health();
    this.setHealth(problem === null ? HEALTHY : faulty(problem));
    if (before.ok === (problem === null) && before.detail === problem) return;
    if (problem === null) this.o.log.info('USB policy enforced: usbguard.service runs');
    else
      this.o.log.error(`${problem}: every USB device plugged in now stays unauthorised; the station is out of service until it runs (journalctl -u usbguard)`);
  }

  close(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    this.clearHealthListeners();
    return Promise.resolve();
  }
}
