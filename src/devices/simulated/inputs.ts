/** Simulated scanners, keypad, cancel button, display and power sources. */
import type { Display, IdentifierScanner, IdentifierType, Keypad, KeypadKey, PowerMonitor, PushButton, Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import { SimDevice } from './base.js';

export class SimScanner extends SimDevice implements IdentifierScanner {
  private readonly scans = new Listeners<[string]>();
  constructor(readonly identifierType: IdentifierType) {
    super(`simulated ${identifierType === 'RFID' ? 'RFID reader' : 'barcode scanner'}`);
  }
  onScan(listener: (value: string) => void): Unsubscribe {
    return this.scans.add(listener);
  }
  read(value: string): void {
    this.scans.emit(value);
  }
}

export class SimKeypad extends SimDevice implements Keypad {
  private readonly keys = new Listeners<[KeypadKey]>();
  private readonly holds = new Listeners<[KeypadKey]>();
  constructor() {
    super('simulated keypad');
  }
  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.keys.add(listener);
  }
  onHold(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.holds.add(listener);
  }
  press(key: KeypadKey): void {
    this.keys.emit(key);
  }
  /** A key pressed and held down past the hold time. */
  hold(key: KeypadKey): void {
    this.keys.emit(key);
    this.holds.emit(key);
  }
}

export class SimButton extends SimDevice implements PushButton {
  private readonly presses = new Listeners<[]>();
  onPress(listener: () => void): Unsubscribe {
    return this.presses.add(listener);
  }
  press(): void {
    this.presses.emit();
  }
}

export class SimDisplay extends SimDevice implements Display {
  private lines: readonly string[] = [];
  private readonly shows = new Listeners<[readonly string[]]>();
  constructor() {
    super('simulated display');
  }
  show(lines: readonly string[]): Promise<void> {
    this.lines = [...lines];
    this.shows.emit(this.lines);
    return Promise.resolve();
  }
  lastShown(): readonly string[] {
    return this.lines;
  }
  onShow(listener: (lines: readonly string[]) => void): Unsubscribe {
    return this.shows.add(listener);
  }
}

export class FixedPower implements PowerMonitor {
  constructor(
    private voltage: number | null,
    private signal: number | null,
  ) {}
  inputVoltage(): Promise<number | null> {
    return Promise.resolve(this.voltage);
  }
  internetSignalStrength(): Promise<number | null> {
    return Promise.resolve(this.signal);
  }
  set(voltage: number | null, signal: number | null): void {
    this.voltage = voltage;
    this.signal = signal;
  }
}
