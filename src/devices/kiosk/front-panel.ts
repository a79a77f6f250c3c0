/**
 * A station's hardware with a kiosk touchscreen as its display, keypad, cancel button and help
 * controls: what the demo's `--display kiosk` runs (and the kiosk's browser test), on the simulated
 * station. The station's own keypad, cancel button and help controls keep working beside the
 * screen's (the demo's typed `pin` and `cancel` commands); its display is replaced. So PINs are
 * taken without the screen, as on a board with a tactile keypad beside its kiosk: a page not on
 * the screen is named in /state, st UP.
 */
import { EitherButton, EitherKeypad } from '../combined.js';
import type { Device, StationHardware } from '../types.js';
import type { KioskPanel } from './panel.js';

export function withKioskPanel(hw: StationHardware, panel: KioskPanel): StationHardware {
  const replaced = new Set<Device>([hw.display]);
  return {
    locks: hw.locks,
    doors: hw.doors,
    scanners: hw.scanners,
    rfidReaders: hw.rfidReaders ?? [],
    power: hw.power,
    tamper: hw.tamper ?? null,
    buzzer: hw.buzzer ?? null,
    speech: hw.speech ?? null,
    assist: [...(hw.assist ?? []), panel.assist],
    kiosk: panel,
    display: panel.display,
    servesWithoutDisplay: hw.keypad !== null,
    keypad: new EitherKeypad(panel.keypad, hw.keypad),
    cancelButton: new EitherButton(panel.cancelButton, hw.cancelButton),
    devices: () => [...hw.devices().filter((d) => !replaced.has(d)), panel.display, panel.assist],
    close: async () => {
      await hw.close();
      await panel.close();
    },
  };
}
