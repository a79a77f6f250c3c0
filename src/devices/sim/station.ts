/**
 * A whole simulated station (hardware.kind = "simulated"): what the demo, the tests, the bench
 * and the fleet run on. Its control methods are what a person would do in front of the station.
 */
import type { StationConfig } from '../../config/schema.js';
import type { Device, Display, KeypadKey, StationHardware } from '../types.js';
import { SimBuzzer, SimTamper } from './alarm-devices.js';
import { FixedPower, SimButton, SimDisplay, SimKeypad, SimScanner } from './inputs.js';
import { SimDoors, SimLocks } from './locks-doors.js';
import { SimAssist, SimSpeech } from './speech.js';
import { readSimDoors, SimStateFile } from './state-file.js';

export interface SimulatedStationOptions {
  readonly boxNumbers: readonly number[];
  readonly doorSpringMs: number;
  readonly inputVoltage: number;
  readonly internetSignalStrength: number;
  /** Doors and lock outputs kept in this file, so the doors survive a restart (state-file.ts); null: none. */
  readonly stateFile?: string | null;
}

export class SimulatedStation implements StationHardware {
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
  private readonly stateFile: SimStateFile | null;

  constructor(opts: SimulatedStationOptions) {
    const file = opts.stateFile ?? null;
    this.doors = new SimDoors(opts.boxNumbers, file === null ? {} : readSimDoors(file));
    this.locks = new SimLocks(opts.boxNumbers, this.doors, opts.doorSpringMs);
    this.scanners = [this.barcode, this.rfid];
    this.power = new FixedPower(opts.inputVoltage, opts.internetSignalStrength);
    this.stateFile = file === null ? null : new SimStateFile(file, opts.boxNumbers, this.doors, this.locks);
  }

  devices(): readonly Device[] {
    return [this.locks, this.doors, ...this.scanners, this.keypad, this.cancelButton, this.display, this.tamper, this.buzzer, this.speech, this.assistControls];
  }

  async close(): Promise<void> {
    this.stateFile?.close();
    await this.locks.close();
    await Promise.all(this.devices().map((d) => d.close()));
  }

  /** This station with `display` in place of its recording one (a real display driver to watch or test). */
  withDisplay(display: Display): StationHardware {
    return {
      locks: this.locks,
      doors: this.doors,
      scanners: this.scanners,
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

/** The simulated station a config describes (its boxes, door spring, measurements). */
export function simulatedStationFor(config: StationConfig): SimulatedStation {
  const hw = config.hardware;
  if (hw.kind !== 'simulated') throw new Error(`hardware.kind is "${hw.kind}", not "simulated"`);
  return new SimulatedStation({
    boxNumbers: config.station.boxes.map((b) => b.number),
    doorSpringMs: hw.doorSpringMs,
    inputVoltage: hw.inputVoltage,
    internetSignalStrength: hw.internetSignalStrength,
    stateFile: hw.stateFile,
  });
}
