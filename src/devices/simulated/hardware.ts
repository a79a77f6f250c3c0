/**
 * A station's hardware, simulated (hardware.kind = "simulated"): what the demo, the tests, the
 * bench and the fleet run on. Its control methods are what a person would do in front of the station.
 */
import type { Config } from '../../config/schema.js';
import { createLogger, type Logger } from '../../log.js';
import { createSimulatedRfidReader } from '../rfid/simulated.js';
import type { HostModeReader } from '../rfid/reader.js';
import type { Device, Display, KeypadKey, RfidReader, StationHardware } from '../types.js';
import { SimBuzzer, SimTamper } from './alarm-devices.js';
import { FixedPower, SimButton, SimDisplay, SimKeypad, SimScanner } from './inputs.js';
import { SimDoors, SimLocks } from './locks-doors.js';
import { SimAssist, SimSpeech } from './speech.js';
import { readSimDoors, SimStateFile } from './state-file.js';
import { FeigReaderModel } from './feig-reader-model.js';
import { modelLine } from './model-line.js';
import type { TagImage } from './tag-images.js';

export interface SimulatedHardwareOptions {
  readonly boxNumbers: readonly number[];
  readonly doorSpringMs: number;
  readonly inputVoltage: number;
  readonly internetSignalStrength: number;
  /** Doors and lock outputs kept in this file, so the doors survive a restart (state-file.ts); null: none. */
  readonly stateFile?: string | null;
  /**
   * A host-mode RFID reader (the real driver), and the model reader it talks to when it is on the
   * in-process line (null when it is on a serial device: the model is elsewhere, e.g. a test's pty).
   */
  readonly rfid?: { readonly reader: HostModeReader; readonly model: FeigReaderModel | null } | null;
}

export class SimulatedHardware implements StationHardware {
  readonly doors: SimDoors;
  readonly locks: SimLocks;
  readonly barcode = new SimScanner('BAR_CODE');
  readonly rfid = new SimScanner('RFID');
  readonly scanners: readonly SimScanner[];
  readonly keypad = new SimKeypad();
  readonly cancelButton = new SimButton('simulated cancel button');
  readonly display = new SimDisplay();
  readonly tamper = new SimTamper();
  readonly buzzer = new SimBuzzer();
  readonly speech = new SimSpeech();
  readonly assistControls = new SimAssist();
  readonly assist: readonly SimAssist[] = [this.assistControls];
  readonly power: FixedPower;
  readonly rfidReaders: readonly RfidReader[];
  /** The model reader lying in front of the station (the demo places tags on it); null: none in this process. */
  readonly rfidModel: FeigReaderModel | null;
  /**
   * Settles once the RFID reader's first open was tried (never rejects: a reader that cannot be
   * opened is health, retried), so that the station starts — as on a board — knowing whether its
   * devices answer, instead of reporting a reader "not opened yet" and then its recovery.
   */
  readonly ready: Promise<void>;
  private readonly stateFile: SimStateFile | null;

  constructor(opts: SimulatedHardwareOptions) {
    const file = opts.stateFile ?? null;
    this.doors = new SimDoors(opts.boxNumbers, file === null ? {} : readSimDoors(file));
    this.locks = new SimLocks(opts.boxNumbers, this.doors, opts.doorSpringMs);
    this.scanners = [this.barcode, this.rfid];
    this.power = new FixedPower(opts.inputVoltage, opts.internetSignalStrength);
    this.stateFile = file === null ? null : new SimStateFile(file, opts.boxNumbers, this.doors, this.locks);
    this.rfidReaders = opts.rfid ? [opts.rfid.reader] : [];
    this.rfidModel = opts.rfid?.model ?? null;
    this.ready = opts.rfid ? opts.rfid.reader.start() : Promise.resolve();
  }

  devices(): readonly Device[] {
    return [
      this.locks,
      this.doors,
      ...this.scanners,
      ...this.rfidReaders,
      this.keypad,
      this.cancelButton,
      this.display,
      this.tamper,
      this.buzzer,
      this.speech,
      this.assistControls,
    ];
  }

