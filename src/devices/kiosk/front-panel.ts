/**
 * A station's hardware with a kiosk touchscreen as its display, keypad, cancel button and help
 * controls: what the demo's `--display kiosk` runs (and the kiosk's browser test), on the simulated
 * station. The station's own keypad, cancel button and help controls keep working beside the
 * screen's (the demo's typed `pin` and `cancel` commands); its display is replaced.
 */
import { DeviceBase } from '../device-base.js';
import type { Device, Keypad, KeypadKey, PushButton, StationHardware, Unsubscribe } from '../types.js';
import type { KioskPanel } from './panel.js';

/** Keys from either keypad; its health is the screen's keypad's (the other reports its own). */
class EitherKeypad extends DeviceBase implements Keypad {
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

class EitherButton extends DeviceBase implements PushButton {
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

export function withKioskPanel(hw: StationHardware, panel: KioskPanel): StationHardware {
  const replaced = new Set<Device>([hw.display]);
  return {
    locks: hw.locks,
    doors: hw.doors,
    scanners: hw.scanners,
    power: hw.power,
    tamper: hw.tamper ?? null,
    buzzer: hw.buzzer ?? null,
    speech: hw.speech ?? null,
    assist: [...(hw.assist ?? []), panel.assist],
    display: panel.display,
    keypad: new EitherKeypad(panel.keypad, hw.keypad),
    cancelButton: new EitherButton(panel.cancelButton, hw.cancelButton),
    devices: () => [...hw.devices().filter((d) => !replaced.has(d)), panel.display, panel.assist],
    close: async () => {
      await hw.close();
      await panel.close();
    },
  };
}
