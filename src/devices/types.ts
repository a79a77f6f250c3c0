/**
 * Device contracts: the only thing the station runtime knows of its hardware.
 *
 * Modelled on serialport's BindingInterface: one narrow, promise-based interface per device
 * kind. Each has a real implementation (src/devices/<kind>/) and a simulated one
 * (src/devices/simulated/), chosen by config (`hardware.kind`), never by a test flag.
 *
 * Boxes are addressed by their *number* (1-based position in the station, as printed on the
 * door); the mapping number -> boxId (protocol UUID) lives in the station config.
 *
 * Rules every implementation keeps:
 * - Listener callbacks are never called synchronously from inside the method that registers them.
 * - A method that fails rejects with an Error whose message a technician can act on; it never
 *   leaves a lock output energized.
 * - `close()` is idempotent and, for locks, drives every output OFF before releasing it.
 */

export type DoorState = 'OPEN' | 'CLOSED';
export type IdentifierType = 'BAR_CODE' | 'RFID';
export type Unsubscribe = () => void;

/** Health as shown to technicians and reported in `/state` (a device that is not ok -> st DOWN). */
export interface DeviceHealth {
  readonly ok: boolean;
  /** Why it is not ok (e.g. "barcode scanner /dev/serial/by-id/... missing"); null when ok. */
  readonly detail: string | null;
}

/**
 * A HID device's input event nodes and whether each is kept from logind and libinput
 * (src/devices/hid/input-nodes.ts): the station reads the device through hidraw, and a node that is
 * a keyboard to anyone else types a patron's card number or PIN there too. Not a health problem:
 * the station keeps working; the technician status and the log say it.
 */
export interface InputNodesView {
  /** Its event nodes ("event5"); none: the kernel made no input device of it. */
  readonly nodes: readonly string[];
  /** A node that is a keyboard to logind or libinput, and what to do; null when none is. */
  readonly problem: string | null;
  /** One line for the log and the status. */
  readonly text: string;
}

export interface Device {
  /** Human-readable name with its path or line, for logs and the technician page. */
  readonly name: string;
  health(): DeviceHealth;
  /** A HID device read through hidraw: its input nodes as found at its last open; null before it opened. */
  inputNodes?(): InputNodesView | null;
  /** Called after every change of health(). */
  onHealthChange(listener: (health: DeviceHealth) => void): Unsubscribe;
  /** Release the device. Idempotent. */
  close(): Promise<void>;
}

/**
 * The lock outputs of all boxes.
 *
 * Construction drives every output to its OFF level (outputs are created with their initial
 * level, so there is no glitch). `pulse` energizes one lock for at most `ms`, clamped to the
 * implementation's hard maximum (HARD_MAX_PULSE_MS), and resolves once the output is OFF again.
 * Pulses never overlap: a second call waits for the first (solenoids draw a large current).
 */
export interface LockBank extends Device {
  readonly boxNumbers: readonly number[];
  pulse(box: number, ms: number): Promise<void>;
  /** Drive every lock OFF now. */
  allOff(): Promise<void>;
  /** Whether the lock output of `box` is energized right now (for the technician page and tests). */
  isEnergized(box: number): boolean;
  /** The hardware line behind a box's lock, for technicians (e.g. "gpiochip0:17, active high"); null if none. */
  describeLine?(box: number): string | null;
}

/** Door sensors of all boxes. Changes are debounced by the implementation. */
export interface DoorSensors extends Device {
  read(box: number): Promise<DoorState>;
  onChange(listener: (box: number, state: DoorState) => void): Unsubscribe;
  /** The hardware line behind a box's door switch, for technicians; null if none. */
  describeLine?(box: number): string | null;
}

/** A barcode or RFID reader. Emits whole, cleaned identifiers; garbage is dropped (and logged) inside. */
export interface IdentifierScanner extends Device {
  readonly identifierType: IdentifierType;
  onScan(listener: (value: string) => void): Unsubscribe;
}

/**
 * What a host-mode RFID reader knows of one tag in its field. `item`: the library data model's
 * Primary Item Identifier (what the library system knows the item by) and set information;
 * `unreadable`: why the tag cannot be used (blank, unknown format, truncated, damaged, or its
 * memory could not be read); `uid-only`: a reader configured to send UIDs does not read memory.
 */
