/**
 * Two devices of one kind as one: a touchscreen's keypad and a tactile keypad beside it (a blind
 * patron's), the kiosk's on-screen cancel button and a wired one. Events come from either; health is
 * the first one's (each keeps reporting its own health as a device of the station).
 */
import { DeviceBase } from './device-base.js';
import type { Keypad, KeypadKey, PushButton, Unsubscribe } from './types.js';

export class EitherKeypad extends DeviceBase implements Keypad {
  constructor(
    private readonly a: Keypad,
    private readonly b: Keypad | null,
  ) {
    super(a.name);
  }
  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    const offs = [this.a.onKey(listener), this.b?.onKey(listener)];
    return () => offs.forEach((off) => off?.());
  }
  onHold(listener: (key: KeypadKey) => void): Unsubscribe {
    const offs = [this.a.onHold?.(listener), this.b?.onHold?.(listener)];
    return () => offs.forEach((off) => off?.());
  }
  close(): Promise<void> {
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

export class EitherButton extends DeviceBase implements PushButton {
  constructor(
    private readonly a: PushButton,
    private readonly b: PushButton | null,
  ) {
    super(a.name);
  }
  onPress(listener: () => void): Unsubscribe {
    const offs = [this.a.onPress(listener), this.b?.onPress(listener)];
    return () => offs.forEach((off) => off?.());
  }
  setAvailable(available: boolean): void {
    this.a.setAvailable?.(available);
    this.b?.setAvailable?.(available);
  }
  close(): Promise<void> {
    this.clearHealthListeners();
    return Promise.resolve();
  }
}
