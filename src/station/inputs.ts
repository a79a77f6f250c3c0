/**
 * Device → core input wiring: what each device kind's callbacks become as core inputs. Every input
 * from a person also wakes a display that dims when idle, whether or not the screen changes. A
 * device's health becomes a fault (`device:<name>`) — the display's, on a station that takes PINs
 * without it (`servesWithoutDisplay`), a degraded problem of the same key (named, st UP); the audio
 * output's health is the core's to judge (`speech-output`: DOWN only when speech is required). Adding a device kind adds its lines
 * here, and nowhere else in the station.
 */
import type { Logger } from 'pino';
import type { Device, DoorState, StationHardware, Unsubscribe } from '../devices/types.js';
import type { CoreConfig, Input } from './core-types.js';

export interface InputSink {
  dispatch(input: Input): void;
  /** A door changed (after its input): the runtime tells its observers. */
  door(boxId: string, number: number, state: DoorState): void;
  /** Monotonic now, ms (inputs that are timed carry it). */
  now(): number;
}

/** Subscribe to every input device of `hw`; returns the unsubscriptions. */
export function wireInputs(hw: StationHardware, core: CoreConfig, sink: InputSink, log: Logger): Unsubscribe[] {
  const subs: Unsubscribe[] = [];
  const idOf = (n: number): string | undefined => core.boxes.find((b) => b.number === n)?.id;
  const wake = (): void => hw.display.wake?.();
  subs.push(
    hw.doors.onChange((n, st) => {
      wake();
      const boxId = idOf(n);
      if (boxId === undefined) return log.warn({ box: n }, 'door change of a box not in the config');
      sink.dispatch({ type: 'door', boxId, state: st });
      sink.door(boxId, n, st);
    }),
  );
  if (hw.tamper) subs.push(hw.tamper.onChange((open) => sink.dispatch({ type: 'tamper', open })));
  const usb = hw.usb ?? null;
  if (usb !== null) subs.push(usb.onUnknownChange((devices) => sink.dispatch({ type: 'unknown-usb', present: devices.length })));
  for (const sc of hw.scanners) {
    subs.push(
      sc.onScan((value) => {
        wake();
        sink.dispatch({ type: 'scan', identifierType: sc.identifierType, value, at: sink.now() });
      }),
    );
  }
  for (const reader of hw.rfidReaders ?? []) {
    subs.push(
      reader.onField((tags) => {
        wake();
        sink.dispatch({ type: 'rfid-field', reader: reader.name, send: reader.send, tags, at: sink.now() });
      }),
    );
  }
  if (hw.keypad) {
    subs.push(
      hw.keypad.onKey((key) => {
        wake();
        sink.dispatch({ type: 'key', key });
      }),
    );
    const held = hw.keypad.onHold?.((key) => sink.dispatch({ type: 'key-held', key }));
    if (held) subs.push(held);
  }
  for (const control of hw.assist ?? []) {
    subs.push(
      control.onRequest((request) => {
        wake();
        sink.dispatch({ type: 'assist', request });
      }),
    );
    const jack = control.onHeadphones?.((plugged) => sink.dispatch({ type: 'headphones', plugged }));
    if (jack) subs.push(jack);
  }
  if (hw.cancelButton)
    subs.push(
      hw.cancelButton.onPress(() => {
        wake();
        sink.dispatch({ type: 'cancel-pressed' });
      }),
    );
  return subs;
}

/** Whether headphones are plugged into any help control's jack now (the `start` input carries it). */
export function headphonesNow(hw: StationHardware): boolean {
  return (hw.assist ?? []).some((c) => c.headphones?.() === true);
}

/** Report `device`'s health now if it is bad, and on every change. */
function watch(device: Device, report: (problem: string | null) => void): Unsubscribe {
  const tell = (): void => {
    const h = device.health();
    report(h.ok ? null : (h.detail ?? `${device.name} not working`));
  };
  const off = device.onHealthChange(tell);
  if (!device.health().ok) tell();
  return off;
}

/**
 * Every device's health but the audio output's and the USB watch's, as a fault `device:<name>`
 * (before the `start` input), or for the display of a station that takes PINs without it as a
 * degraded problem of that key. The other two are judged by the core by their config (after `start`).
 */
export function watchDeviceHealth(hw: StationHardware, sink: Pick<InputSink, 'dispatch'>): Unsubscribe[] {
  const judged: readonly unknown[] = [hw.speech ?? null, hw.usb ?? null];
  const named = hw.servesWithoutDisplay === true ? hw.display : null;
  return hw
    .devices()
    .filter((d) => !judged.includes(d))
    .map((d) => watch(d, (message) => sink.dispatch({ type: d === named ? 'degraded' : 'fault', key: `device:${d.name}`, message })));
}

/** The USB watch's health as `usb-watch` (after the `start` input: the core judges it by `security.unknownUsb`). */
export function watchUsbWatch(hw: StationHardware, sink: Pick<InputSink, 'dispatch'>): Unsubscribe[] {
  const usb = hw.usb ?? null;
  return usb === null ? [] : [watch(usb, (problem) => sink.dispatch({ type: 'usb-watch', problem }))];
}

/** The audio output's health as `speech-output` (after the `start` input: the core judges it by the speech config). */
export function watchSpeechOutput(hw: StationHardware, sink: Pick<InputSink, 'dispatch'>): Unsubscribe[] {
  const output = hw.speech ?? null;
  return output === null ? [] : [watch(output, (problem) => sink.dispatch({ type: 'speech-output', problem }))];
}
