/**
 * The serial line between the host-mode reader driver and the model reader, for simulated
 * hardware: a SerialOpener (the driver's hardware boundary) whose bytes go to a FeigReaderModel in
 * this process instead of a port. The driver above it is the real one.
 */
import type { SerialOpener } from '../serial/link.js';
import type { FeigReaderModel } from './feig-reader-model.js';

export function modelLine(model: FeigReaderModel): SerialOpener {
  return (_port, ev) => {
    let open = true;
    // Answers arrive on a later turn, as bytes from a port do.
    model.attach((bytes) => {
      if (open) setImmediate(() => open && ev.onData(Buffer.from(bytes)));
    });
    return Promise.resolve({
      write: (bytes) => {
        if (!open) return Promise.reject(new Error('line closed'));
        const copy = Uint8Array.from(bytes);
        setImmediate(() => open && model.receive(copy));
        return Promise.resolve();
      },
      close: () => {
        open = false;
        model.detach();
        return Promise.resolve();
      },
    });
  };
}
