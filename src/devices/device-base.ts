/**
 * Shared plumbing of every device implementation (real and simulated): listener lists that never
 * call back synchronously, and a health value whose listeners hear only real changes.
 * It belongs to the device contract (types.ts), not to any one implementation.
 */
import type { Device, DeviceHealth, Unsubscribe } from './types.js';

export class Listeners<A extends unknown[]> {
  private readonly list = new Set<(...args: A) => void>();
  add(listener: (...args: A) => void): Unsubscribe {
    this.list.add(listener);
    return () => {
      this.list.delete(listener);
    };
  }
  /** Deliver on a microtask: never from inside the caller's stack (the device contract). */
  emit(...args: A): void {
    if (this.list.size === 0) return;
    queueMicrotask(() => {
      for (const l of this.list) l(...args);
    });
  }
  clear(): void {
    this.list.clear();
  }
}

export const HEALTHY: DeviceHealth = Object.freeze({ ok: true, detail: null });

/** A health value for a device that is not working. */
export function faulty(detail: string): DeviceHealth {
  return { ok: false, detail };
}

/** Base of every device: name, health and its change notifications. */
export abstract class DeviceBase implements Device {
  private current: DeviceHealth;
  private readonly healthListeners = new Listeners<[DeviceHealth]>();

  constructor(
    readonly name: string,
    initial: DeviceHealth = HEALTHY,
  ) {
    this.current = initial;
  }

  health(): DeviceHealth {
    return this.current;
  }
  onHealthChange(listener: (health: DeviceHealth) => void): Unsubscribe {
    return this.healthListeners.add(listener);
  }
  /** Set health; listeners hear only real changes (a reconnect loop retrying does not spam them). */
  protected setHealth(next: DeviceHealth): void {
    if (next.ok === this.current.ok && next.detail === this.current.detail) return;
    this.current = next;
    this.healthListeners.emit(next);
  }
  protected clearHealthListeners(): void {
    this.healthListeners.clear();
  }
  abstract close(): Promise<void>;
}
