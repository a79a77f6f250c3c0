/**
 * The body of GET /api/status: everything a technician needs to see at a glance, and nothing
 * secret (no password, no token hashes; the config is shown with those removed).
 */
import { readFileSync } from 'node:fs';
import { configDigest } from '../config/read.js';
import type { Config } from '../config/schema.js';
import type { Device, DoorState, InputNodesView, RfidReaderStats, UnknownUsbDevice } from '../devices/types.js';
import { maskIdentifier } from '../log.js';
import type { Alarm, DoorOutcome, ModeKind, SecurityFailure } from '../station/core-types.js';
import type { EventRecord } from '../station/runtime.js';
import { VERSION } from '../version.js';
import type { Technician } from '../tokens/tokens.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { inServiceMode, readerActivity } from '../station/core.js';
import type { BoxAction, FailureView } from '../supervisor/observe.js';
import { readInstallRecord, releaseView, type ReleaseView } from '../service/install-record.js';
import { readVendor, vendorStatus, type VendorStatus } from '../release-info.js';
import type { ConsoleLoginLog } from '../service/console-logins.js';
import { readCredentialsCheck, type CredentialSeal } from '../service/credentials-check.js';

/**
 * Optional capability of a lock bank or door sensor driver: the hardware line behind a box (e.g.
 * "gpiochip0 line 17, active high"). Simulated hardware has none; the status then says `null`.
 */
export interface DescribesLines {
  describeLine(box: number): string | null;
}

function lineOf(device: object, box: number): string | null {
  const d = device as Partial<DescribesLines>;
  return typeof d.describeLine === 'function' ? d.describeLine(box) : null;
}

export interface BoxStatusView {
  readonly number: number;
  readonly id: string;
  readonly door: DoorState;
  readonly lockEnergized: boolean;
  /** The lock and door lines as the drivers describe them; null when they do not tell. */
  readonly lines: { readonly lock: string | null; readonly door: string | null } | null;
  readonly lastAction: BoxAction | null;
  /** How its last opening counts: commanded and opened / commanded, not opened / without a command. */
  readonly outcome: DoorOutcome | null;
  /** Kinds of the alarms in force on this box (forced-open, door-ajar). */
  readonly alarms: readonly Alarm['kind'][];
}

/** An EventRecord as shown: its age instead of the monotonic start time. */
export type EventView = Omit<EventRecord, 'startedAt'> & { readonly ageMs: number };

export function eventView(r: EventRecord, now: number): EventView {
  const { startedAt, ...rest } = r;
  return { ...rest, ageMs: Math.round(now - startedAt) };
}

export function boxViews(supervisor: Supervisor): BoxStatusView[] {
  const { runtime, hardware } = supervisor.station;
  const snap = runtime.snapshot();
  return supervisor.core.boxes.map((b) => {
    const lock = lineOf(hardware.locks, b.number);
    const door = lineOf(hardware.doors, b.number);
    return {
      number: b.number,
      id: b.id,
      door: snap.boxes[b.id] ?? 'CLOSED',
      lockEnergized: hardware.locks.isEnergized(b.number),
      lines: lock === null && door === null ? null : { lock, door },
      lastAction: supervisor.observer.boxAction(b.id),
      outcome: snap.doorOutcomes[b.id] ?? null,
      alarms: snap.alarms.filter((a) => a.boxId === b.id).map((a) => a.kind),
    };
  });
}

function deviceView(d: Device): StatusBody['devices'][number] {
  const h = d.health();
  return { name: d.name, ok: h.ok, detail: h.detail, input: d.inputNodes?.() ?? null };
}

/** The config as a technician may see it: token entries without their hashes. */
export function publicConfig(config: Config): unknown {
  return {
    ...config,
    technician: { ...config.technician, tokens: config.technician.tokens.map((t) => ({ name: t.name, scope: t.scope })) },
  };
}

