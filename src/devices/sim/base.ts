/** Shared plumbing of the simulated devices: health and listener lists. */
import type { Device, DeviceHealth, Unsubscribe } from '../types.js';

export class Listeners<A extends unknown[]> {
  private readonly list = new Set<(...args: A) => void>();
  add(listener: (...args: A) => void): Unsubscribe {
    this.list.add(listener);
    return () => this.list.delete(listener);
  }
  /** Deliver asynchronously: never from inside the caller's stack (see the device contract). */
  emit(...args: A): void {
    queueMicrotask(() => {
      for (const l of this.list) l(...args);
    });
  }
  clear(): void {
    this.list.clear();
  }
}

export abstract class SimDevice implements Device {
  private current: DeviceHealth = { ok: true, detail: null };
  private readonly healthListeners = new Listeners<[DeviceHealth]>();
  protected closed = false;

  constructor(readonly name: string) {}

  health(): DeviceHealth {
    return this.current;
  }
  onHealthChange(listener: (health: DeviceHealth) => void): Unsubscribe {
    return this.healthListeners.add(listener);
  }
  /** Simulate a device fault (e.g. an unplugged scanner) or its recovery. */
  setHealth(ok: boolean, detail: string | null = null): void {
    this.current = { ok, detail: ok ? null : (detail ?? `${this.name} failed`) };
    this.healthListeners.emit(this.current);
  }
  close(): Promise<void> {
    this.closed = true;
    this.healthListeners.clear();
    return Promise.resolve();
  }
}