export type RfidTagData =
  | {
      readonly kind: 'item';
      readonly model: 'iso28560-3' | 'iso28560-2' | '3m-rfid501' | 'bibliotheca-dm11';
      readonly itemId: string;
      readonly set: { readonly part: number; readonly of: number } | null;
      /** The owner institution (ISIL) as the tag says it: never sent (the protocol has no field), masked wherever shown. */
      readonly owner: string | null;
      /** ISO 28560-1's media format (other) code, where the tag carries one (5: careful handling, 6: small item). */
      readonly mediaFormat: number | null;
    }
  | { readonly kind: 'unreadable'; readonly problem: 'blank' | 'unknown' | 'truncated' | 'damaged' | 'read-failed'; readonly detail: string }
  | { readonly kind: 'uid-only' };

export interface RfidTag {
  /** 16 hex digits, most significant byte first (E004…). */
  readonly uid: string;
  /** The tag's AFI as last read; null when unknown. */
  readonly afi: number | null;
  readonly data: RfidTagData;
}

/** The security bit as a library sets it: an AFI value, or the NXP EAS bit. */
export type SecurityWrite = { readonly kind: 'afi'; readonly value: number } | { readonly kind: 'eas'; readonly enabled: boolean };

export type SecurityWriteResult = { readonly uid: string; readonly ok: true } | { readonly uid: string; readonly ok: false; readonly reason: string };

/**
 * A host-mode RFID reader (src/devices/rfid/): it polls its field, reads and decodes each tag's
 * memory once, and reports the whole field whenever it changes (a tag arrived and was read, a tag
 * left). Unlike an IdentifierScanner it does not decide what is "a scan": the station core does
 * (one report per item until it leaves, sets, one item at a time).
 */
export interface RfidReader extends Device {
  /** What the station sends for its tags: the Primary Item Identifier, or the UID (no memory read). */
  readonly send: 'item-id' | 'uid';
  onField(listener: (tags: readonly RfidTag[]) => void): Unsubscribe;
  /**
   * Write the security bit of these tags and read it back; one result per UID, in order. Never
   * rejects: a tag that left, a reader that did not answer, a read-back that disagrees is a result.
   */
  writeSecurity(uids: readonly string[], write: SecurityWrite): Promise<readonly SecurityWriteResult[]>;
  /** What it counted since it was made (for metrics and the technician page). */
  stats(): RfidReaderStats;
}

export type RfidProblem = Extract<RfidTagData, { kind: 'unreadable' }>['problem'];

/**
 * A reader's counts since the process started, and the last tags it read. UIDs appear only
 * masked (the last three digits): this goes to the technician page and metrics.
 */
export interface RfidReaderStats {
  /** Tags read whose library data names an item. */
  readonly tagsRead: number;
  /** Tags that could not be used, by why. */
  readonly unreadable: Readonly<Record<RfidProblem, number>>;
  /** Security-bit writes verified by reading back, and those not verified. */
  readonly securityWrites: number;
  readonly securityWriteFailures: number;
  /** Times the line came back after it was lost (or after too many failed requests). */
  readonly reconnects: number;
  /** Frames dropped as no answer to the request in flight. */
  readonly answersDropped: number;
  /**
   * The last tags read, newest last: masked UID, data model, problem (null: an item); for an item its
   * owner institution masked as identifiers are, and its media format in words ("careful handling").
   */
  readonly lastTags: readonly {
    readonly uid: string;
    readonly model: string | null;
    readonly problem: RfidProblem | null;
    readonly owner: string | null;
    readonly media: string | null;
  }[];
}

export type KeypadKey =
  { readonly kind: 'digit'; readonly digit: string } | { readonly kind: 'backspace' } | { readonly kind: 'clear' } | { readonly kind: 'enter' };

/** The PIN keypad. */
export interface Keypad extends Device {
  onKey(listener: (key: KeypadKey) => void): Unsubscribe;
  /**
   * A key held down for the hold time the driver was given (once per press, after its `onKey`).
   * Optional: a keypad that cannot tell when a key is released has none.
   */
  onHold?(listener: (key: KeypadKey) => void): Unsubscribe;
}

