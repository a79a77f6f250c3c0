/**
 * One open serial port (serialport 13), as a Link for the Reconnector.
 *
 * Facts this relies on (measured, see shared/notes/driver-rig.md): when the device goes away the
 * port emits `close` with `disconnected === true` and no `error`; writes after that are queued
 * silently and their callbacks never fire. So a loss is detected from `close`/`error`, and
 * write() gives up after its own timeout instead of waiting on a callback.
 */
import { SerialPort } from 'serialport';
import { DeviceError, errorMessage } from '../../errors.js';
import type { Link } from '../reconnect.js';
import { lossOfClose, type SerialLoss } from './loss.js';

export type Parity = 'none' | 'even' | 'odd' | 'mark' | 'space';

export interface SerialPortOptions {
  /** Stable path: /dev/serial/by-id/… or a udev symlink such as /dev/pickup-barcode. */
  readonly path: string;
  readonly baudRate: number;
  readonly dataBits: 5 | 6 | 7 | 8;
  readonly parity: Parity;
  readonly stopBits: 1 | 2;
}

export interface SerialLink extends Link {
  /** Write bytes; rejects if they are not handed to the OS within timeoutMs (never hangs). */
  write(bytes: Uint8Array, timeoutMs: number): Promise<void>;
}

export interface SerialEvents {
  readonly onData: (chunk: Buffer) => void;
  /** Called once when the port goes away, with why. */
  readonly lost: (loss: SerialLoss) => void;
}

/** Opens a serial link; injectable so driver logic can be tested without a port. */
export type SerialOpener = (o: SerialPortOptions, ev: SerialEvents) => Promise<SerialLink>;

export const openSerialPort: SerialOpener = (o, ev) =>
  new Promise((resolve, reject) => {
    const port = new SerialPort({
      path: o.path,
      baudRate: o.baudRate,
      dataBits: o.dataBits,
      parity: o.parity,
      stopBits: o.stopBits,
      autoOpen: false,
    });
    let gone = false;
    const lose = (loss: SerialLoss): void => {
      if (gone) return;
      gone = true;
      ev.lost(loss);
    };
    port.on('data', (chunk: Buffer) => ev.onData(chunk));
    port.on('close', (err: (Error & { disconnected?: boolean }) | null) => lose(lossOfClose(err)));
    port.on('error', (err: Error) => lose({ kind: 'io-error', message: err.message }));
    port.open((err) => {
      if (err) {
        gone = true;
        reject(new DeviceError(o.path, `cannot open: ${shortOsError(err)}`, { cause: err }));
        return;
      }
      resolve({
        write: (bytes, timeoutMs) =>
          new Promise<void>((res, rej) => {
            if (gone || !port.isOpen) {
              rej(new DeviceError(o.path, 'not open'));
              return;
            }
            const t = setTimeout(() => rej(new DeviceError(o.path, `write not done after ${timeoutMs} ms`)), timeoutMs);
            port.write(Buffer.from(bytes), (e) => {
              if (e) {
                clearTimeout(t);
                rej(new DeviceError(o.path, `write failed: ${errorMessage(e)}`, { cause: e }));
                return;
              }
              port.drain((e2) => {
                clearTimeout(t);
                if (e2) rej(new DeviceError(o.path, `drain failed: ${errorMessage(e2)}`, { cause: e2 }));
                else res();
              });
            });
          }),
        close: () =>
          new Promise<void>((res) => {
            gone = true;
            // After a disconnect the port is already closed; closing again would only error.
            if (!port.isOpen) return res();
            port.close(() => res());
          }),
      });
    });
  });

/** "Error: No such file or directory, cannot open /dev/x" → "No such file or directory". */
function shortOsError(err: Error): string {
  return err.message.replace(/^Error:\s*/, '').replace(/, cannot open .*$/, '');
}
