/** Shared plumbing of the GPIO devices: listener lists and health (same contract as sim/base.ts). */
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

export abstract class GpioDevice implements Device {
  private current: DeviceHealth = { ok: true, detail: null };
  private readonly healthListeners = new Listeners<[DeviceHealth]>();

  constructor(readonly name: string) {}

  health(): DeviceHealth {
    return this.current;
  }
  onHealthChange(listener: (health: DeviceHealth) => void): Unsubscribe {
    return this.healthListeners.add(listener);
  }
  protected setHealth(ok: boolean, detail: string | null = null): void {
    if (this.current.ok === ok && this.current.detail === detail) return;
    this.current = { ok, detail: ok ? null : (detail ?? `${this.name} failed`) };
    this.healthListeners.emit(this.current);
  }
  abstract close(): Promise<void>;
  protected clearHealthListeners(): void {
    this.healthListeners.clear();
  }
}