  async close(): Promise<void> {
    this.stateFile?.close();
    await this.locks.close();
    await Promise.all(this.devices().map((d) => d.close()));
    this.rfidModel?.close();
  }

  /** This station with `display` in place of its recording one (a real display driver to watch or test). */
  withDisplay(display: Display): StationHardware {
    return {
      locks: this.locks,
      doors: this.doors,
      scanners: this.scanners,
      rfidReaders: this.rfidReaders,
      keypad: this.keypad,
      cancelButton: this.cancelButton,
      display,
      power: this.power,
      tamper: this.tamper,
      buzzer: this.buzzer,
      speech: this.speech,
      assist: this.assist,
      devices: () => this.devices().map((d) => (d === this.display ? display : d)),
      close: async () => {
        await this.close();
        await display.close();
      },
    };
  }

  // --- what a person does -------------------------------------------------------------------
  scanBarcode(code: string): void {
    this.barcode.read(code);
  }
  scanRfid(uid: string): void {
    this.rfid.read(uid);
  }
  /** Lay a tag on the model RFID reader (false: this station has no model reader). */
  placeTag(tag: TagImage): boolean {
    if (this.rfidModel === null) return false;
    this.rfidModel.place(tag);
    return true;
  }
  /** Take a tag off the model reader. */
  removeTag(uid: string): void {
    this.rfidModel?.remove(uid);
  }
  /** Take every tag off the model reader. */
  clearReader(): void {
    this.rfidModel?.clear();
  }
  /** Type digits on the keypad, then Enter (unless enter is false). */
  typePin(digits: string, enter = true): void {
    for (const d of digits) this.keypad.press({ kind: 'digit', digit: d });
    if (enter) this.keypad.press({ kind: 'enter' });
  }
  pressKey(key: KeypadKey): void {
    this.keypad.press(key);
  }
  pressCancel(): void {
    this.cancelButton.press();
  }
  closeDoor(box: number): void {
    this.doors.set(box, 'CLOSED');
  }
  /** A door forced open (or a broken sensor cable). */
  forceOpen(box: number): void {
    this.doors.set(box, 'OPEN');
  }
  /** The speech button (or another help control) pressed. */
  pressAssist(request: Parameters<SimAssist['press']>[0]): void {
    this.assistControls.press(request);
  }
  /** A key held down past the hold time. */
  holdKey(key: KeypadKey): void {
    this.keypad.hold(key);
  }
  plugHeadphones(plugged: boolean): void {
    this.assistControls.plugHeadphones(plugged);
  }
  /** The cabinet (or service door) opened: the tamper switch reads open. */
  openTamper(): void {
    this.tamper.set(true);
  }
  closeTamper(): void {
    this.tamper.set(false);
  }
}

/**
 * The simulated hardware a config describes (its boxes, door spring, measurements, RFID reader).
 * Its host-mode RFID reader is the real driver: on the model reader's in-process line, or on a
 * serial device (`hardware.rfidReader.path`) — the simulation is the hardware behind the line.
 */
export function simulatedHardwareFor(config: Config, log?: Logger): SimulatedHardware {
  const hw = config.hardware;
  if (hw.kind !== 'simulated') throw new Error(`hardware.kind is "${hw.kind}", not "simulated"`);
  let rfid: SimulatedHardwareOptions['rfid'] = null;
  if (hw.rfidReader !== null) {
    const model = hw.rfidReader.path === null ? new FeigReaderModel() : null;
    const reader = createSimulatedRfidReader(
      hw.rfidReader,
      (log ?? createLogger(config.log.level)).child({ component: 'rfid' }),
      model ? modelLine(model) : undefined,
    );
    rfid = { reader, model };
  }
  return new SimulatedHardware({
    boxNumbers: config.station.boxes.map((b) => b.number),
    doorSpringMs: hw.doorSpringMs,
    inputVoltage: hw.inputVoltage,
    internetSignalStrength: hw.internetSignalStrength,
    stateFile: hw.stateFile,
    rfid,
  });
}