/** The body of GET /api/status (and the first event of /api/events/stream). */
export interface StatusBody {
  readonly version: string;
  readonly stationId: string;
  readonly technician: Technician;
  readonly mode: ModeKind;
  /** Service mode on: /state says DOWN "service". */
  readonly service: boolean;
  /** A long technician action running now (self-test, reload), or null. */
  readonly busyWith: string | null;
  /**
   * Someone is using the station (a box action, a box open, an event in flight, a PIN being typed):
   * what holds the update lock (src/service/update-lock.ts) and refuses a reload; null: free.
   */
  readonly activity: string | null;
  readonly faults: Readonly<Record<string, string>>;
  /** Alarms in force, oldest first (also in /state's errorMessage and on the live stream). */
  readonly alarms: readonly Alarm[];
  /** The PIN throttle: wrong PINs in a row and the lock-out in force (ms left), if any. */
  readonly pinThrottle: { readonly failures: number; readonly lockout: { readonly ms: number; readonly remainingMs: number } | null };
  /** The tamper switch: null when the board has none. */
  readonly tamper: { readonly open: boolean; readonly name: string } | null;
  /**
   * USB devices the board profile does not name, kept unauthorised: those plugged in now (port,
   * ids, class, product name; never a serial number), how many arrived since the start, and what
   * the station does about one (`security.unknownUsb`). null: not watched (simulated hardware).
   */
  readonly usb: {
    readonly unknown: readonly UnknownUsbDevice[];
    readonly seenTotal: number;
    readonly policy: 'report' | 'out-of-service';
    /**
     * USBGuard: whether it enforces the policy now (why not: `problem`; the station is out of
     * service meanwhile), and the kernel's default for new devices at this boot ("0": the devices
     * present at power-on stayed unauthorised until USBGuard judged them). null: not watched.
     */
    readonly guard: { readonly enforcing: boolean; readonly problem: string | null; readonly bootDefault: string | null } | null;
  } | null;
  readonly inFlight: { readonly endpoint: string; readonly eventId: string | null; readonly ageMs: number | null } | null;
  /** Monotonic ms since the last answered protocol event; null before the first. */
  readonly lastServerContactAgeMs: number | null;
  /** The last event that failed (unanswered, exception, invalid or refused command) and its cause; null: none yet. */
  readonly lastFailure: FailureView | null;
  readonly display: readonly string[];
  readonly events: readonly EventView[];
  readonly boxes: readonly BoxStatusView[];
  /**
   * Each device's health; `input`: a HID device's input event nodes and whether each is kept from
   * logind and libinput (null: not a HID device, or not opened yet).
   */
  readonly devices: readonly { readonly name: string; readonly ok: boolean; readonly detail: string | null; readonly input: InputNodesView | null }[];
  readonly hardware: string;
  /**
   * The journal (src/journal/): `ok` while records are being kept; `problem` the last one (damaged
   * or unreadable at start and set aside, or a failed write); `location` the file or "memory".
   */
  readonly journal: { readonly ok: boolean; readonly problem: string | null; readonly location: string };
  /**
   * Library tags on host-mode RFID readers: the deposited item whose security bit is being cleared
   * now (tags still to verify), the last ones that could not be cleared (the exit gates may alarm
   * for them), oldest first, and per reader its counts and the last tags it read with their data
   * model and problem. Item numbers and UIDs are masked (the last three characters and the length).
   * The readers' health is in `devices`.
   */
  readonly rfid: {
    readonly securityPending: {
      readonly reader: string;
      readonly itemId: string;
      readonly remaining: readonly string[];
      readonly lastReason: string | null;
    } | null;
    readonly securityFailures: readonly SecurityFailure[];
    readonly readers: readonly ({ readonly name: string } & RfidReaderStats)[];
  };
  /**
   * The releases as the installer recorded them (src/service/install-record.ts): installed, whether
   * the running one is proven, an upgrade pending, a known-bad release. null: no record.
   */
  readonly release: ReleaseView | null;
  /** The vendor's statements of this release (src/release-info.ts): security contact, support period and days left. */
  readonly vendor: VendorStatus;
  /**
   * Failed logins on the station's consoles (src/service/console-logins.ts): counted since the
   * daemon started, the newest one's terminal and time, and why the record cannot be read. null:
   * not watched (metrics.consoleLoginFile null).
   */
  readonly consoleLogins: {
    readonly failed: number;
    readonly last: { readonly line: string; readonly at: string } | null;
    readonly problem: string | null;
  } | null;
  /**
   * What the unit's credential check found before this start (src/service/credentials-check.ts):
   * how each credential is sealed. null: not shown (metrics.credentialsCheckFile null) or no file.
   */
  readonly credentials: { readonly sealed: readonly CredentialSeal[] } | null;
  /** The config without secrets (publicConfig). */
  readonly config: unknown;
  /** Which config runs (configFileView). */
  readonly configFile: ConfigFileView;
}

