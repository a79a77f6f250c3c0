/** The simulated devices' base: the shared device plumbing plus what a test or the demo may do to it. */
import { DeviceBase, faulty, HEALTHY } from '../device-base.js';

export abstract class SimDevice extends DeviceBase {
  protected closed = false;

  /** Simulate a device fault (e.g. an unplugged scanner) or its recovery. */
  simulateHealth(ok: boolean, detail: string | null = null): void {
    this.setHealth(ok ? HEALTHY : faulty(detail ?? `${this.name} failed`));
  }

  close(): Promise<void> {
    this.closed = true;
    this.clearHealthListeners();
    return Promise.resolve();
  }
}
