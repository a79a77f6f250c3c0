/**
 * The model reader behind a serial device: the far end of a pseudo-terminal pair (tests, the VM
 * rig, the bench) or a real serial port looped to the station's, so that the station's reader
 * driver runs through the kernel's tty layer exactly as against a reader on a USB-serial cable.
 */
import { SerialPort } from 'serialport';
import type { FeigReaderModel } from './feig-reader-model.js';

export interface ServedModel {
  /** Stop serving (the port is closed: to the driver, the reader was unplugged if the pty goes too). */
  close(): Promise<void>;
}

export function serveModel(model: FeigReaderModel, path: string): Promise<ServedModel> {
  const port = new SerialPort({ path, baudRate: 38_400, autoOpen: false });
  return new Promise((resolve, reject) => {
    port.open((err) => {
      if (err) return reject(err);
      port.on('data', (chunk: Buffer) => model.receive(chunk));
      port.on('error', () => undefined);
      model.attach((bytes) => {
        if (port.isOpen) port.write(Buffer.from(bytes));
      });
      resolve({
        close: () =>
          new Promise<void>((done) => {
            model.detach();
            if (!port.isOpen) return done();
            port.close(() => done());
          }),
      });
    });
  });
}