/** A push button (the cancel button). Debounced by the implementation. */
export interface PushButton extends Device {
  onPress(listener: () => void): Unsubscribe;
  /**
   * Whether the station offers what the button does now (a cancellable box is open). An on-screen
   * button shows itself only then; a physical one ignores it. Optional.
   */
  setAvailable?(available: boolean): void;
}

/**
 * The cabinet's or service door's tamper switch (optional). Debounced by the implementation. Wire it
 * so that a cut cable reads open (hardware/WIRING.md).
 */
export interface TamperSwitch extends Device {
  /** true: open (the cabinet or service door is open). */
  read(): Promise<boolean>;
  onChange(listener: (open: boolean) => void): Unsubscribe;
}

/**
 * A buzzer (optional). `beep` sounds for `ms` (clamped to MAX_BEEP_MS) and resolves once silent;
 * `silence` ends a beep now (its `beep` promise then resolves, never rejects). A beep that cannot be
 * sounded rejects and marks the device unhealthy. Patterns are timed by the caller
 * (src/station/buzzer-player.ts), between beeps, with timers: nothing blocks the event loop.
 */
export interface Buzzer extends Device {
  beep(ms: number): Promise<void>;
  silence(): Promise<void>;
}

/** The longest single beep any buzzer sounds. */
export const MAX_BEEP_MS = 5_000;

/** One step of a tone: a frequency in Hz (0: silence) for a number of milliseconds. */
export interface ToneStep {
  readonly hz: number;
  readonly ms: number;
}

/**
 * The station's voice (optional): text spoken through the board's audio output (a headphone jack).
 * `say` and `tone` each end what is playing first (a new announcement interrupts the old one) and
 * resolve once it has played or was cut short. They never reject: an output that cannot play is
 * the device's health (the station goes on without a voice), never an exception.
 */
export interface SpeechOutput extends Device {
  /** Speak `text` with `voice` (an espeak-ng voice name, e.g. "en-us", "cs") at `volume` percent. */
  say(text: string, voice: string, volume: number): Promise<void>;
  /** Play a tone (a PIN key's, a warning's) at `volume` percent. */
  tone(steps: readonly ToneStep[], volume: number): Promise<void>;
  /** End what is playing now. */
  stop(): Promise<void>;
}

/**
 * What a patron asks for with the station's help controls: speech (start it, or hear the screen
 * again), louder, softer, more time (a time limit about to run out), or the kiosk page's contrast or
 * text size switched (which makes this an assisted visit: messages wait for the patron).
 */
export type AssistRequest = 'speech' | 'volume-up' | 'volume-down' | 'more-time' | 'visual';

/**
 * The patron's help controls (optional): a speech button, volume buttons, a more-time button and a
 * headphone jack's detect switch on GPIO, or the kiosk page's buttons.
 */
export interface AssistControls extends Device {
  onRequest(listener: (request: AssistRequest) => void): Unsubscribe;
  /** Whether headphones are plugged in: null when there is no detect line to tell. */
  headphones?(): boolean | null;
  onHeadphones?(listener: (plugged: boolean) => void): Unsubscribe;
  /** The station offers more time now (a warning is showing): an on-screen button shows itself. */
  setMoreTimeOffered?(offered: boolean): void;
  /** The patron has gone: settings of theirs (the kiosk page's contrast, text size) go back to the defaults. */
  sessionEnded?(): void;
}

/** A character display. Shows the lines it is given (fitted to its size by the implementation). */
export interface Display extends Device {
  show(lines: readonly string[]): Promise<void>;
  /** The lines last given to show(), before fitting. */
  lastShown(): readonly string[];
  /**
   * Someone is at the station (a key, a scan, a button, a door): a display that dims or switches
   * off when idle (an OLED, against burn-in) comes back on. Optional: most displays ignore it.
   */
  wake?(): void;
}

/** Sources of the two measurements in `/state`. Each returns null when it cannot tell. */
export interface PowerMonitor {
  inputVoltage(): Promise<number | null>;
  internetSignalStrength(): Promise<number | null>;
}

