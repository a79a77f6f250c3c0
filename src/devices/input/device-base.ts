/**
 * Shared plumbing of the real input/output drivers (scanners, keypad, display): listener lists
 * that never call back synchronously, and a health value that notifies only on change.
 *
 * Deliberately not imported from src/devices/sim/: real drivers and simulations stay apart.
 */
import type { Device, DeviceHealth, Unsubscribe } from '../types.js';

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

/** Base of every real I/O device: name, health and its change notifications. */
export abstract class IoDevice implements Device {
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

/** Render a possibly hostile string for a log line: escaped, truncated, never the whole of a long value. */
export function logSafe(s: string, max = 16): string {
  const head = [...s].slice(0, max).join('');
  // eslint-disable-next-line no-control-regex
  const escaped = head.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return s.length > max ? `${escaped}…(${s.length} chars)` : escaped;
}
