/**
 * Simulated locks and doors, coupled like the real thing: a pulsed lock lets its door spring open
 * (after `doorSpringMs`); doors close only when someone closes them (closeDoor) and can be forced
 * open (forceOpen). A jammed box's door does not spring open.
 */
import { HARD_MAX_PULSE_MS, type DoorSensors, type DoorState, type LockBank, type Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import { SimDevice } from './base.js';
import { sleep } from '../../time.js';

export interface PulseRecord {
  readonly box: number;
  readonly ms: number;
}

export class SimDoors extends SimDevice implements DoorSensors {
  private readonly states = new Map<number, DoorState>();
  private readonly changes = new Listeners<[number, DoorState]>();

  /** `initial`: door states to start with (a simulated station whose doors survive a restart); CLOSED otherwise. */
  constructor(boxNumbers: readonly number[], initial: Readonly<Record<number, DoorState>> = {}) {
    super('simulated door sensors');
    for (const n of boxNumbers) this.states.set(n, initial[n] ?? 'CLOSED');
  }
  read(box: number): Promise<DoorState> {
    const st = this.states.get(box);
    return st ? Promise.resolve(st) : Promise.reject(new Error(`no door sensor for box ${box}`));
  }
  describeLine(box: number): string | null {
    return this.states.has(box) ? `simulated door switch ${box}` : null;
  }
  peek(box: number): DoorState | undefined {
    return this.states.get(box);
  }
  onChange(listener: (box: number, state: DoorState) => void): Unsubscribe {
    return this.changes.add(listener);
  }
  set(box: number, state: DoorState): void {
    if (!this.states.has(box)) throw new Error(`no box ${box}`);
    if (this.states.get(box) === state) return;
    this.states.set(box, state);
    this.changes.emit(box, state);
  }
  override close(): Promise<void> {
    this.changes.clear();
    return super.close();
  }
}

/** How many pulses SimLocks keeps for inspection. */
export const MAX_PULSES_KEPT = 1_000;

export class SimLocks extends SimDevice implements LockBank {
  readonly boxNumbers: readonly number[];
  /**
   * The last MAX_PULSES_KEPT pulses, oldest first, for tests and the demo; `pulseCount` counts them
   * all. Bounded: a demo or a fleet of simulated stations runs for days.
   */
  readonly pulses: PulseRecord[] = [];
  pulseCount = 0;
  readonly jammed = new Set<number>();
  private readonly energized = new Set<number>();
  private readonly energizedChanges = new Listeners<[number, boolean]>();
  private chain: Promise<void> = Promise.resolve();
  private readonly springTimers = new Set<NodeJS.Timeout>();

  constructor(
    boxNumbers: readonly number[],
    private readonly doors: SimDoors,
    private readonly doorSpringMs: number,
  ) {
    super('simulated locks');
    this.boxNumbers = [...boxNumbers];
  }

  isEnergized(box: number): boolean {
    return this.energized.has(box);
  }

  describeLine(box: number): string | null {
    return this.boxNumbers.includes(box) ? `simulated lock ${box}` : null;
  }

  /** A lock output switched on or off (what a logic probe on the line would show). */
  onEnergized(listener: (box: number, on: boolean) => void): Unsubscribe {
    return this.energizedChanges.add(listener);
  }

  pulse(box: number, ms: number): Promise<void> {
    if (!this.boxNumbers.includes(box)) return Promise.reject(new Error(`no lock for box ${box}`));
    const clamped = Math.max(0, Math.min(ms, HARD_MAX_PULSE_MS));
    const run = this.chain.then(() => this.energize(box, clamped));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async energize(box: number, ms: number): Promise<void> {
    if (this.closed) throw new Error('locks closed');
    this.energized.add(box);
    this.energizedChanges.emit(box, true);
    this.pulses.push({ box, ms });
    this.pulseCount += 1;
    if (this.pulses.length > MAX_PULSES_KEPT) this.pulses.splice(0, this.pulses.length - MAX_PULSES_KEPT);
    if (!this.jammed.has(box)) {
      const spring = setTimeout(() => {
        this.springTimers.delete(spring);
        this.doors.set(box, 'OPEN');
      }, this.doorSpringMs);
      this.springTimers.add(spring);
    }
    await sleep(ms);
    if (this.energized.delete(box)) this.energizedChanges.emit(box, false);
  }

  allOff(): Promise<void> {
    for (const box of this.energized) this.energizedChanges.emit(box, false);
    this.energized.clear();
    return Promise.resolve();
  }

  override async close(): Promise<void> {
    await this.allOff();
    for (const t of this.springTimers) clearTimeout(t);
    this.springTimers.clear();
    this.energizedChanges.clear();
    await super.close();
  }
}