/**
 * The config file and the version of it that runs (read.ts configDigest): `onDisk` differs from
 * `running` when the file was edited and not (yet) reloaded, or a reload of it was refused;
 * `restartNeeded` lists the keys a reload took in that only a process restart applies.
 */
export interface ConfigFileView {
  readonly path: string | null;
  readonly running: string | null;
  /** The file's version now; null when not started from a file or it cannot be read. */
  readonly onDisk: string | null;
  readonly restartNeeded: readonly string[];
  /** A reload runs now (one asked meanwhile is queued behind it). */
  readonly reloading: boolean;
}

export function configFileView(supervisor: Supervisor): ConfigFileView {
  const path = supervisor.configFile;
  let onDisk: string | null = null;
  if (path !== null) {
    try {
      onDisk = configDigest(readFileSync(path));
    } catch {
      onDisk = null;
    }
  }
  return { path, running: supervisor.configVersion, onDisk, restartNeeded: supervisor.restartNeeded(), reloading: supervisor.reloading };
}

export function buildStatus(supervisor: Supervisor, who: Technician, eventCount: number, consoleLogins: ConsoleLoginLog | null = null): StatusBody {
  const { runtime, hardware, config } = supervisor.station;
  const snap = runtime.snapshot();
  const now = performance.now();
  const inFlight = snap.inFlight === null ? null : (supervisor.observer.inFlight() ?? { endpoint: snap.inFlight, eventId: null, ageMs: null });
  return {
    version: VERSION,
    stationId: config.station.id,
    technician: who,
    mode: snap.mode.kind,
    service: inServiceMode(snap),
    busyWith: supervisor.busyWith,
    activity: readerActivity(supervisor.core, snap),
    faults: snap.faults,
    alarms: snap.alarms,
    pinThrottle: snap.pinThrottle,
    tamper: hardware.tamper ? { open: snap.tamperOpen, name: hardware.tamper.name } : null,
    usb: hardware.usb
      ? {
          unknown: hardware.usb.unknown(),
          seenTotal: hardware.usb.seenTotal(),
          policy: config.security.unknownUsb,
          guard: hardware.usbGuard
            ? { enforcing: hardware.usbGuard.enforcing(), problem: hardware.usbGuard.health().detail, bootDefault: hardware.usbGuard.bootDefault() }
            : null,
        }
      : null,
    inFlight,
    lastServerContactAgeMs: supervisor.observer.lastContactAgeMs(),
    lastFailure: supervisor.observer.lastFailure(),
    display: hardware.display.lastShown(),
    events: runtime
      .events()
      .slice(-eventCount)
      .map((r) => eventView(r, now)),
    boxes: boxViews(supervisor),
    devices: hardware.devices().map(deviceView),
    hardware: config.hardware.kind,
    journal: { ...runtime.journalHealth(), location: runtime.journal.location },
    rfid: {
      securityPending:
        snap.rfid.job === null
          ? null
          : {
              reader: snap.rfid.job.reader,
              itemId: maskIdentifier(snap.rfid.job.itemId),
              remaining: snap.rfid.job.remaining.map(maskIdentifier),
              lastReason: snap.rfid.job.lastReason,
            },
      securityFailures: snap.rfid.failures.map((f) => ({ ...f, itemId: maskIdentifier(f.itemId), uids: f.uids.map(maskIdentifier) })),
      readers: (hardware.rfidReaders ?? []).map((r) => ({ name: r.name, ...r.stats() })),
    },
    release: config.metrics.installStatusFile === null ? null : releaseView(readInstallRecord(config.metrics.installStatusFile), VERSION),
    vendor: vendorStatus(readVendor(), Date.now()),
    consoleLogins: consoleLoginsView(consoleLogins),
    credentials: credentialsView(config.metrics.credentialsCheckFile),
    config: publicConfig(supervisor.config),
    configFile: configFileView(supervisor),
  };
}

function credentialsView(file: string | null): StatusBody['credentials'] {
  const check = file === null ? null : readCredentialsCheck(file);
  return check === null ? null : { sealed: check.sealed };
}

function consoleLoginsView(logins: ConsoleLoginLog | null): StatusBody['consoleLogins'] {
  if (logins === null) return null;
  const seen = logins.read();
  return { failed: seen.failed, last: seen.last === null ? null : { line: seen.last.line, at: seen.last.at.toISOString() }, problem: seen.problem };
}