/** Everything the runtime drives, built from config by src/devices/factory.ts. */
export interface StationHardware {
  readonly locks: LockBank;
  readonly doors: DoorSensors;
  readonly scanners: readonly IdentifierScanner[];
  readonly keypad: Keypad | null;
  readonly cancelButton: PushButton | null;
  readonly display: Display;
  readonly power: PowerMonitor;
  /** The tamper switch, when the board has one (absent = none). */
  readonly tamper?: TamperSwitch | null;
  /** The buzzer, when the board has one (absent = none; the demo's rings the terminal bell). */
  readonly buzzer?: Buzzer | null;
  /** Host-mode RFID readers (absent = none); wedge and serial RFID readers are `scanners`. */
  readonly rfidReaders?: readonly RfidReader[];
  /** The audio output speech goes to, when the board has one (absent = none). */
  readonly speech?: SpeechOutput | null;
  /** The patron's help controls: GPIO buttons, the headphone jack, the kiosk page (absent = none). */
  readonly assist?: readonly AssistControls[];
  /**
   * The station takes PINs without its display: a kiosk touchscreen beside a tactile keypad. Its
   * display's problem (the page not on the screen) is then named in /state with st UP; absent or
   * false, it is a fault (st DOWN), as every other device's.
   */
  readonly servesWithoutDisplay?: boolean;
  /** USB devices the kernel keeps unauthorised, as they come and go (absent = not watched: simulated hardware). */
  readonly usb?: UnknownUsbSource | null;
  /** The kiosk page's port, as metrics read it (absent = no kiosk page). */
  readonly kiosk?: KioskPortView | null;
  /** Whether USBGuard enforces the USB policy (absent = not watched: simulated hardware, or a profile without it). */
  readonly usbGuard?: UsbGuardSource | null;
  /** Every device, for health reporting. */
  devices(): readonly Device[];
  /** Close everything; locks are driven OFF first. */
  close(): Promise<void>;
}

/** USBGuard as the station sees it: its health says why the policy is not enforced (a fault: out of service). */
export interface UsbGuardSource extends Device {
  /** usbguard.service runs and applies the profile's rules. */
  enforcing(): boolean;
  /** The kernel's usbcore.authorized_default at this boot: "0" keeps devices unauthorised until USBGuard judges them; null: unknown. */
  bootDefault(): string | null;
}

/** Why the kiosk page refused a request: a closed set (metric label values). */
export const KIOSK_REFUSAL_REASONS = ['no-secret', 'wrong-host', 'foreign-origin', 'not-json', 'bad-body', 'not-found', 'evicted'] as const;
export type KioskRefusalReason = (typeof KIOSK_REFUSAL_REASONS)[number];

/** The kiosk page's port as the metrics read it. */
export interface KioskPortView {
  /** Requests refused since the process started, by reason (the port outlives a reload, and so do these). */
  refusals(): Readonly<Record<KioskRefusalReason, number>>;
}

/**
 * The hard maximum of a lock pulse. No command, config value or bug can energize a lock
 * longer: the config schema rejects larger values and every LockBank clamps again.
 */
export const HARD_MAX_PULSE_MS = 3000;

/** A USB device the kernel keeps unauthorised (src/devices/usb/): never its serial number. */
export interface UnknownUsbDevice {
  /** Where it is plugged in: bus-port[.port...], e.g. "1-1.3". */
  readonly port: string;
  /** Four hex digits each, as lsusb writes them. */
  readonly vendorId: string;
  readonly productId: string;
  /** bDeviceClass, two hex digits ("00": per interface, "09": hub). */
  readonly deviceClass: string;
  /** The device's own product string, printable, at most 32 characters; null when it has none. */
  readonly product: string | null;
}

/** The USB watch as the runtime, the technician port and the metrics read it. */
export interface UnknownUsbSource extends Device {
  /** The unauthorised devices plugged in now, by port. */
  unknown(): readonly UnknownUsbDevice[];
  /** Unauthorised devices seen arriving since start (one per plug-in). */
  seenTotal(): number;
  /** Called after every change of unknown(). */
  onUnknownChange(listener: (devices: readonly UnknownUsbDevice[]) => void): Unsubscribe;
}
